"""Recorded games: save, load and replay them, and turn them into pictures or an animated GIF.

A recorded game (:class:`GameRecord`) is the saved state a game started from
(``Game.to_dict()``, which includes the random generator) and the action ids
played from there. Replaying is ``Game.from_dict`` then ``apply`` for each id,
so every random draw (black cards, Alea's bids, the Central Park draw) comes
out exactly as it did.

Record while playing with the PettingZoo env::

    env.reset(seed=7)
    record = GameRecord.start(env.unwrapped.game)
    ...                       # for each step: record.actions.append(action); env.step(action)
    record.save("game.json")

or let :func:`record_game` play a game between agents. Then::

    fifthave replay game.json game.gif      # one frame per turn (or python -m fifthave_env.replay)
    fifthave replay game.json frames/ --every action

The input may also be a bare saved state (``Game.to_dict()`` / ``env.state_dict()``
as JSON): its picture is the only frame.

A record may also name each seat's agent (``agents``) and keep, per action, what its agent
reported about it (``explanations``: the agent's optional ``explain()``, see
``agent_protocol``, or null); ``record_game`` fills both, and the web viewer (``fifthave.agents.web``)
shows them. Both are checked on load like the rest (an explanation is small JSON data).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .agent_protocol import explain
from .engine import checks, safejson
from .engine.actions import NUM_ACTIONS
from .engine.game import Game, GameConfig, IllegalActionError
from .runner import Decision, GameHooks, play
from .runtime import atomic_open, atomic_write_text, check_writable, check_writable_directory, exit_on_interrupt

if TYPE_CHECKING:
    from PIL import Image

RECORD_FORMAT = 1
RECORD_KEYS = ("record_format", "initial_state", "actions")
# Optional: the agent name per seat, and per action what its agent reported (``explain()``, or null)
RECORD_OPTIONAL_KEYS = ("agents", "explanations")
# An explanation is a small JSON report: bounded, so that a hostile record cannot blow up the viewer
EXPLANATION_LIMITS = {"depth": 4, "items": 200, "text": 200}
FRAME_EVERY = ("action", "turn")
# GIF frame delays are hundredths of a second, at most 655.35 s (the last frame shows 3 times longer)
FPS_RANGE = (0.01, 100.0)
UNCHANGED = 255  # a GIF palette index no color uses (it has at most 128): "as in the frame before"


@dataclass
class GameRecord:
    """The state a game started from and the action ids played from there."""

    initial_state: dict[str, Any]
    actions: list[int] = field(default_factory=list)
    agents: list[str] | None = None
    """The agent's name per seat, when known."""
    explanations: list[Any] | None = None
    """Per action, what its agent reported about it (its ``explain()``, agent protocol) or None."""

    @classmethod
    def start(cls, game: Game) -> GameRecord:
        """An empty record starting at ``game``'s current state (append each action id played)."""
        return cls(game.to_dict(), [])

    def to_dict(self) -> dict[str, Any]:
        data = {"record_format": RECORD_FORMAT, "initial_state": self.initial_state,
                "actions": [int(a) for a in self.actions]}
        if self.agents is not None:
            data["agents"] = list(self.agents)
        if self.explanations is not None and any(e is not None for e in self.explanations):
            data["explanations"] = list(self.explanations)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """A record from :meth:`to_dict` data, or from a bare saved state (no actions).

        A record is untrusted input: its keys, format and action ids are checked (the starting
        state by ``Game.from_dict`` when replayed); errors are ``engine.checks.InvalidValueError``
        (``InvalidTypeError`` for a wrong type) naming the field."""
        checks.mapping("recorded game", data)
        if "initial_state" in data:
            unknown = [k for k in data if k not in RECORD_KEYS + RECORD_OPTIONAL_KEYS]
            if unknown:
                raise checks.InvalidValueError(f"recorded game has the unknown key(s) {', '.join(map(repr, unknown))}; "
                                               f"it holds {', '.join(RECORD_KEYS)} and optionally "
                                               f"{', '.join(RECORD_OPTIONAL_KEYS)}")
            checks.mapping("recorded game", {k: v for k, v in data.items() if k in RECORD_KEYS}, RECORD_KEYS)
            version = data["record_format"]
            if not checks.is_int(version) or version != RECORD_FORMAT:
                raise checks.InvalidValueError(f"unknown record format {checks.shown(version)}; "
                                               f"this version reads {RECORD_FORMAT}")
            actions = checks.sequence("recorded game's actions", data["actions"])
            # exact ints: a float, bool or numeric string is no action id
            actions = [checks.integer(f"recorded game's actions[{i}]", a, 0, NUM_ACTIONS - 1)
                       for i, a in enumerate(actions)]
            agents = data.get("agents")
            if agents is not None:
                agents = [_text(f"recorded game's agents[{i}]", name, EXPLANATION_LIMITS["text"])
                          for i, name in enumerate(checks.sequence("recorded game's agents", agents))]
            explanations = data.get("explanations")
            if explanations is not None:
                explanations = checks.sequence("recorded game's explanations", explanations)
                if len(explanations) != len(actions):
                    raise checks.InvalidValueError(f"recorded game's explanations must have one entry per action "
                                                   f"({len(actions)}), got {len(explanations)}")
                explanations = [None if e is None else _report(f"recorded game's explanations[{i}]", e)
                                for i, e in enumerate(explanations)]
            return cls(data["initial_state"], actions, agents, explanations)
        if "state" in data and "config" in data:
            return cls(data, [])
        raise checks.InvalidValueError(
            "not a recorded game nor a saved game state: expected the keys 'initial_state' and 'actions' "
            "(GameRecord.to_dict) or 'config' and 'state' (Game.to_dict)")

    def save(self, path: str | os.PathLike[str]) -> None:
        atomic_write_text(path, json.dumps(self.to_dict()))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> GameRecord:
        return cls.from_dict(safejson.load(path, f"the recorded game {path}"))

    def replay(self) -> Iterator[tuple[int, int, int | None, Game]]:
        """Yield ``(index, actor, action, game)``: first ``(-1, -1, None, start)``, then after each action.

        ``actor`` is the seat that played ``action``. The same Game object moves on
        from one item to the next: ``game.clone()`` one you want to keep.
        """
        game = Game.from_dict(self.initial_state)
        yield -1, -1, None, game
        for index, action in enumerate(self.actions):
            actor = game.actor
            try:
                game.apply(action)
            except IllegalActionError as error:
                raise ValueError(f"recorded action #{index} ({action}) is not legal in the replayed game; "
                                 f"the record does not belong to this starting state: {error}") from None
            yield index, actor, action, game

    def final_game(self) -> Game:
        """The game after the last recorded action."""
        for *_, game in self.replay():
            pass
        return game


def _text(name, value, limit):
    if not isinstance(value, str):
        raise checks.InvalidTypeError(f"{name} must be text, got {checks.shown(value)}")
    if len(value) > limit:
        raise checks.InvalidValueError(f"{name} is {len(value)} characters long; at most {limit} are allowed")
    return value


def _report(name, value, depth=0):
    """``value`` if it is a small JSON report (an agent's ``explain()``): dicts with text keys, lists,
    text, finite numbers, booleans and null, within ``EXPLANATION_LIMITS``."""
    limits = EXPLANATION_LIMITS
    if depth == 0:
        checks.mapping(name, value)
    if depth > limits["depth"]:
        raise checks.InvalidValueError(f"{name} is nested more than {limits['depth']} levels deep")
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise checks.InvalidValueError(f"{name} must be a finite number, got {value!r}")
        return value
    if isinstance(value, str):
        return _text(name, value, limits["text"])
    if isinstance(value, (list, dict)) and len(value) > limits["items"]:
        raise checks.InvalidValueError(f"{name} holds {len(value)} items; at most {limits['items']} are allowed")
    if isinstance(value, list):
        return [_report(f"{name}[{i}]", v, depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {_text(f"a key of {name}", k, limits["text"]): _report(f"{name}[{k!r}]", v, depth + 1)
                for k, v in value.items()}
    raise checks.InvalidTypeError(f"{name} must be JSON data (dict, list, text, number, bool or null), "
                                  f"got {checks.shown(value)}")


class Recorder(GameHooks):
    """A ``runner.play`` hook that records the game: ``record`` (a ``GameRecord``) names each seat's agent and
    keeps each action with what its agent reported about it (``explain()``, agent protocol)."""

    def __init__(self, game: Game, names: Sequence[str]) -> None:
        self.record = GameRecord.start(game)
        self.record.agents = [str(name) for name in names]
        self._explanations: list[Any] = []
        self.record.explanations = self._explanations

    def applied(self, decision: Decision) -> None:
        self.record.actions.append(decision.action)
        self._explanations.append(explain(decision.agent))


def record_game(agents: Sequence[Any], config: GameConfig | None = None, seed: int | None = None) -> GameRecord:
    """Play one game between ``agents`` (one per seat, see ``fifthave.agents.base``) and return its record.

    Agents are seated as in tournaments (``runner.play``): each sees only its own observation, in the
    layout it reads (``observation_layout``, default 0), and its mask; a searching agent gets its seat's
    sampler. ``seed`` fixes the game and every agent's generator, so the same seed gives the
    same game. The record names each seat's agent and keeps, per action, what the agent reported
    about it when the agent has the optional ``explain()`` (agent protocol).
    """
    config = config if config is not None else GameConfig()
    if len(agents) != config.num_players:
        raise ValueError(f"need one agent per seat: {config.num_players} for this config, got {len(agents)}")
    game_seed, *agent_seeds = np.random.SeedSequence(seed).spawn(1 + len(agents))
    game = Game(config, rng=np.random.default_rng(game_seed))
    for seat, (agent, agent_seed) in enumerate(zip(agents, agent_seeds)):
        agent.reset(config, seat, np.random.default_rng(agent_seed))
    recorder = Recorder(game, [getattr(agent, "name", type(agent).__name__) for agent in agents])
    play(game, agents, [recorder])
    return recorder.record


def frames(record: GameRecord, every: str = "turn", hands: str | int = "actor",
           scale: float = 0.75) -> Iterator[Image.Image]:
    """Yield the pictures (``PIL.Image``) of a recorded game.

    ``every="turn"``: the start, the beginning of every turn, and the end;
    ``every="action"``: the start and the state after every action. Each
    caption names the last action played; ``hands`` and ``scale`` are
    :func:`fifthave_env.render_image.board_image`'s.
    """
    from .render_image import board_image

    if every not in FRAME_EVERY:
        raise ValueError(f"every must be one of {FRAME_EVERY}, got {every!r}")
    last = len(record.actions) - 1
    turn = None
    for index, actor, action, game in record.replay():
        if every == "turn" and index not in (-1, last) and game.turn == turn:
            continue
        turn = game.turn
        caption = "start" if action is None else f"#{index + 1}  seat {actor}: {game.describe(action)}"
        yield board_image(game, hands=hands, caption=caption, scale=scale)


def _color_counts(images):
    """How often each color occurs in ``images`` (every third pixel both ways), as ``{0xRRGGBB: count}``:
    memory bounded by the colors, not the frames."""
    counts: dict[int, int] = {}
    for im in images:
        pixels = np.asarray(im)[::3, ::3].reshape(-1, 3).astype(np.int32)
        packed, found = np.unique(pixels[:, 0] << 16 | pixels[:, 1] << 8 | pixels[:, 2], return_counts=True)
        for value, count in zip(packed.tolist(), found.tolist()):
            counts[value] = counts.get(value, 0) + count
    return counts


def _gif_palette(counts, size=128):
    """One palette for every frame: the renderer's key colors, then the most frequent other colors
    (``counts``: ``_color_counts``).

    A shared palette of exact colors keeps the seat colors true (a per-frame
    median cut can map red to brown) and the file small.
    """
    from PIL import Image

    from .render_image import KEY_COLORS

    packed = np.array(sorted(counts), dtype=np.int64)
    frequency = np.array([counts[value] for value in packed.tolist()], dtype=np.int64)
    colors = list(dict.fromkeys(KEY_COLORS))
    for value in packed[np.argsort(-frequency, kind="stable")]:
        if len(colors) >= size:
            break
        color = (int(value >> 16), int(value >> 8 & 255), int(value & 255))
        if color not in colors:
            colors.append(color)
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for color in colors for v in color] + [0] * 3 * (256 - len(colors)))
    return palette


def save_gif(record: GameRecord, path: str | os.PathLike[str], every: str = "turn", fps: float = 2.0,
             hands: str | int = "actor", scale: float = 0.75) -> int:
    """Write the frames of a recorded game to an animated GIF; the last frame stays 3 times longer.

    Returns the number of frames. The frames are streamed: drawn once to choose the palette, then again
    and written one by one (a game of a thousand actions at ``scale=4`` is tens of GB of pictures; only
    one is in memory at a time). The file is written atomically.
    """
    from PIL import GifImagePlugin, Image

    fps = checks.real("fps", fps)
    if not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:
        raise checks.InvalidValueError(f"fps must be from {FPS_RANGE[0]} to {FPS_RANGE[1]} frames per second "
                                       f"(GIF delays are hundredths of a second), got {fps!r}")
    options: dict[str, Any] = dict(every=every, hands=hands, scale=scale)
    palette = _gif_palette(_color_counts(frames(record, **options)))
    duration = round(1000 / fps)
    # a frame is written when the next exists: the last one's delay differs
    count, previous = 0, None
    held: Any = None  # (picture, offset, GIF options) of the frame not written yet
    with atomic_open(path, "wb") as f:
        for image in frames(record, **options):
            frame = image.quantize(palette=palette, dither=Image.Dither.NONE)
            indices = np.asarray(frame)
            if previous is None:
                header, _ = GifImagePlugin.getheader(frame, info={"loop": 0, "duration": duration,
                                                                  "optimize": False})
                f.write(b"".join(header))
                part: Any = (frame, (0, 0), {})
            else:
                picture, offset, params = held
                f.write(b"".join(GifImagePlugin.getdata(picture, offset, duration=duration, **params)))
                part = _changed_part(frame, indices, previous)
            previous, held, count = indices, part, count + 1
        picture, offset, params = held
        f.write(b"".join(GifImagePlugin.getdata(picture, offset, duration=3 * duration, **params)))
        f.write(b";")  # the GIF trailer
    return count


def _changed_part(frame, indices, previous):
    """``(picture, offset, GIF options)``: the smallest rectangle of ``frame`` that differs from the frame
    before, its unchanged pixels transparent (``UNCHANGED``), drawn over that frame, as Pillow's own GIF
    writer does (one pixel if nothing changed, so that every frame stays)."""
    from PIL import Image

    changed = indices != previous
    rows = np.flatnonzero(changed.any(axis=1))
    if not rows.size:
        return frame.crop((0, 0, 1, 1)), (0, 0), {}
    columns = np.flatnonzero(changed[rows[0]:rows[-1] + 1].any(axis=0))
    top, bottom, left, right = int(rows[0]), int(rows[-1]) + 1, int(columns[0]), int(columns[-1]) + 1
    part = np.where(changed[top:bottom, left:right], indices[top:bottom, left:right], UNCHANGED).astype(np.uint8)
    picture = Image.fromarray(part, mode="P")
    picture.putpalette(frame.getpalette())
    return picture, (left, top), {"transparency": UNCHANGED}


def save_pngs(record: GameRecord, directory: str | os.PathLike[str], every: str = "turn",
              hands: str | int = "actor", scale: float = 0.75) -> int:
    """Write the frames as ``directory/frame_0000.png``, ...; returns the number of frames."""
    os.makedirs(directory, exist_ok=True)
    count = 0
    for count, image in enumerate(frames(record, every=every, hands=hands, scale=scale), start=1):
        image.save(os.path.join(directory, f"frame_{count - 1:04d}.png"))
    return count


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Turn a recorded game (or a saved state) into a GIF or PNG frames.")
    parser.add_argument("input", help="JSON file: GameRecord.save() or a saved state (Game.to_dict())")
    parser.add_argument("output", help="a .gif file, or a directory for PNG frames")
    parser.add_argument("--every", choices=FRAME_EVERY, default="turn", help="one frame per turn or per action")
    parser.add_argument("--fps", type=float, default=2.0, help="GIF frames per second")
    parser.add_argument("--scale", type=float, default=0.75, help="picture size relative to 1280x720")
    parser.add_argument("--hands", default="actor", help="whose hand to show: actor, none or a seat number")
    args = parser.parse_args(argv)
    hands = int(args.hands) if args.hands.isdigit() else args.hands
    if not (math.isfinite(args.scale) and 0.05 <= args.scale <= 4):  # the picture is 1280x720 times scale
        parser.error(f"--scale must be from 0.05 to 4, got {args.scale}")
    # a bad file, record or option: one line, exit code 2 (JSON, record and saved-game errors are ValueErrors)
    try:
        record = GameRecord.load(args.input)
        Game.from_dict(record.initial_state)  # its errors now, not after frames were drawn
    except (ValueError, OSError) as error:
        parser.exit(2, f"{parser.prog}: error: cannot read {args.input}: {error}\n")
    gif = args.output.lower().endswith(".gif")
    try:
        if gif:
            check_writable("output", args.output)
        else:
            check_writable_directory("output", args.output)
        with exit_on_interrupt(parser.prog, "no GIF written" if gif else f"the frames drawn are in {args.output}"):
            if gif:
                count = save_gif(record, args.output, every=args.every, fps=args.fps, hands=hands,
                                 scale=args.scale)
            else:
                count = save_pngs(record, args.output, every=args.every, hands=hands, scale=args.scale)
    except (ValueError, OSError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    print(f"wrote {count} frames to {args.output}")


if __name__ == "__main__":
    main()
