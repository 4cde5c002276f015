"""The flat config of an RLlib run (method ``rllib`` of ``fifthave.train.config``'s schema).

``load_rllib_config(path, overrides, base=None)`` reads a JSON file (unknown keys are an
error) and applies command-line overrides; ``config.to_dict()`` is what every
checkpoint's ``meta.json`` stores.
"""

import dataclasses
from dataclasses import dataclass, field

from fifthave.agents.registry import check_agent_names
from fifthave_env.engine import checks, safejson
from fifthave_env.env_common import game_config
from fifthave_env.observation import LATEST, LAYOUTS

MAX_WIDTH = 4096  # units per hidden layer: a config must not allocate gigabytes (issue 40)
MAX_LAYERS = 8
MAX_ENVS_PER_RUNNER = 1024


@dataclass
class RLlibConfig:
    """The flat form of an RLlib run (method ``rllib``): what ``fifthave.train.rllib.train`` reads and every
    checkpoint's ``meta.json`` stores (``to_dict``). Each field is documented where users set it
    (``fifthave.train.config``): ``GameSection``, ``EvaluationSection`` (``eval_``), ``RunSection`` (``steps`` is
    ``total_env_steps``, ``workers`` is ``num_env_runners``) and ``RLlibSection``."""

    seed: int = 0
    num_players: int = 4
    board: int = 5
    max_turns: int = 300
    reward: str = "win"
    observation_layout: int = LATEST
    reward_scale: float = 1.0
    opponents: list = field(default_factory=lambda: ["random"])
    scripted_fraction: float = 0.75
    pool_fraction: float = 0.5
    pool_size: int = 5
    snapshot_every: int = 5
    promote_win_rate: float = 0.7
    total_env_steps: int = 200_000
    max_seconds: float = 0.0
    num_env_runners: int = 1
    num_envs_per_env_runner: int = 4
    train_batch_size: int = 4000
    minibatch_size: int = 500
    num_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.995
    lambda_: float = 0.95
    clip_param: float = 0.2
    entropy_coeff: float = 0.01
    vf_loss_coeff: float = 0.5
    grad_clip: float = 0.5
    vf_clip_param: float = 10.0
    use_kl_loss: bool = False
    batch_mode: str = "truncate_episodes"
    net_arch: list = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    checkpoint_every: int = 25
    eval_games: int = 200
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    eval_deterministic: bool = True
    eval_seed: int | None = None
    run_dir: str = "runs/rllib"
    """Where ``config.json``, ``eval.csv``, ``cluster.txt`` and ``checkpoints/iter_NNNNNN`` go."""

    def __post_init__(self):
        # every field checked for its type and range (a config is untrusted input: a file, flags, a checkpoint)
        self.seed = checks.integer("seed", self.seed, 0, checks.MAX_SEED)
        game = game_config(self.reward, None, num_players=self.num_players, board=self.board,
                           max_turns=self.max_turns)
        self.num_players, self.board, self.max_turns = game.num_players, game.board, game.max_turns
        self.observation_layout = checks.choice("observation_layout", self.observation_layout, tuple(sorted(LAYOUTS)))
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
        for name in ("learning_rate", "clip_param", "grad_clip", "vf_clip_param"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0, low_included=False))
        for name in ("gamma", "lambda_"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0, 1.0))
        for name in ("entropy_coeff", "vf_loss_coeff"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0))
        self.use_kl_loss = checks.boolean("use_kl_loss", self.use_kl_loss)
        self.batch_mode = checks.choice("batch_mode", self.batch_mode, ("truncate_episodes", "complete_episodes"))
        self.net_arch = [checks.integer(f"net_arch[{i}]", width, 1, MAX_WIDTH)
                         for i, width in enumerate(checks.sequence("net_arch", self.net_arch))]
        if len(self.net_arch) > MAX_LAYERS:
            raise checks.InvalidValueError(f"net_arch must list at most {MAX_LAYERS} layer sizes, "
                                           f"got {len(self.net_arch)}")
        self.activation = checks.choice("activation", self.activation, ("tanh", "relu"))
        self.checkpoint_every = checks.integer("checkpoint_every", self.checkpoint_every, 0)
        self.eval_games = checks.integer("eval_games", self.eval_games, 0)
        if self.eval_games % self.num_players:
            raise ValueError(f"eval_games must be a multiple of num_players ({self.num_players}), "
                             f"got {self.eval_games}")
        self.eval_deterministic = checks.boolean("eval_deterministic", self.eval_deterministic)
        if self.eval_seed is not None:
            self.eval_seed = checks.integer("eval_seed", self.eval_seed, 0, checks.MAX_SEED)
        if not (isinstance(self.run_dir, str) and self.run_dir):
            raise checks.InvalidTypeError(f"run_dir must be a non-empty path, got {checks.shown(self.run_dir)}")

    def to_dict(self):
        return dataclasses.asdict(self)

    def env_config(self):
        """RLlib's ``env_config`` for ``fifthave.train.rllib.env.FifthAvenueMultiAgentEnv`` in training."""
        return dict(num_players=self.num_players, board=self.board, max_turns=self.max_turns, reward=self.reward,
                    observation_layout=self.observation_layout, reward_scale=self.reward_scale,
                    opponents=list(self.opponents),
                    scripted_fraction=self.scripted_fraction)


def load_rllib_config(path=None, overrides=None, *, base=None):
    """The config in a JSON file (or ``base``, a dict such as a checkpoint's stored config, or the defaults),
    with ``overrides`` (a dict; None values ignored) applied."""
    from ..config import legacy_flat, run_config_from_dict

    data = dict(base or {})
    if base is not None:  # a checkpoint's stored config, maybe with old names
        data = dict(legacy_flat(data)[1], run_dir=base.get("run_dir", RLlibConfig.run_dir))
    if path is not None:
        data = safejson.load(path, f"the config file {path}")
        checks.mapping(f"the config in {path} (a run config of method rllib)", data)
        if "method" in data:
            data = run_config_from_dict(data).trainer_config(RLlibConfig.run_dir).to_dict()
        else:
            data = dict(legacy_flat(data)[1], run_dir=data.get("run_dir", RLlibConfig.run_dir))
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    allowed = {f.name for f in dataclasses.fields(RLlibConfig)}
    unknown = set(data) - allowed
    if unknown:
        raise ValueError(f"unknown config keys {sorted(unknown)}; allowed: {sorted(allowed)}")
    return RLlibConfig(**data)
