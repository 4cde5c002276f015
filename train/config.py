"""One dataclass describes a training run; JSON files in ``train/configs`` hold named runs.

Every field has a docstring (as in cleanrl's ``ppo.py``). ``load_config(path,
overrides)`` reads a JSON file (unknown keys are an error) and applies
command-line overrides; ``config.to_dict()`` is what checkpoints store. Configs
come from files, flags and checkpoints (untrusted input), so every field's type
and range is checked when a config is made (``fifthave_env.engine.checks``), with
an error naming the field, the value and what is allowed.
"""

import dataclasses
from dataclasses import dataclass, field

from fifthave.agents.agentfile import MAX_LAYERS, MAX_WIDTH
from fifthave.agents.registry import check_agent_names
from fifthave.agents.search import search_factory
from fifthave_env.engine import checks, safejson
from fifthave_env.env_common import game_config
from fifthave_env.observation import LAYOUTS

MAX_N_ENVS = 1024
"""Most training games at once: each is a game, its opponents and an observation buffer in memory
(``--n-envs 100000`` took 3 GB in 20 s before this bound); our configs use 8 to 32."""
MAX_ROLLOUT_STEPS = 2**20
"""Most ``n_envs * n_steps``: sb3 allocates the rollout buffer (observations, masks, values) up front."""


def _path(name, value, optional=False):
    if (value is None and optional) or (isinstance(value, str) and value):
        return value
    raise checks.InvalidTypeError(f"{name} must be {'None or ' if optional else ''}a non-empty path, "
                                  f"got {checks.shown(value)}")


@dataclass
class SelfPlayConfig:
    """The opponent pool of a self-play run: past checkpoints of the learner mixed with scripted agents."""

    snapshot_every: int = 100_000
    """Env steps between snapshots that join the pool regardless of results (0: never by schedule)."""
    promote_win_rate: float = 0.6
    """A snapshot also joins when the learner's win rate in its last ``promote_window`` training games
    (against the current opponents) reaches this; 1.0 disables promotion by results."""
    promote_window: int = 200
    """Training games the promotion win rate is measured over (and the fewest games between promotions)."""
    pool_size: int = 8
    """Most past policies kept in the pool; the oldest leaves first."""
    scripted_fraction: float = 0.3
    """Probability that an opponent seat is a scripted agent (from ``TrainConfig.opponents``) instead of
    a past policy drawn uniformly from the pool; with an empty pool every seat is scripted."""
    deterministic_pool: bool = False
    """Past policies play their most likely action instead of sampling."""

    def __post_init__(self):
        self.snapshot_every = checks.integer("selfplay.snapshot_every", self.snapshot_every, 0)
        self.promote_win_rate = checks.real("selfplay.promote_win_rate", self.promote_win_rate, 0.0, 1.0)
        self.promote_window = checks.integer("selfplay.promote_window", self.promote_window, 1)
        self.pool_size = checks.integer("selfplay.pool_size", self.pool_size, 1)
        self.scripted_fraction = checks.real("selfplay.scripted_fraction", self.scripted_fraction, 0.0, 1.0)
        self.deterministic_pool = checks.boolean("selfplay.deterministic_pool", self.deterministic_pool)


@dataclass
class LeagueConfig:
    """Opponents by prioritized fictitious self-play (``fifthave.train.league``): scripted anchors and past snapshots,
    one per training game, drawn with weight ``max(min_weight, (1 - p) ** pfsp_power)`` for the learner's
    win rate ``p`` against each."""

    anchors: list = field(default_factory=lambda: ["heuristic", "heuristic-aggressive", "heuristic-conservative",
                                                   "heuristic-hoarder", "greedy"])
    """Scripted entries (names of ``AGENT_FACTORIES``) that stay in the league for the whole run."""
    snapshot_every: int = 200_000
    """Env steps between snapshots of the learner that join the league (0: none)."""
    max_snapshots: int = 4
    """Most snapshots kept; the oldest leaves first."""
    pfsp_power: float = 2.0
    """Exponent of the PFSP weighting ``(1 - p) ** power``; 0 samples the entries uniformly."""
    min_weight: float = 0.02
    """Floor of an entry's weight before normalising, so every entry keeps being measured."""
    window: int = 300
    """Recent games per entry that its win rate is measured over."""
    prior_games: int = 20
    """Virtual games at ``prior_win_rate`` added to every entry's record (a new entry starts there)."""
    prior_win_rate: float = 0.25
    """Win rate assumed for an entry before its games come in (the fair share with 4 players)."""
    reweight_every: int = 100
    """Training games between updates of the sampling weights in the environments."""

    def __post_init__(self):
        check_agent_names("league anchors", self.anchors)
        self.snapshot_every = checks.integer("league.snapshot_every", self.snapshot_every, 0)
        self.max_snapshots = checks.integer("league.max_snapshots", self.max_snapshots, 1)
        self.pfsp_power = checks.real("league.pfsp_power", self.pfsp_power, 0.0)
        self.min_weight = checks.real("league.min_weight", self.min_weight, 0.0, 1.0)
        self.window = checks.integer("league.window", self.window, 1)
        self.prior_games = checks.integer("league.prior_games", self.prior_games, 0)
        self.prior_win_rate = checks.real("league.prior_win_rate", self.prior_win_rate, 0.0, 1.0)
        self.reweight_every = checks.integer("league.reweight_every", self.reweight_every, 1)


@dataclass
class BCConfig:
    """Behaviour cloning before PPO (``fifthave.train.bc``): the policy network PPO fine-tunes first imitates the
    teacher (masked cross-entropy) and its value head learns the games' outcomes."""

    teacher: str = "heuristic"
    """The agent imitated: a name of ``AGENT_FACTORIES``, or a search agent (``search:ROLLOUTS:DEPTH``,
    ``fifthave.agents.search``), which makes the clone an apprentice of the search (expert iteration)."""
    teacher_seats: str = "all"
    """``all``: teachers play every seat of the data games, all recorded; ``one``: the teacher plays one seat
    per game (the seat evaluation gives the learner), the config's ``opponents`` the others."""
    games: int = 300
    """Games recorded (with 4 players a seat makes about 90 decisions per game)."""
    held_out_games: int = 40
    """Further games whose decisions measure the agreement and are never trained on."""
    dagger_rounds: int = 1
    """DAgger rounds: the clone plays one seat, the teacher labels its positions, the fit is repeated."""
    dagger_games: int = 150
    """Clone games per DAgger round."""
    epochs: int = 4
    """Passes over the data per fit."""
    batch_size: int = 512
    """Minibatch size."""
    learning_rate: float = 1e-3
    """Adam step size."""
    value_weight: float = 0.5
    """Weight of the value head's squared error (targets: discounted end-of-game rewards) in the loss."""

    def __post_init__(self):
        if isinstance(self.teacher, str) and self.teacher.split(":")[0] == "search":
            search_factory(self.teacher)  # a malformed search name fails here, saying what is allowed
        else:
            check_agent_names("bc.teacher", [self.teacher])
        checks.choice("bc.teacher_seats", self.teacher_seats, ("all", "one"))
        for name in ("games", "held_out_games", "dagger_games", "epochs", "batch_size"):
            setattr(self, name, checks.integer(f"bc.{name}", getattr(self, name), 1))
        self.dagger_rounds = checks.integer("bc.dagger_rounds", self.dagger_rounds, 0)
        self.learning_rate = checks.real("bc.learning_rate", self.learning_rate, 0.0, low_included=False)
        self.value_weight = checks.real("bc.value_weight", self.value_weight, 0.0)


@dataclass
class TrainConfig:
    """A MaskablePPO run on ``FifthAvenue-v0`` or ``-v1``: game, opponents, PPO settings, evaluation, output."""

    seed: int = 0
    """Seeds the environments, the opponents, torch and the evaluation games."""
    num_players: int = 4
    """Seats in the game: 2, 3 or 4."""
    board: int = 5
    """Plots per district: 5, or 6 for the board's back side."""
    max_turns: int = 300
    """Turns before a game is truncated (R29)."""
    reward: str = "win_loss"
    """The learner's reward: ``win_loss``, ``win``, ``vp_margin`` or ``score_delta`` (see ``fifthave_env.gym_env``)."""
    learner_seat: int | None = None
    """The learner's seat; None draws it at random each game."""
    observation_version: int = 0
    """The observation layout the learner's network reads: 0 (``FifthAvenue-v0``) or 1 (``FifthAvenue-v1``:
    layout 0 plus the derived views, ``fifthave_env.observation.DERIVED_VIEWS``). Its policy agent asks
    tournaments and self-play for the same layout."""
    opponents: list = field(default_factory=lambda: ["random"])
    """Scripted opponents for training (names of ``fifthave.agents.registry.AGENT_FACTORIES``: ``random``,
    ``greedy``, ``heuristic``, ...): every opponent seat of every game is drawn uniformly from this list,
    so repeating a name weights it."""
    total_timesteps: int = 100_000
    """Learner decisions (env steps) to train for in total; sb3 rounds it up to whole rollouts
    (``n_envs * n_steps``), so choose a multiple to end exactly there. 0 with ``bc``: no PPO, the clone
    is evaluated and saved as step 0."""
    n_envs: int = 2
    """Environments stepped in parallel."""
    workers: int = 2
    """Worker processes that step the games (``fifthave.train.vec_env``), each owning a share of the ``n_envs`` games,
    while this process chooses the learner's actions; 0 steps them in this process."""
    local_shard: bool = False
    """With ``workers`` of at least 1: one more share of the games steps in this process, after it sent the
    workers their actions (``workers`` 1 and this: the two cores step games, and no third process competes)."""
    torch_threads: int = 1
    """Most torch threads for the PPO update (the games wait meanwhile): each update runs with 1 or this many,
    whichever ran faster lately (2 pays on an idle 2-core machine; on a shared one, threads that wait for each
    other are several times slower). The weights do not depend on it. The rollout's forward passes use one."""
    n_steps: int = 1024
    """Steps per environment per PPO rollout."""
    batch_size: int = 256
    """Minibatch size of the PPO update."""
    n_epochs: int = 4
    """Passes over each rollout."""
    learning_rate: float = 3e-4
    """Adam step size."""
    gamma: float = 0.995
    """Discount; games last about 120-150 learner decisions and the reward comes at the end. Below 1, a
    policy that expects to lose gains by making games longer (one default-config seed learned to lay
    every card in its bids one by one and build nothing; README, "Two commands")."""
    gae_lambda: float = 0.95
    """GAE parameter."""
    clip_range: float = 0.2
    """PPO clipping of the probability ratio."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value-loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    net_arch: list = field(default_factory=lambda: [256, 256])
    """Hidden layer sizes of the policy and value networks (separate networks of this shape)."""
    eval_every: int = 50_000
    """Env steps between evaluations (0: only at the end)."""
    eval_games: int = 100
    """Evaluation games against each opponent in ``eval_opponents``."""
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """Scripted agents the learner is evaluated against; every other seat plays that agent."""
    eval_deterministic: bool = False
    """The learner plays its most likely action in evaluation instead of sampling."""
    checkpoint_every: int = 50_000
    """Env steps between checkpoints (one is always written at the end)."""
    run_dir: str = "runs/default"
    """Where checkpoints, TensorBoard logs, ``config.json`` and ``eval.csv`` go."""
    init_from: str | None = None
    """A checkpoint whose policy (and optimizer state) starts this run instead of a random initialisation
    (fine-tuning, or self-play from a trained agent); its network shape must match ``net_arch``."""
    advisers: list = field(default_factory=list)
    """Scripted agents (names of ``AGENT_FACTORIES``) whose choices for the learner's seat are appended to
    its observation as one-hot blocks (``fifthave.train.hints``); empty: the bare observation."""
    advice_prior: float = 5.0
    """With ``advisers``: the logits by which the untrained policy prefers the first adviser's choice (a skip
    connection from the advice to the actor's output, ``fifthave.train.hints.AdvisedPolicy``)."""
    selfplay: SelfPlayConfig | None = None
    """Self-play settings; None trains against the scripted ``opponents`` only."""
    bc: BCConfig | None = None
    """Behaviour cloning that makes the starting policy of a new run (``fifthave.train.bc``); None: no cloning."""
    league: LeagueConfig | None = None
    """League settings (PFSP over scripted anchors and snapshots); replaces ``opponents`` and ``selfplay``."""

    def __post_init__(self):
        for key, section in _SECTIONS.items():
            value = getattr(self, key)
            if isinstance(value, dict):
                unknown = set(value) - _field_names(section)
                if unknown:
                    raise ValueError(f"unknown {key} keys {sorted(unknown)}; allowed: {sorted(_field_names(section))}")
                setattr(self, key, section(**value))
            elif value is not None and not isinstance(value, section):
                raise checks.InvalidTypeError(f"{key} must be None or an object of {section.__name__}'s fields, "
                                              f"got {checks.shown(value)}")
        if self.bc is not None and self.init_from is not None:
            raise ValueError("choose either bc (clone a starting policy) or init_from, not both")
        if self.league is not None and self.selfplay is not None:
            raise ValueError("choose either selfplay or league, not both")
        self.seed = checks.integer("seed", self.seed, 0, checks.MAX_SEED)
        game = game_config(self.reward, None, num_players=self.num_players, board=self.board, max_turns=self.max_turns)
        self.num_players, self.board, self.max_turns = game.num_players, game.board, game.max_turns
        self.observation_version = checks.choice("observation_version", self.observation_version,
                                                 tuple(sorted(LAYOUTS)))
        if self.learner_seat is not None:
            self.learner_seat = checks.integer("learner_seat (None draws it each game)", self.learner_seat, 0,
                                               self.num_players - 1)
        check_agent_names("advisers", self.advisers, allow_empty=True)
        check_agent_names("opponents", self.opponents)
        check_agent_names("eval_opponents", self.eval_opponents)
        self.total_timesteps = checks.integer("total_timesteps (0 only with bc: the clone alone)",
                                              self.total_timesteps, 0 if self.bc is not None else 1)
        self.n_envs = checks.integer("n_envs", self.n_envs, 1, MAX_N_ENVS)
        self.workers = checks.integer("workers", self.workers, 0)
        self.local_shard = checks.boolean("local_shard", self.local_shard)
        self.torch_threads = checks.integer("torch_threads", self.torch_threads, 1)
        self.n_steps = checks.integer("n_steps", self.n_steps, 1)
        if self.n_envs * self.n_steps > MAX_ROLLOUT_STEPS:  # sb3 allocates the rollout buffer at once
            raise checks.InvalidValueError(
                f"n_envs * n_steps (the rollout buffer, about 5 KB per step) must be at most {MAX_ROLLOUT_STEPS}, "
                f"got {self.n_envs} * {self.n_steps} = {self.n_envs * self.n_steps}")
        self.batch_size = checks.integer("batch_size", self.batch_size, 2)  # sb3 normalises advantages per batch
        if (self.n_envs * self.n_steps) % self.batch_size:
            raise ValueError(f"batch_size ({self.batch_size}) must divide n_envs*n_steps "
                             f"({self.n_envs * self.n_steps})")
        self.n_epochs = checks.integer("n_epochs", self.n_epochs, 1)
        self.learning_rate = checks.real("learning_rate", self.learning_rate, 0.0, low_included=False)
        self.gamma = checks.real("gamma", self.gamma, 0.0, 1.0)
        self.gae_lambda = checks.real("gae_lambda", self.gae_lambda, 0.0, 1.0)
        self.clip_range = checks.real("clip_range", self.clip_range, 0.0, low_included=False)
        self.ent_coef = checks.real("ent_coef", self.ent_coef, 0.0)
        self.vf_coef = checks.real("vf_coef", self.vf_coef, 0.0)
        self.max_grad_norm = checks.real("max_grad_norm", self.max_grad_norm, 0.0, low_included=False)
        net_arch = checks.sequence("net_arch", self.net_arch)
        if len(net_arch) > MAX_LAYERS:  # checked before any network is built from a (checkpoint's) config
            raise checks.InvalidValueError(f"net_arch must list at most {MAX_LAYERS} layer widths, got {len(net_arch)}")
        self.net_arch = [checks.integer(f"net_arch[{i}]", size, 1, MAX_WIDTH) for i, size in enumerate(net_arch)]
        self.eval_every = checks.integer("eval_every", self.eval_every, 0)
        self.eval_games = checks.integer("eval_games", self.eval_games, 1)
        self.eval_deterministic = checks.boolean("eval_deterministic", self.eval_deterministic)
        self.checkpoint_every = checks.integer("checkpoint_every", self.checkpoint_every, 0)
        self.run_dir = _path("run_dir", self.run_dir)
        self.init_from = _path("init_from", self.init_from, optional=True)
        self.advice_prior = checks.real("advice_prior", self.advice_prior)

    def to_dict(self):
        return dataclasses.asdict(self)

    def env_kwargs(self):
        """Keyword arguments of ``FifthAvenueEnv`` (opponents excluded)."""
        return dict(num_players=self.num_players, board=self.board, max_turns=self.max_turns,
                    reward=self.reward, learner_seat=self.learner_seat, observation_version=self.observation_version)


def _field_names(cls):
    return {f.name for f in dataclasses.fields(cls)}


_SECTIONS = {"selfplay": SelfPlayConfig, "bc": BCConfig, "league": LeagueConfig}


def config_from_dict(data):
    """The ``TrainConfig`` of ``data`` (a dict of its fields); ``ValueError`` naming what is wrong."""
    checks.mapping("a config", data)
    # Checkpoints written before ``workers`` hold ``subproc`` (where the games ran, not what they were).
    data = {k: v for k, v in data.items() if k != "subproc"}
    unknown = set(data) - _field_names(TrainConfig)
    if unknown:
        raise ValueError(f"unknown config keys {sorted(unknown)}; allowed: {sorted(_field_names(TrainConfig))}")
    return TrainConfig(**data)


def load_config(path=None, overrides=None):
    """The config in a JSON file (or the defaults), with ``overrides`` (a dict) applied. ``ValueError`` for a file
    that does not hold a valid config, ``OSError`` for one that does not read."""
    data = {}
    if path is not None:
        data = safejson.load(path, f"the config file {path}")
        checks.mapping(f"the config in {path}", data)
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return config_from_dict(data)
