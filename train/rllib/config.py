"""The ``fifthave.train.rllib`` run as one dataclass, a docstring per field (as ``fifthave.train.config.TrainConfig``).

``load_rllib_config(path, overrides, base=None)`` reads a JSON file (unknown keys are an
error) and applies command-line overrides; ``config.to_dict()`` is what every
checkpoint's ``meta.json`` stores.
"""

import dataclasses
from dataclasses import dataclass, field

from fifthave.agents.registry import check_agent_names
from fifthave_env.engine import checks, safejson
from fifthave_env.env_common import game_config

MAX_WIDTH = 4096  # units per hidden layer: a config must not allocate gigabytes (issue 40)
MAX_LAYERS = 8
MAX_ENVS_PER_RUNNER = 1024


@dataclass
class RLlibConfig:
    """PPO (RLlib, new API stack) with one policy shared by all seats, trained by self-play."""

    seed: int = 0
    """Seeds RLlib (env runners, module initialisation) and the evaluation tournaments."""
    num_players: int = 4
    """Seats in the game: 2, 3 or 4."""
    board: int = 5
    """Plots per district: 5, or 6 for the board's back side."""
    max_turns: int = 300
    """Turns before a game is truncated (R29)."""
    reward: str = "win"
    """Reward of every seat: ``win`` (+1 to each winner, 0 to the others), ``win_loss`` (-1 to the others),
    ``vp_margin`` or ``score_delta`` (see ``fifth_avenue_v0``). With ``win_loss`` and a discount per decision a
    loss counts less the more decisions precede it: 3 of 24 runs of the README's quick command drifted into ever
    longer games of huge bids and lost to random players; with ``win`` a loss is 0 whenever it comes, and none of
    16 did (results/rllib/README.md)."""
    observation_version: int = 0
    """The observation layout the shared policy reads: 0 (``fifth_avenue_v0``, 1176 values) or 1
    (``fifth_avenue_v1``, with the derived views); its ``rllib:`` agent asks tournaments for the same."""
    reward_scale: float = 1.0
    """Factor on every reward the RLlib seats get. ``vp_margin`` is in VP (tens); 0.02 brings returns near
    +-1, where RLlib's value-loss clipping (``vf_clip_param`` 10) and global gradient clipping do not mute
    the value function or let it drown the policy's gradient."""
    opponents: list = field(default_factory=lambda: ["random"])
    """Scripted agents (names of ``fifthave.agents.registry.AGENT_FACTORIES``) that may take opponent seats in
    training; repeat a name to weight it. Every self-play run here with greedy or heuristic opponents in the mix
    peaked early and then collapsed against random players (results/rllib/README.md)."""
    scripted_fraction: float = 0.75
    """Probability that an opponent seat is played by a scripted agent inside the env; the other opponent
    seats are RLlib seats: the shared policy itself or a frozen snapshot from the pool."""
    pool_fraction: float = 0.5
    """Probability that an RLlib opponent seat plays a frozen snapshot (uniform over the pool) instead of
    the shared policy; the ``learner`` seat always plays the shared policy. 0 with an empty pool."""
    pool_size: int = 5
    """Most frozen snapshots kept; the oldest leaves first."""
    snapshot_every: int = 5
    """Training iterations between snapshots that join the pool (0: never by schedule)."""
    promote_win_rate: float = 0.7
    """A snapshot also joins when the learner seat's win rate over its last 100 training games reaches this
    (a shared win counts 1/k; at least ``snapshot_every // 2`` iterations apart); above 1 disables it."""
    total_env_steps: int = 200_000
    """Env steps (decisions of RLlib-played seats) to sample in total; training stops at the first
    iteration that reaches it."""
    max_seconds: float = 0.0
    """Wall-clock budget of the training loop in seconds (0: none); training stops at the first iteration
    past it, whichever of this and ``total_env_steps`` comes first."""
    num_env_runners: int = 1
    """Ray actors that sample games (each one CPU); 0 samples in the driver process."""
    num_envs_per_env_runner: int = 4
    """Games each env runner steps at once (one batched forward pass for all of them): 4 sampled 1.6-1.7x faster
    than 1 on 2 cores and learned as well per env step (3 seeds each, results/rllib/README.md)."""
    train_batch_size: int = 4000
    """Env steps per training iteration (PPO rollout size)."""
    minibatch_size: int = 500
    """Minibatch size of the PPO update."""
    num_epochs: int = 4
    """Passes over each training batch."""
    lr: float = 3e-4
    """Adam step size."""
    gamma: float = 0.995
    """Discount; a seat makes about 120-200 decisions per game and the reward comes at the end."""
    lambda_: float = 0.95
    """GAE parameter."""
    clip_param: float = 0.2
    """PPO clipping of the probability ratio."""
    entropy_coeff: float = 0.01
    """Entropy bonus."""
    vf_loss_coeff: float = 0.5
    """Value-loss weight."""
    grad_clip: float = 0.5
    """Gradient norm clipping."""
    vf_clip_param: float = 10.0
    """RLlib clips the value loss at this (squared error units): keep it well above the squared return scale
    (``win`` returns lie in [0, 1], ``win_loss`` ones in [-1, 1]; raw ``vp_margin`` in tens of VP needs a larger one
    or ``reward_scale``)."""
    use_kl_loss: bool = False
    """RLlib's adaptive KL penalty on top of PPO clipping (``kl_coeff`` 0.2, target 0.01); SB3's PPO has none,
    and the runs that learned (results/rllib/README.md) had none."""
    batch_mode: str = "truncate_episodes"
    """``truncate_episodes``: env runners return fixed-size fragments (RLlib's default; a game cut off bootstraps
    from the value). ``complete_episodes``: whole games only. RLlib 2.60 resets its envs with the runner's seed
    before every complete-episodes sample (the same games each time), so in that mode the env runners get no seed:
    games differ each sample and ``seed`` fixes only the initial weights."""
    hidden: list = field(default_factory=lambda: [256, 256])
    """Hidden layer sizes of the policy and value networks (separate networks of this shape)."""
    activation: str = "tanh"
    """Hidden activation: ``tanh`` or ``relu``."""
    checkpoint_every: int = 25
    """Training iterations between checkpoints, each evaluated (one is always written at the end)."""
    eval_games: int = 200
    """Evaluation games against each of ``eval_opponents`` per checkpoint (a multiple of ``num_players``;
    0: no evaluation)."""
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """Scripted agents the learner is evaluated against; every other seat plays that agent."""
    eval_deterministic: bool = True
    """The learner plays its most likely legal action in evaluation instead of sampling."""
    run_dir: str = "runs/rllib"
    """Where ``config.json``, ``eval.csv``, ``cluster.txt`` and ``checkpoints/iter_NNNNNN`` go."""

    def __post_init__(self):
        # every field checked for its type and range (a config is untrusted input: a file, flags, a checkpoint)
        self.seed = checks.integer("seed", self.seed, 0, checks.MAX_SEED)
        game = game_config(self.reward, None, num_players=self.num_players, board=self.board,
                           max_turns=self.max_turns)
        self.num_players, self.board, self.max_turns = game.num_players, game.board, game.max_turns
        self.observation_version = checks.choice("observation_version", self.observation_version, (0, 1))
        self.reward_scale = checks.real("reward_scale", self.reward_scale, 0.0, low_included=False)
        check_agent_names("opponents", self.opponents)
        check_agent_names("eval_opponents", self.eval_opponents)
        for name in ("scripted_fraction", "pool_fraction"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0, 1.0))
        self.pool_size = checks.integer("pool_size", self.pool_size, 1)
        self.snapshot_every = checks.integer("snapshot_every", self.snapshot_every, 0)
        self.promote_win_rate = checks.real("promote_win_rate", self.promote_win_rate, 0.0)
        self.total_env_steps = checks.integer("total_env_steps", self.total_env_steps, 1)
        self.max_seconds = checks.real("max_seconds (0: no limit)", self.max_seconds, 0.0)
        self.num_env_runners = checks.integer("num_env_runners", self.num_env_runners, 0)
        self.num_envs_per_env_runner = checks.integer("num_envs_per_env_runner", self.num_envs_per_env_runner, 1,
                                                      MAX_ENVS_PER_RUNNER)
        self.train_batch_size = checks.integer("train_batch_size", self.train_batch_size, 1)
        self.minibatch_size = checks.integer("minibatch_size", self.minibatch_size, 1)
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(f"minibatch_size ({self.minibatch_size}) must not exceed train_batch_size "
                             f"({self.train_batch_size})")
        self.num_epochs = checks.integer("num_epochs", self.num_epochs, 1)
        for name in ("lr", "clip_param", "grad_clip", "vf_clip_param"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0, low_included=False))
        for name in ("gamma", "lambda_"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0, 1.0))
        for name in ("entropy_coeff", "vf_loss_coeff"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0))
        self.use_kl_loss = checks.boolean("use_kl_loss", self.use_kl_loss)
        self.batch_mode = checks.choice("batch_mode", self.batch_mode, ("truncate_episodes", "complete_episodes"))
        self.hidden = [checks.integer(f"hidden[{i}]", width, 1, MAX_WIDTH)
                       for i, width in enumerate(checks.sequence("hidden", self.hidden))]
        if len(self.hidden) > MAX_LAYERS:
            raise checks.InvalidValueError(f"hidden must list at most {MAX_LAYERS} layer sizes, got {len(self.hidden)}")
        self.activation = checks.choice("activation", self.activation, ("tanh", "relu"))
        self.checkpoint_every = checks.integer("checkpoint_every", self.checkpoint_every, 0)
        self.eval_games = checks.integer("eval_games", self.eval_games, 0)
        if self.eval_games % self.num_players:
            raise ValueError(f"eval_games must be a multiple of num_players ({self.num_players}), "
                             f"got {self.eval_games}")
        self.eval_deterministic = checks.boolean("eval_deterministic", self.eval_deterministic)
        if not (isinstance(self.run_dir, str) and self.run_dir):
            raise checks.InvalidTypeError(f"run_dir must be a non-empty path, got {checks.shown(self.run_dir)}")

    def to_dict(self):
        return dataclasses.asdict(self)

    def env_config(self):
        """RLlib's ``env_config`` for ``fifthave.train.rllib.env.FifthAvenueMultiAgentEnv`` in training."""
        return dict(num_players=self.num_players, board=self.board, max_turns=self.max_turns, reward=self.reward,
                    observation_version=self.observation_version, reward_scale=self.reward_scale,
                    opponents=list(self.opponents),
                    scripted_fraction=self.scripted_fraction)


def load_rllib_config(path=None, overrides=None, *, base=None):
    """The config in a JSON file (or ``base``, a dict such as a checkpoint's stored config, or the defaults),
    with ``overrides`` (a dict; None values ignored) applied."""
    data = dict(base or {})
    if path is not None:
        data = safejson.load(path, f"the config file {path}")
        checks.mapping(f"the config in {path} (a JSON object of RLlibConfig fields)", data)
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    allowed = {f.name for f in dataclasses.fields(RLlibConfig)}
    unknown = set(data) - allowed
    if unknown:
        raise ValueError(f"unknown config keys {sorted(unknown)}; allowed: {sorted(allowed)}")
    return RLlibConfig(**data)
