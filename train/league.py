"""A league of opponents sampled by prioritized fictitious self-play (PFSP, as in AlphaStar).

Entries: scripted anchors (names of ``fifthave.agents.registry.AGENT_FACTORIES``, e.g.
every HeuristicAgent bidding strategy and GreedyAgent) and snapshots of the
learner taken every ``snapshot_every`` env steps (the newest ``max_snapshots``
are kept; the newest stands for the current policy). Each training game draws
one entry, which plays every opponent seat, with probability proportional to

    weight(entry) = max(min_weight, (1 - p) ** pfsp_power)

where ``p`` is the learner's win rate against that entry over its last
``window`` games, shrunk toward ``prior_win_rate`` by ``prior_games`` virtual
games (so a new entry starts near that prior). Opponents the learner beats least
are played most; ``pfsp_power`` 0 samples uniformly. The weights are pushed to
the environments (also in worker processes) every ``reweight_every`` games and
at every snapshot; the mix (weights and win rates per entry) goes to TensorBoard
under ``league/``.

The training loop calls the same small hook as for ``SelfPlayPool``:
``start(model)``, ``record_game(won, info)``, ``maybe_snapshot(model)``,
``log(logger)`` and ``paths`` (the snapshots, saved in checkpoints). The
opponent of a finished game is read from ``info["opponents"]`` (the agent names
``FifthAvenueEnv`` reports at the end of a game).
"""

import os
from collections import deque

import numpy as np

from .checkpoint import save_checkpoint
from .opponents import SNAPSHOT_PREFIX, LeagueOpponents


def pfsp_weights(win_rates, power, min_weight):
    """``max(min_weight, (1 - p) ** power)`` for each win rate ``p``, normalised to sum to 1."""
    raw = np.maximum(min_weight, (1.0 - np.asarray(win_rates, dtype=np.float64)) ** power)
    return raw / raw.sum()


class League:
    def __init__(self, config, run_dir, paths=()):
        self.settings = config.league
        self.config = config
        self.directory = os.path.join(run_dir, "pool")
        self.anchors = list(self.settings.anchors)
        self.paths = list(paths)
        self.results = {}  # label -> deque of 1 (learner won) / 0
        self.games_since_push = 0
        self.next_snapshot = None
        self.pushed_weights = None  # the weights of the sampler the games draw from

    def labels(self):
        return self.anchors + [self.snapshot_label(path) for path in self.paths]

    @staticmethod
    def snapshot_label(path):
        return SNAPSHOT_PREFIX + os.path.splitext(os.path.basename(path))[0].rsplit("_", 1)[-1].lstrip("0")

    def win_rate(self, label):
        s = self.settings
        recent = self.results.get(label, ())
        if not recent and not s.prior_games:
            return s.prior_win_rate
        return (sum(recent) + s.prior_win_rate * s.prior_games) / (len(recent) + s.prior_games)

    def weights(self):
        s = self.settings
        return pfsp_weights([self.win_rate(label) for label in self.labels()], s.pfsp_power, s.min_weight)

    def sampler(self):
        return LeagueOpponents(self.labels(), self.anchors + self.paths, self.weights())

    def push(self, model, weights=None):
        self.games_since_push = 0
        self.pushed_weights = list(self.weights() if weights is None else weights)
        model.get_env().env_method("set_opponents",
                                   LeagueOpponents(self.labels(), self.anchors + self.paths, self.pushed_weights))

    def state(self):
        """What a resumed run needs (``fifthave.train.train`` run state), as JSON-compatible data."""
        return {"next_snapshot": self.next_snapshot, "games_since_push": self.games_since_push,
                "results": {label: list(window) for label, window in self.results.items()},
                "weights": [float(w) for w in self.pushed_weights]}

    def restore(self, state, model):
        """Continue from ``state()``: the same results, schedule and sampler weights."""
        self.results = {label: deque(window, maxlen=self.settings.window)
                        for label, window in state["results"].items()}
        self.next_snapshot = state["next_snapshot"]
        self.push(model, state["weights"])
        self.games_since_push = state["games_since_push"]

    def start(self, model):
        """Install the league in the model's environments; schedule the next snapshot."""
        every = self.settings.snapshot_every
        self.next_snapshot = (model.num_timesteps // every + 1) * every if every else None
        self.push(model)

    def record_game(self, won, info):
        label = info["opponents"][0]
        window = self.results.setdefault(label, deque(maxlen=self.settings.window))
        window.append(1 if won else 0)
        self.games_since_push += 1

    def maybe_snapshot(self, model):
        """Add a snapshot when due (returns "schedule"); re-push the weights every ``reweight_every`` games."""
        if self.next_snapshot is not None and model.num_timesteps >= self.next_snapshot:
            path = os.path.join(self.directory, f"snapshot_{model.num_timesteps:010d}.zip")
            save_checkpoint(model, path, self.config, {"pool_reason": "schedule"})
            self.paths = (self.paths + [path])[-self.settings.max_snapshots:]
            self.start(model)
            return "schedule"
        if self.games_since_push >= self.settings.reweight_every:
            self.push(model)
        return None

    def log(self, logger):
        for label, weight in zip(self.labels(), self.weights()):
            logger.record(f"league/weight/{label}", float(weight))
            logger.record(f"league/win_rate/{label}", self.win_rate(label))
