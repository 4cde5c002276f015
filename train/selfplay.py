"""Self-play: the learner trains against a pool of its own past checkpoints mixed with scripted agents.

A snapshot of the learner joins the pool every ``snapshot_every`` env steps,
and also as soon as its win rate over the last ``promote_window`` training
games reaches ``promote_win_rate`` (it beats the current opponents by that
margin). The pool keeps the newest ``pool_size`` snapshots. Every change is
pushed to the environments (also in worker processes) as a new
``PoolOpponents`` sampler; the pool is saved in each checkpoint so a resumed
run continues with it.

Command: ``fifthave train train/configs/selfplay.json`` (method ``selfplay``: the ``ppo`` section and the
``selfplay`` section, ``fifthave.train.config.SelfPlayConfig``); ``fifthave.train.train`` uses this module,
never the reverse.
"""

import os
from collections import deque

from .checkpoint import save_checkpoint
from .opponents import PoolOpponents


class SelfPlayPool:
    def __init__(self, config, run_dir, paths=()):
        self.settings = config.selfplay
        self.config = config
        self.directory = os.path.join(run_dir, "pool")
        self.paths = list(paths)
        self.recent = deque(maxlen=self.settings.promote_window)  # 1 per won training game, else 0
        self.next_snapshot = None

    def sampler(self):
        s = self.settings
        return PoolOpponents(self.config.opponents, self.paths, s.scripted_fraction, s.deterministic_pool)

    def start(self, model):
        """Install the pool in the model's environments; schedule the next snapshot."""
        every = self.settings.snapshot_every
        self.next_snapshot = (model.num_timesteps // every + 1) * every if every else None
        model.get_env().env_method("set_opponents", self.sampler())

    def state(self):
        """What a resumed run needs (``fifthave.train.train`` run state), as JSON-compatible data."""
        return {"next_snapshot": self.next_snapshot, "recent": list(self.recent)}

    def restore(self, state, model):
        """Continue from ``state()`` (``start`` already installed the same pool in the games)."""
        self.next_snapshot = state["next_snapshot"]
        self.recent.extend(state["recent"])

    def record_game(self, won, info=None):
        self.recent.append(1 if won else 0)

    def log(self, logger):
        logger.record("selfplay/pool_size", len(self.paths))

    def recent_win_rate(self):
        return sum(self.recent) / len(self.recent) if self.recent else 0.0

    def maybe_snapshot(self, model):
        """Add a snapshot if it is due or earned; returns the reason ("schedule"/"promotion") or None."""
        s = self.settings
        reason = None
        if self.next_snapshot is not None and model.num_timesteps >= self.next_snapshot:
            reason = "schedule"
        elif len(self.recent) == self.recent.maxlen and self.recent_win_rate() >= s.promote_win_rate:
            reason = "promotion"
        if reason is None:
            return None
        path = os.path.join(self.directory, f"snapshot_{model.num_timesteps:010d}.zip")
        save_checkpoint(model, path, self.config, {"pool_reason": reason})
        self.paths = (self.paths + [path])[-s.pool_size:]
        self.recent.clear()
        self.start(model)
        return reason

