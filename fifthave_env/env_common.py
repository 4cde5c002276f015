"""What the PettingZoo and the Gymnasium environment share: option checks and rendering."""

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .engine import checks
from .engine.game import Game, GameConfig
from .render_text import render_text

if TYPE_CHECKING:  # imported when a window opens: it needs matplotlib
    from .render_image import ImageWindow

class EnvUsageError(RuntimeError):
    """A call the environment cannot take in its current state (before ``reset``, after the end,
    or after an opponent failed); nothing was changed."""


class OpponentError(RuntimeError):
    """An opponent inside the Gymnasium env raised or chose an illegal action; the env needs a reset."""


REWARDS = ("win_loss", "win", "vp_margin", "score_delta")
RENDER_MODES = ["ansi", "rgb_array", "human"]


def game_config(reward: str, render_mode: str | None, **game_options: Any) -> GameConfig:
    """Check the options both environments take (``engine.checks``, as ``GameConfig`` does); the
    ``GameConfig`` of the rest."""
    checks.choice("reward", reward, REWARDS)
    checks.choice("render_mode", render_mode, (*RENDER_MODES, None))
    return GameConfig(**game_options)


def end_reward(reward_kind: str, game: Game, seat: int) -> float:
    """What ``seat`` receives when the game is over, on top of the last step's ``score_delta`` (none).

    ``win_loss``: +1 for each winner (a shared win too), -1 for the others, 0 for all at
    truncation; ``win``: +1 for each winner, 0 for the others and at truncation;
    ``vp_margin``: own VP minus the best other seat's VP.
    """
    if reward_kind == "win_loss":
        return 0 if game.truncated else (1 if seat in game.winners else -1)
    if reward_kind == "win":
        return 0 if game.truncated or seat not in game.winners else 1
    if reward_kind == "vp_margin":
        return game.scores[seat] - max(game.scores[q] for q in range(game.n) if q != seat)
    return 0


class Renderer:
    """``"ansi"``: text; ``"rgb_array"``: the board picture; ``"human"``: that picture in a window.

    ``"human"`` with no window to open (no display, matplotlib's Agg backend) warns once and
    shows nothing, so API checkers that try every mode (PettingZoo's ``render_test``,
    Gymnasium's ``check_env``) run headless.
    """

    def __init__(self, render_mode: str | None) -> None:
        self.render_mode = render_mode
        self._window: ImageWindow | None = None
        self._no_window = False

    def render(self, game: Game | None) -> str | np.ndarray | None:
        if self.render_mode is None:
            raise ValueError(f"render() needs a render_mode; create the env with render_mode= one of {RENDER_MODES}")
        if game is None:
            raise EnvUsageError("call reset() before render()")
        if self.render_mode == "ansi":
            return render_text(game)
        from .render_image import ImageWindow, render_image  # imported only when pictures are asked for

        frame = render_image(game)
        if self.render_mode == "rgb_array":
            return frame
        if self._no_window:
            return None
        if self._window is None:
            try:
                self._window = ImageWindow()
            except RuntimeError as error:
                self._no_window = True
                warnings.warn(str(error), stacklevel=3)
                return None
        self._window.show(frame)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None
