"""One schema for every training run: shared sections, a method, and the method's own section.

A run config (a JSON file in ``train/configs``; ``fifthave.train.run`` runs it) reads::

    {"method": "selfplay",
     "game": {"num_players": 4, "observation_layout": 1},
     "evaluation": {"games": 200, "every": 200000, "opponents": ["random", "heuristic"]},
     "run": {"seed": 0, "steps": 2000000, "checkpoint_every": 100000},
     "ppo": {"n_envs": 8, "learning_rate": 0.0003},
     "selfplay": {"snapshot_every": 100000}}

- ``game`` (``GameSection``), ``evaluation`` (``EvaluationSection``) and ``run`` (``RunSection``) mean the
  same in every method; a field a method has no use for must be left unset (an error says so).
- ``method`` chooses the trainer and the sections it reads (``METHOD_SECTIONS``): ``ppo`` (MaskablePPO
  against scripted opponents, ``ppo`` and optionally ``league``), ``selfplay`` (``ppo`` + ``selfplay``),
  ``bc`` (behaviour cloning, then PPO for ``run.steps``: ``bc`` + ``ppo`` + optionally ``league``),
  ``candidate_values`` (``candidate_values``), ``rllib`` (``rllib``) and ``generations``
  (``fifthave.train.generations``, when installed).

Every field has a docstring (as in cleanrl's ``ppo.py``); one name per concept in every section
(``observation_layout``, ``learning_rate``, ``net_arch``). ``None`` in a shared field means the method's
default (the trainer's, ``TrainConfig`` / ``RLlibConfig`` / ``CandidateValueConfig``). Each method's
trainer reads a flat config built from the sections (``RunConfig.trainer_config``), whose checks
(``fifthave_env.engine.checks``) are the one validation path: an error names the section and field, the
value and what is allowed. Unknown keys are an error that lists the allowed ones.

Old configs (flat, before this schema: ``observation_version``, RLlib's ``lr`` / ``hidden``, ``run_dir``)
and the configs stored in old checkpoints still load: ``translate_legacy`` maps them to this schema, with
the defaults they were written under (layout 0 where a file names none), and ``load_run_config`` prints a
one-line notice that the file uses old names.
"""

import dataclasses
import sys
from dataclasses import dataclass, field

from fifthave.agents.agentfile import (MAX_LAYERS, MAX_WIDTH, check_advice, check_bid_destinations, check_destinations,
                                       check_value_groups)
from fifthave.agents.registry import AGENT_FACTORIES, check_agent_names
from fifthave.agents.search import search_factory
from fifthave_env.engine import checks, safejson
from fifthave_env.env_common import game_config
from fifthave_env.observation import LATEST, LAYOUTS

MAX_N_ENVS = 1024
"""Most training games at once: each is a game, its opponents and an observation buffer in memory
(``--n-envs 100000`` took 3 GB in 20 s before this bound); our configs use 8 to 32."""
MAX_ENVS_PER_RUNNER = 1024
"""Most games an RLlib env runner steps at once."""
MAX_ROLLOUT_STEPS = 2**20
"""Most ``n_envs * n_steps``: sb3 allocates the rollout buffer (observations, masks, values) up front."""
DEFAULT_LAYOUT = LATEST
"""The observation layout of new runs (``fifthave_env.observation.LAYOUTS``; 1 adds the derived views)."""
OLD_DEFAULT_LAYOUT = 0
"""The layout a flat config or checkpoint written before ``observation_layout`` existed means when it names none."""


def _path(name, value, optional=False):
    if (value is None and optional) or (isinstance(value, str) and value):
        return value
    raise checks.InvalidTypeError(f"{name} must be {'None or ' if optional else ''}a non-empty path, "
                                  f"got {checks.shown(value)}")


def _layout(name, value):
    return checks.choice(name, value, tuple(sorted(LAYOUTS)))


def _net_arch(name, value):
    sizes = checks.sequence(name, value)
    if len(sizes) > MAX_LAYERS:  # checked before any network is built from a (checkpoint's) config
        raise checks.InvalidValueError(f"{name} must list at most {MAX_LAYERS} layer widths, got {len(sizes)}")
    return [checks.integer(f"{name}[{i}]", size, 1, MAX_WIDTH) for i, size in enumerate(sizes)]


# ---------------------------------------------------------------------------------------------------------
# The shared sections


@dataclass
class GameSection:
    """The game every training game is: the same rules for every method."""

    num_players: int = 4
    """Seats in the game: 2, 3 or 4."""
    board: int = 5
    """Plots per district: 5, or 6 for the board's back side."""
    max_turns: int = 300
    """Turns before a game is truncated (R29)."""
    reward: str | None = None
    """The learner's reward: ``win_loss``, ``win``, ``vp_margin`` or ``score_delta`` (see
    ``fifthave_env.gym_env``); None: the method's default (``win_loss`` for PPO, ``win`` for RLlib, where with
    ``win_loss`` and a discount per decision 3 of 24 runs drifted into ever longer games, results/rllib/README.md)."""
    observation_layout: int = DEFAULT_LAYOUT
    """The observation layout the learner's network reads: 1 (``FifthAvenue-v1``: layout 0 plus the derived views,
    ``fifthave_env.observation.DERIVED_VIEWS``) or 0 (``FifthAvenue-v0``). Its agent asks tournaments for the same."""
    learner_seat: int | None = None
    """The learner's seat (PPO methods); None draws it at random each game."""


@dataclass
class EvaluationSection:
    """How the learner is measured while it trains: seat-rotated games against fixed opponent fields."""

    games: int | None = None
    """Evaluation games against each opponent in ``opponents`` (RLlib and candidate values: a multiple of
    ``game.num_players``); None: the method's default (100 PPO, 200 RLlib, 1000 candidate values)."""
    every: int | None = None
    """Env steps between evaluations (PPO methods; 0: only at the end); None: 50,000. RLlib evaluates every
    checkpoint (``run.checkpoint_every``)."""
    opponents: list | None = None
    """Scripted agents the learner is evaluated against, every other seat playing that agent; None: ``random``
    and ``heuristic``."""
    deterministic: bool = True
    """The learner plays its most likely legal action in evaluation instead of sampling."""
    seed: int | None = None
    """Seed of the evaluation deals (the same deals at every evaluation point); None: derived from ``run.seed``."""


@dataclass
class RunSection:
    """Seed, processes, budget and checkpoint cadence of the run; where it is written is the command's ``--out``."""

    seed: int = 0
    """Seeds the games, the opponents, the networks and (unless ``evaluation.seed``) the evaluation."""
    workers: int | None = None
    """Processes that play the training games (PPO's ``fifthave.train.vec_env`` workers, RLlib's env runners,
    the labelling games and the ensemble's fits of candidate values); 0 plays them in this process. None: the
    method's default (2; one RLlib env runner). The weights do not depend on it."""
    steps: int | None = None
    """Env steps (learner decisions) to train for; None: the method's default (100,000 PPO, 200,000 RLlib). 0
    with ``bc``: the clone alone."""
    checkpoint_every: int | None = None
    """Env steps (PPO methods; None: 50,000) or training iterations (RLlib; None: 25) between checkpoints;
    one is always written at the end."""


# ---------------------------------------------------------------------------------------------------------
# The methods' own sections


@dataclass
class PPOSection:
    """MaskablePPO (sb3-contrib) on ``FifthAvenue-v0``/``-v1``: opponents, network and update settings."""

    opponents: list = field(default_factory=lambda: ["random"])
    """Scripted opponents for training (names of ``fifthave.agents.registry.AGENT_FACTORIES``: ``random``,
    ``greedy``, ``heuristic``, ...): every opponent seat of every game is drawn uniformly from this list,
    so repeating a name weights it."""
    n_envs: int = 2
    """Environments stepped in parallel."""
    local_shard: bool = False
    """With ``run.workers`` of at least 1: one more share of the games steps in this process, after it sent the
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
    every card in its bids one by one and build nothing)."""
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
    init_from: str | None = None
    """A checkpoint whose policy (and optimizer state) starts this run instead of a random initialisation
    (fine-tuning, or self-play from a trained agent); its network shape must match ``net_arch``."""
    advisers: list = field(default_factory=list)
    """Scripted agents (names of ``AGENT_FACTORIES``) whose choices for the learner's seat are appended to
    its observation as one-hot blocks (``fifthave.train.hints``); empty: the bare observation."""
    advice_prior: float = 5.0
    """With ``advisers``: the logits by which the untrained policy prefers the first adviser's choice (a skip
    connection from the advice to the actor's output, ``fifthave.train.hints.AdvisedPolicy``)."""


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
class RLlibSection:
    """PPO (RLlib, new API stack) with one policy shared by all seats, trained by self-play with a snapshot pool."""

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
    max_seconds: float = 0.0
    """Wall-clock budget of the training loop in seconds (0: none); training stops at the first iteration
    past it, whichever of this and ``total_env_steps`` comes first."""
    num_envs_per_env_runner: int = 4
    """Games each env runner steps at once (one batched forward pass for all of them): 4 sampled 1.6-1.7x faster
    than 1 on 2 cores and learned as well per env step (3 seeds each, results/rllib/README.md)."""
    train_batch_size: int = 4000
    """Env steps per training iteration (PPO rollout size)."""
    batch_size: int = 500
    """Minibatch size of the PPO update (RLlib's ``minibatch_size``)."""
    n_epochs: int = 4
    """Passes over each training batch (RLlib's ``num_epochs``)."""
    learning_rate: float = 3e-4
    """Adam step size."""
    gamma: float = 0.995
    """Discount; a seat makes about 120-200 decisions per game and the reward comes at the end."""
    gae_lambda: float = 0.95
    """GAE parameter (RLlib's ``lambda_``)."""
    clip_range: float = 0.2
    """PPO clipping of the probability ratio (RLlib's ``clip_param``)."""
    ent_coef: float = 0.01
    """Entropy bonus (RLlib's ``entropy_coeff``)."""
    vf_coef: float = 0.5
    """Value-loss weight (RLlib's ``vf_loss_coeff``)."""
    max_grad_norm: float = 0.5
    """Gradient norm clipping (RLlib's ``grad_clip``)."""
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
    net_arch: list = field(default_factory=lambda: [256, 256])
    """Hidden layer sizes of the policy and value networks (separate networks of this shape)."""
    activation: str = "tanh"
    """Hidden activation: ``tanh`` or ``relu``."""


@dataclass
class CandidateValuesSection:
    """Values of the search's candidates learned from its paired rollouts (``fifthave.train.candidate_values``)."""

    groups: list = field(default_factory=lambda: ["bid", "board"])
    """Decision groups the search labels and the network learns (``fifthave.agents.search.DECISION_GROUPS``).
    Where the search gains depends on the player count: in 4 players the A/B/C/D choice and the commissioner
    moves gain nothing (bids and board decisions do), while in 2 and 3 players they gain most (the 2-player
    search wins 0.83 against the heuristic searching only those, 0.54 searching bids and board decisions), so
    the 2- and 3-player configs label all four groups."""
    played_groups: list = None
    """Decision groups the network decides when it plays, a subset of ``groups`` (None: all of them); the
    heuristic plays the rest. The 3-player networks' commissioner moves lose where the search's win: with the
    heuristic moving, the same networks won 0.436, 0.433 and 0.404 against 0.397, 0.394 and 0.394 (1,400
    labelled games; seeds 2026, 7, 8) and 0.470 and 0.448 against 0.432 and 0.404 (2,800; seeds 2026, 7),
    1,002 games each, so the 3-player config plays bids, board and the A/B/C/D choice. The move labels still
    help the fit (the 1,400 games fitted without them, playing the same groups: 0.431 and 0.415). In 2
    players the network's moves win (0.612 against 0.550 without, seed 7)."""
    advice: bool = True
    """Whether the network plays with the heuristic's advice: its bid candidates include the HeuristicAgent's
    planned bid, a candidate feature says which candidate is the heuristic's, and the heuristic plays the
    groups outside ``played_groups`` (``values-4p``). False: no scripted agent at play time - the network plays
    every decision group (``groups`` must be all four), bids from ``fifthave.agents.learned.enumerated_bid_candidates``,
    and the search labels the same candidates (the search's rollouts still play the heuristic: labelling only)."""
    teacher_advice: bool = False
    """With ``advice`` false: whether the labelling search is advised by the HeuristicAgent as ``SearchAgent`` is
    (``fifthave.train.values_agent.advised_search``): it also weighs the heuristic's choice and adds its prior (0.02)
    to it, and labels the network's own candidates with those values, so the network keeps no scripted agent at
    play time. Issue 35's probes (``results/training/values_selfplay/README.md``, 4 samples, depth 3, 200 games):
    against three search:32:2 the advice-free search wins 0.148 (its network 0.150), this one 0.245 (+0.098 [+0.000,
    +0.195] paired by deal); against three heuristics 0.755 and 0.845."""
    effects: bool = False
    """Whether each candidate's features also say what it does: ``fifthave.agents.learned.effect_features``, the
    search's evaluator and the seat's projected margin and VP right after it, on a determinization of the seat's
    own view (labelling draws it from a generator of its own, so the labels and the search are those of the same
    run without it). The agent then needs the sampler every fifthave runner attaches. Issue 35's probe: held-out
    agreement with the search 0.813 -> 0.853 on 2,000 advice-free games, shop plots 0.55 -> 0.97."""
    destinations: bool = False
    """Whether each candidate's features also say what a commissioner move's district holds
    (``fifthave.agents.learned.destination_features``, read from the observation: layout 1 only). The labels do
    not store them (they are computed from the stored observation and features), so the first labels of a run
    without them serve a run with them; the DAgger rounds' labels differ (their students differ). Issue 35's probe:
    +0.049 [+0.008, +0.091] in 3 players against two heuristics (the same labels refitted), +0.023 [-0.018, +0.066]
    in 2 players."""
    bid_destinations: bool = False
    """With ``destinations``: whether the bid candidates' destination columns hold the auctioned location's (its
    build values, lead, deficit and skyscrapers) and what the bid is worth and meets: the seat's build value there
    times the bid's building limit, whether a stop is possible, how far the others could outbid it
    (``destination_features`` with ``bids``). Read from the observation like the moves' columns, so stored labels
    serve a fit with them. Issue 35 (``results/training/values_selfplay/README.md``, "Bid destinations"): the
    4-player first labels (2,000 games) refitted with them, three fit seeds each way, win 0.470-0.490 against three
    heuristics where the fits without them win 0.394-0.446: +0.058 [+0.033, +0.083] paired by deal over the mean of
    the seeds. Not yet set by a committed config (a run with it has other DAgger labels)."""
    opponents: list = field(default_factory=lambda: ["heuristic"])
    """Agents in the other seats while labelling, each seat drawn uniformly from the list (repeat a name to weight
    it): scripted agents (names of ``fifthave.agents.registry.AGENT_FACTORIES``) or the search
    (``search[:ROLLOUTS[:DEPTH[:POLICY]]]``; in the labelling search's rollouts it plays as the HeuristicAgent,
    since a rollout gives it no sampler)."""
    past_generations: int = 0
    """The league's own generations: in each DAgger round, the run's latest networks saved so far (``values_first``,
    ``values_round1``, ..., the one playing the searched seat included), at most this many, join ``opponents``
    as further entries (with ``seated_rollouts`` the search rolls their seats out with them). 0: the scripted
    league alone. The first labels, made before any network exists, never hold them. Cost, labelling at depth 1
    with the eight scripted anchors of ``candidate_values_league_4p.json`` (6 games, CPU per game): 0.23 s; 0.65 s
    with one generation added to them, 0.80 s with ``search`` added instead: a network or a search seat makes a
    labelled game several times dearer."""
    generation_share: float = 0.0
    """The share of the labelling league's draws that the run's generations (``past_generations``) hold together,
    divided alike among those saved so far; the entries of ``opponents`` share the rest (alike, or by PFSP). 0: each
    generation is one entry like each name of ``opponents`` (with 14 names and 3 generations, 18% of the seats: the
    2-player PFSP run's generations then stop gaining on each other after round 3, and round 8 lost to round 7 head
    to head while it rose against the heuristic, ``results/training/values_selfplay/README.md``)."""
    pfsp_power: float = 0.0
    """Prioritized fictitious self-play (AlphaStar's PFSP) in the labelling league. 0: every seat draws uniformly
    from ``opponents`` and the generations. Above 0, from the second DAgger round on, the entries of ``opponents``
    share their part of the draws (the generations keep theirs) in proportion to ``max(pfsp_min_weight, (1 - w)
    ** pfsp_power)`` (``fifthave.train.league.pfsp_weights``), ``w`` the student's win share against that name
    over the seats it held in the previous round's labelled games (or ``pfsp_window`` rounds'; a name it did not
    meet: the fair share); a name listed twice weighs twice. The first DAgger round, whose previous games the
    search played, draws uniformly."""
    pfsp_min_weight: float = 0.05
    """Smallest PFSP weight of an entry of ``opponents`` (``pfsp_power`` above 0), so that none is forgotten."""
    pfsp_window: int = 1
    """DAgger rounds whose labelled games give PFSP its win shares: the latest this many before the round drawn
    (1: the previous round's alone). A name drawn at well under 1% of the seats may go unmet in one round's games
    and then counts at the fair share (random, always beaten, went 0.006 -> 0.054 -> 0.006 of the seats in the
    2-player probe); over several rounds it is met. The older rounds' games were played by older students, so a
    long window answers late to what the student learnt."""
    seated_rollouts: bool = False
    """Whether the labelling search's rollouts play each other seat with the agent seated there (the labeller
    knows who sits where; the agent at play does not) and the searched seat with the HeuristicAgent. False:
    every seat of the rollouts plays the HeuristicAgent, whose values are those of the wrong opponents when
    ``opponents`` holds other agents (the league run of issue 35 lost 0.097 against three heuristics)."""
    samples: int = 8
    """Determinizations per searched decision; every candidate is rolled out on each."""
    depth: int = 1
    """Turns of heuristic rollout after a candidate (1: to the end of the current turn)."""
    games: int = 400
    """Labelled games (one searching seat each)."""
    held_out_games: int = 40
    """Further labelled games, used only to report the fit."""
    dagger_games: int = 0
    """Labelled games played after the fit by the fitted ensemble in the searched seat, the search only
    labelling its decisions (DAgger: the positions the network's own play reaches); the ensemble is then
    fitted again on all labels. From the same 2,000 games, 500 more won 0.437 and 0.440 against 0.426 and
    0.424 without (1,000 games each, seeds 7 and 8). 0: none."""
    dagger_rounds: int = 1
    """Rounds of DAgger (with ``dagger_games``): each round the latest ensemble plays ``dagger_games`` labelled
    games and the ensemble is fitted again on all labels - expert iteration with the search as the expert and
    the network choosing the positions it labels. A run resumed with more rounds keeps the labels and the
    generations it has (each generation's file records the ``fit_key`` of its labels and fit settings)."""
    replay_rounds: int = 0
    """Label sets each fit reads, the latest ones: the first games' labels are set 0 and DAgger round k's set k, so
    with R the fit made after round k reads sets k - R + 1 to k (set 0 while k < R); 0: all of them. A window over
    the most recent self-play games, as AlphaZero's: the first labels are the search's own games, whose positions
    the network's play does not reach. Issue 35, the ten-round 2-player labels refitted without the first games (a
    window of 10 at the last fit): against one HeuristicAgent +0.034 [-0.007, +0.074] and +0.049 [+0.006, +0.092]
    over the fit of all labels with the same fit seed (seeds 0 and 1, 1,000 games paired by deal; on fresh deals
    +0.104 [+0.062, +0.147]); the last five rounds alone: -0.062 [-0.105, -0.019] (too few labels). In 4 players
    (2,000 first games, four rounds of 600) a window of 4 is level: +0.013 [-0.029, +0.053]."""
    embedding_width: int = 256
    """Width of the observation and candidate embeddings (the observation's is two layers of this width; the
    value head that reads their sum has ``head_width`` units). Not a ``net_arch``: the agent file stores this one
    shape."""
    head_width: int = 128
    """Units of the value head's hidden layer, which reads the sum of the observation's and the candidate's
    embeddings. 512 fits the six-round advice-free labels no better than 128 (held-out agreement with the
    search 0.820 against 0.817)."""
    epochs: int = 20
    """Passes over the data."""
    ensemble: int = 3
    """Networks fitted with different seeds (``workers`` of them at once, each in a process of its own: the same
    weights as one after another); the agent plays their mean value. One network's choices vary with its seed and
    the order of its minibatches, and the mean's vary less: from the same labels, with a constant step size, one
    network won 0.399 and three 0.447 against three heuristics (1,000 games, seed 7), though three others won
    0.396; annealed, three won 0.426 and five 0.427."""
    batch_size: int = 256
    """Decisions per minibatch."""
    learning_rate: float = 1e-3
    """Adam's step size at the start; it falls linearly to 0 at the last step, so the final weights depend less
    on the last minibatches (three networks from the same labels: 0.396 with a constant step, 0.426 annealed,
    against three heuristics, 1,000 games, seed 7)."""
    weight_decay: float = 1e-5
    """Adam's L2 penalty."""
    mse_weight: float = 1.0
    """Weight of the squared error of each candidate's value in the fit's loss."""
    listwise_weight: float = 0.0
    """Weight of a listwise term added to the fit's loss (0: none, the squared error alone as before it
    existed): per decision, the cross-entropy of the softmax of the network's values over the decision's
    candidates against the softmax of their labels, both divided by ``listwise_temperature`` (ListNet: Cao et
    al., 2007; the policy target of AlphaZero). The agent plays the candidate valued most, and the squared error
    weighs every candidate alike, while this term weighs how the values of one decision's candidates are
    ordered; it is least when the values are the labels plus a constant per decision. Measured on the six-round
    advice-free labels (``results/training/values_all/README.md``): with weight 1 and temperature 0.3 the
    held-out choices agree slightly more with the search's (0.832 against 0.817, one network) but the ensemble
    wins less (0.142 against 0.195 against three heuristics, paired by deal -0.053 [-0.086, -0.020])."""
    tie_bonus: float = 0.0
    """Added to the label of a decision's first candidate where the search valued all of its candidates alike
    (scaled label units; 0: labels as searched). The search then plays the first candidate, and 37% of the
    advice-free decisions are such ties (85% of draws); without it the network learns nothing there and
    breaks the ties its own way. Refitted on the six-round advice-free labels with 0.1, the ensemble won 0.219
    against 0.191 for the committed fit (three heuristics, 2,000 games on 500 deals, seeds 2026 and 7; paired by
    deal +0.028 [+0.004, +0.052]): ``results/training/values_all/README.md``."""
    end_bonus: float = 0.0
    """Added to the label of every candidate that brings the game's end nearer (the A/B/C/D choice of B, which
    places a tile of the row, and a declared building stop: R27), before ``tie_bonus`` looks for ties (scaled
    label units; 0: labels as searched): a small cost of the game's length. A lost game is worth 0 whatever
    the seat does, so nothing told the network to end one: against three GreedyAgents, who rarely end a game,
    the six-round league network let 49 of 400 games run into truncation (R29), each a loss for it and each
    counted by issue 35's panel. Refitted on that run's labels: 0.03 left 5 of 400, 0.1 none; giving only the
    exact ties to such a candidate left 40 (a lost game's labels tie only once the margin saturates the
    evaluator's logistic)."""
    stall_bonus: float = 0.0
    """Added to ``end_bonus`` at the decisions of turn ``stall_turn`` or later (scaled label units; 0: none). A game
    that long has stalled: it ends at ``max_turns`` as a loss (R29) unless a seat ends it, and the search's depth
    does not see that far, so its labels still prefer to wait when behind. In normal play no decision is that
    late, so this leaves the network's play there as it was, where a larger ``end_bonus`` costs strength
    (issue 35: 0.1 instead of 0.05 cut the 3-player truncations against two GreedyAgents from 64 to 3 of 999
    games but lost 0.035 against two heuristics)."""
    stall_turn: int = 60
    """The turn (of the labelled games' 300, R29) from which ``stall_bonus`` counts. In the first labels of issue 35's
    self-play runs the searched seat's last decision of 99% of the games that end comes by turn 32 (2 players),
    63 (3) and 48 (4); medians 19, 28 and 26; 8 of the 1,000 3-player games ran into truncation."""
    listwise_temperature: float = 1.0
    """Temperature of ``listwise_weight``'s softmaxes, in the scaled label units (labels are value differences
    times ``VALUE_SCALE``, 10): small makes the labels' softmax nearly the best candidate's one-hot (split among
    candidates tied at the best)."""


# ---------------------------------------------------------------------------------------------------------
# The run config: sections -> the method's flat config, and back for old files


SHARED_SECTIONS = {"game": GameSection, "evaluation": EvaluationSection, "run": RunSection}
METHOD_SECTIONS = {
    # method: (sections it must have (an empty object takes every default), sections it may have)
    "ppo": (("ppo",), ("league",)),
    "selfplay": (("ppo", "selfplay"), ()),
    "bc": (("bc", "ppo"), ("league",)),
    "candidate_values": (("candidate_values",), ()),
    "rllib": (("rllib",), ()),
    "generations": (("generations",), ()),
}
METHODS = tuple(METHOD_SECTIONS)
SECTION_CLASSES = {"ppo": PPOSection, "selfplay": SelfPlayConfig, "league": LeagueConfig, "bc": BCConfig,
                   "candidate_values": CandidateValuesSection, "rllib": RLlibSection}
"""The method sections' dataclasses; ``generations`` is an object that ``fifthave.train.generations`` reads."""
TRAINERS = {"ppo": "ppo", "selfplay": "ppo", "bc": "ppo", "candidate_values": "candidate_values",
            "rllib": "rllib"}
"""Which flat config each method's trainer reads."""
FLAT_NAMES = {
    # trainer: {(shared section, field): the flat config's field}; a shared field missing here must stay unset
    "ppo": {("game", "num_players"): "num_players", ("game", "board"): "board", ("game", "max_turns"): "max_turns",
            ("game", "reward"): "reward", ("game", "observation_layout"): "observation_layout",
            ("game", "learner_seat"): "learner_seat", ("evaluation", "games"): "eval_games",
            ("evaluation", "every"): "eval_every", ("evaluation", "opponents"): "eval_opponents",
            ("evaluation", "deterministic"): "eval_deterministic", ("evaluation", "seed"): "eval_seed",
            ("run", "seed"): "seed", ("run", "workers"): "workers", ("run", "steps"): "total_timesteps",
            ("run", "checkpoint_every"): "checkpoint_every"},
    "rllib": {("game", "num_players"): "num_players", ("game", "board"): "board",
              ("game", "max_turns"): "max_turns", ("game", "reward"): "reward",
              ("game", "observation_layout"): "observation_layout", ("evaluation", "games"): "eval_games",
              ("evaluation", "opponents"): "eval_opponents", ("evaluation", "deterministic"): "eval_deterministic",
              ("evaluation", "seed"): "eval_seed", ("run", "seed"): "seed", ("run", "workers"): "num_env_runners",
              ("run", "steps"): "total_env_steps", ("run", "checkpoint_every"): "checkpoint_every"},
    "candidate_values": {("game", "num_players"): "num_players", ("game", "board"): "board",
                         ("game", "observation_layout"): "observation_layout",
                         ("evaluation", "games"): "eval_games", ("evaluation", "seed"): "eval_seed",
                         ("run", "seed"): "seed", ("run", "workers"): "workers"},
}
METHOD_DEFAULTS = {
    # trainer: {flat field: default} of the shared fields a section leaves to the method (None there) and of
    # the flat fields no section has (run_dir is the command's --out; the PPO extras are its optional sections)
    "ppo": {"reward": "win_loss", "workers": 2, "total_timesteps": 100_000, "eval_every": 50_000, "eval_games": 100,
            "eval_opponents": ["random", "heuristic"], "checkpoint_every": 50_000, "run_dir": "runs/default",
            "selfplay": None, "bc": None, "league": None},
    "rllib": {"reward": "win", "num_env_runners": 1, "total_env_steps": 200_000, "checkpoint_every": 25,
              "eval_games": 200, "eval_opponents": ["random", "heuristic"], "run_dir": "runs/rllib"},
    "candidate_values": {"workers": 2, "eval_games": 1000, "run_dir": "runs/candidate_values"},
}
"""The only defaults of the flat configs that are not their sections' (``_flat_config``)."""
OLD_DEFAULTS = {"ppo": {"observation_layout": OLD_DEFAULT_LAYOUT, "eval_deterministic": False},
                "rllib": {"observation_layout": OLD_DEFAULT_LAYOUT}, "candidate_values": {}}
"""What a flat config or checkpoint written before a field's default changed means when it names none (layout 1
became the default with ``observation_layout``; PPO's evaluation sampled its actions until the sections)."""


def _flat_config(trainer):
    """Make a class the flat config ``trainer`` reads: its fields are the sections' fields under their flat
    names (``FLAT_NAMES``; the method's own section by its own names), each with the section's default unless
    ``METHOD_DEFAULTS`` gives the method's. One source of defaults: a flat config never repeats a section's."""
    def field_of(section_class, name, flat_name):
        spec = {f.name: f for f in dataclasses.fields(section_class)}[name]
        default = METHOD_DEFAULTS[trainer].get(flat_name, spec.default)
        if flat_name in METHOD_DEFAULTS[trainer] and spec.default not in (None, dataclasses.MISSING):
            raise TypeError(f"METHOD_DEFAULTS[{trainer!r}] repeats the default of {name}")
        if default is dataclasses.MISSING:
            return spec.type, field(default_factory=spec.default_factory)
        return spec.type, field(default_factory=lambda: list(default)) if isinstance(default, list) else field(
            default=default)

    def build(cls):
        fields = {flat_name: field_of(SHARED_SECTIONS[section], key, flat_name)
                  for (section, key), flat_name in FLAT_NAMES[trainer].items()}
        section_class = SECTION_CLASSES[trainer]
        fields.update({f.name: field_of(section_class, f.name, f.name) for f in dataclasses.fields(section_class)})
        extras = {name: value for name, value in METHOD_DEFAULTS[trainer].items() if name not in fields}
        fields.update({name: (str if name == "run_dir" else object, field(default=value))
                       for name, value in extras.items()})
        cls.__annotations__ = {name: type_ for name, (type_, _) in fields.items()}
        for name, (_, spec) in fields.items():
            setattr(cls, name, spec)
        return dataclass(cls)
    return build


# ---------------------------------------------------------------------------------------------------------
# The flat configs the trainers read and checkpoints store, built from the sections (``_flat_config``): each
# field is documented where users set it, the section ``FLAT_NAMES`` maps it from (``ppo.n_envs``,
# ``evaluation.games`` = ``eval_games``, ...). Their checks are the schema's one validation path.


@_flat_config("ppo")
class TrainConfig:
    """The flat form of a MaskablePPO run (methods ``ppo``, ``selfplay``, ``bc``): what ``fifthave.train.train``
    reads and every checkpoint stores (``to_dict``). Fields: ``GameSection``, ``EvaluationSection`` (``eval_``),
    ``RunSection`` (``steps`` is ``total_timesteps``) and ``PPOSection``; ``run_dir`` is the command's ``--out``."""

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
        self.observation_layout = _layout("observation_layout", self.observation_layout)
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
        self.net_arch = _net_arch("net_arch", self.net_arch)
        self.eval_every = checks.integer("eval_every", self.eval_every, 0)
        self.eval_games = checks.integer("eval_games", self.eval_games, 1)
        self.eval_deterministic = checks.boolean("eval_deterministic", self.eval_deterministic)
        if self.eval_seed is not None:
            self.eval_seed = checks.integer("eval_seed", self.eval_seed, 0, checks.MAX_SEED)
        self.checkpoint_every = checks.integer("checkpoint_every", self.checkpoint_every, 0)
        self.run_dir = _path("run_dir", self.run_dir)
        self.init_from = _path("init_from", self.init_from, optional=True)
        self.advice_prior = checks.real("advice_prior", self.advice_prior)

    def to_dict(self):
        return dataclasses.asdict(self)

    def env_kwargs(self):
        """Keyword arguments of ``FifthAvenueEnv`` (opponents excluded)."""
        return dict(num_players=self.num_players, board=self.board, max_turns=self.max_turns,
                    reward=self.reward, learner_seat=self.learner_seat, observation_layout=self.observation_layout)




def check_league_names(names):
    """Raise ``ValueError`` unless ``names`` is a non-empty list of scripted agent names and search names
    (``search[:ROLLOUTS[:DEPTH[:POLICY]]]``)."""
    if not (isinstance(names, (list, tuple)) and names and all(isinstance(n, str) for n in names)):
        check_agent_names("opponents", names)  # raises, saying what is allowed
    for name in names:
        if name.split(":")[0] == "search":
            search_factory(name)  # a malformed search name fails here, saying what is allowed
        elif name not in AGENT_FACTORIES:
            raise ValueError(f"unknown agent {name!r} in opponents; choose from {sorted(AGENT_FACTORIES)} or "
                             "search[:ROLLOUTS[:DEPTH[:POLICY]]]")


@_flat_config("candidate_values")
class CandidateValueConfig:
    """The flat form of a candidate-value run (method ``candidate_values``): what
    ``fifthave.train.candidate_values`` reads and its agent file stores. Fields: ``GameSection``
    (``num_players``, ``board``, ``observation_layout``), ``EvaluationSection`` (``eval_``), ``RunSection``
    (``seed``, ``workers``) and ``CandidateValuesSection``; ``run_dir`` is the command's ``--out``."""

    def __post_init__(self):
        self.seed = checks.integer("seed", self.seed, 0, checks.MAX_SEED)
        game = self.labelling_game()
        self.num_players, self.board = game.num_players, game.board
        self.observation_layout = _layout("observation_layout", self.observation_layout)
        check_value_groups(self.groups, self.played_groups)
        self.advice = check_advice(self.groups, self.played_groups, self.advice)
        self.teacher_advice = checks.boolean("teacher_advice", self.teacher_advice)
        if self.teacher_advice and self.advice:
            raise checks.InvalidValueError("teacher_advice true needs advice false: an advised network's labelling "
                                           "search already weighs the heuristic's choice")
        self.effects = checks.boolean("effects", self.effects)
        self.destinations = check_destinations(self.destinations, self.observation_layout)
        self.bid_destinations = check_bid_destinations(self.bid_destinations, self.destinations)
        self.seated_rollouts = checks.boolean("seated_rollouts", self.seated_rollouts)
        check_league_names(self.opponents)
        self.past_generations = checks.integer("past_generations", self.past_generations, 0)
        self.generation_share = checks.real("generation_share", self.generation_share, 0.0, 1.0)
        if self.generation_share and not self.past_generations:
            raise checks.InvalidValueError(f"generation_share {self.generation_share} needs past_generations above 0 "
                                           "(the generations whose share it sets)")
        self.pfsp_power = checks.real("pfsp_power", self.pfsp_power, 0.0)
        self.pfsp_min_weight = checks.real("pfsp_min_weight", self.pfsp_min_weight, 0.0, 1.0, low_included=False)
        self.pfsp_window = checks.integer("pfsp_window", self.pfsp_window, 1)
        self.depth = checks.integer("depth", self.depth, 0)
        for name in ("samples", "games", "held_out_games", "workers", "embedding_width", "head_width", "epochs",
                     "ensemble", "batch_size"):
            setattr(self, name, checks.integer(name, getattr(self, name), 1))
        self.dagger_games = checks.integer("dagger_games", self.dagger_games, 0)
        self.dagger_rounds = checks.integer("dagger_rounds", self.dagger_rounds, 1)
        self.replay_rounds = checks.integer("replay_rounds", self.replay_rounds, 0)
        self.learning_rate = checks.real("learning_rate", self.learning_rate, 0.0, low_included=False)
        self.weight_decay = checks.real("weight_decay", self.weight_decay, 0.0)
        self.mse_weight = checks.real("mse_weight", self.mse_weight, 0.0)
        self.listwise_weight = checks.real("listwise_weight", self.listwise_weight, 0.0)
        if self.mse_weight == self.listwise_weight == 0:
            raise checks.InvalidValueError("mse_weight and listwise_weight are both 0: the fit would have no loss")
        self.tie_bonus = checks.real("tie_bonus", self.tie_bonus, 0.0)
        self.end_bonus = checks.real("end_bonus", self.end_bonus, 0.0)
        self.stall_bonus = checks.real("stall_bonus", self.stall_bonus, 0.0)
        self.stall_turn = checks.integer("stall_turn", self.stall_turn, 1, game.max_turns)
        self.listwise_temperature = checks.real("listwise_temperature", self.listwise_temperature, 0.0,
                                                low_included=False)
        self.eval_games = checks.integer("eval_games", self.eval_games, 0)
        if self.eval_games % self.num_players:
            raise checks.InvalidValueError(f"eval_games must be a multiple of num_players ({self.num_players}) "
                                           f"or 0, got {self.eval_games}")
        if self.eval_seed is not None:
            self.eval_seed = checks.integer("eval_seed", self.eval_seed, 0, checks.MAX_SEED)
        self.run_dir = _path("run_dir", self.run_dir)

    def labelling_game(self):
        """The ``GameConfig`` of the labelled games."""
        return game_config("win_loss", None, num_players=self.num_players, board=self.board)

    def to_dict(self):
        return dataclasses.asdict(self)



@_flat_config("rllib")
class RLlibConfig:
    """The flat form of an RLlib run (method ``rllib``): what ``fifthave.train.rllib.train`` reads and every
    checkpoint's ``meta.json`` stores (``to_dict``). Each field is documented where users set it
    (this module): ``GameSection``, ``EvaluationSection`` (``eval_``), ``RunSection`` (``steps`` is
    ``total_env_steps``, ``workers`` is ``num_env_runners``) and ``RLlibSection``."""

    def __post_init__(self):
        # every field checked for its type and range (a config is untrusted input: a file, flags, a checkpoint)
        self.seed = checks.integer("seed", self.seed, 0, checks.MAX_SEED)
        game = game_config(self.reward, None, num_players=self.num_players, board=self.board,
                           max_turns=self.max_turns)
        self.num_players, self.board, self.max_turns = game.num_players, game.board, game.max_turns
        self.observation_layout = _layout("observation_layout", self.observation_layout)
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
        self.batch_size = checks.integer("batch_size", self.batch_size, 1)
        if self.batch_size > self.train_batch_size:
            raise ValueError(f"batch_size ({self.batch_size}) must not exceed train_batch_size "
                             f"({self.train_batch_size})")
        self.n_epochs = checks.integer("n_epochs", self.n_epochs, 1)
        for name in ("learning_rate", "clip_range", "max_grad_norm", "vf_clip_param"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0, low_included=False))
        for name in ("gamma", "gae_lambda"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0, 1.0))
        for name in ("ent_coef", "vf_coef"):
            setattr(self, name, checks.real(name, getattr(self, name), 0.0))
        self.use_kl_loss = checks.boolean("use_kl_loss", self.use_kl_loss)
        self.batch_mode = checks.choice("batch_mode", self.batch_mode, ("truncate_episodes", "complete_episodes"))
        self.net_arch = _net_arch("net_arch", self.net_arch)
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


RLLIB_NAMES = {"batch_size": "minibatch_size", "n_epochs": "num_epochs", "learning_rate": "lr",
               "gae_lambda": "lambda_", "clip_range": "clip_param", "ent_coef": "entropy_coeff",
               "vf_coef": "vf_loss_coeff", "max_grad_norm": "grad_clip"}
"""RLlib's names of the PPO settings the ``rllib`` section names as the ``ppo`` one does (sb3's names): the one
translation to RLlib's ``PPOConfig.training`` (``fifthave.train.rllib.train.ppo_config``)."""
RENAMED = {
    # trainer: {old name: today's} in its flat config (files and checkpoints before the sections) and its section
    "ppo": {"observation_version": "observation_layout"},
    "rllib": {"observation_version": "observation_layout", "hidden": "net_arch",
              **{old: new for new, old in RLLIB_NAMES.items()}},
    "candidate_values": {"observation_version": "observation_layout", "hidden": "embedding_width"},
    "generations": {"hidden": "net_arch"},
}
"""Old names that still load, translated with a one-line notice (``current_names``)."""
_DROPPED = ("run_dir", "subproc")  # where a run went (now --out); ``subproc``: checkpoints written before ``workers``


def flat_class(trainer):
    """The flat config class ``trainer`` reads."""
    return {"ppo": TrainConfig, "candidate_values": CandidateValueConfig, "rllib": RLlibConfig}[trainer]


@dataclass
class RunConfig:
    """A training run: ``method`` and the sections it reads (see the module docstring)."""

    method: str
    """The trainer: ``ppo``, ``selfplay``, ``bc``, ``candidate_values``, ``rllib`` or ``generations``."""
    game: GameSection = field(default_factory=GameSection)
    """The game (the same rules for every method)."""
    evaluation: EvaluationSection = field(default_factory=EvaluationSection)
    """How the learner is measured while it trains."""
    run: RunSection = field(default_factory=RunSection)
    """Seed, processes, budget, checkpoint cadence."""
    sections: dict = field(default_factory=dict)
    """The method's own sections by name (``METHOD_SECTIONS``), each a dataclass of ``SECTION_CLASSES``."""

    def __post_init__(self):
        if self.method != "generations":  # that module checks its own section
            try:
                self.trainer_config("runs/unchecked")
            except ValueError as error:
                raise type(error)(self._section_names(str(error))) from None

    def to_dict(self):
        """The JSON form (what ``RUN_DIR/run_config.json`` holds and ``run_config_from_dict`` reads back)."""
        data = {"method": self.method}
        for name in SHARED_SECTIONS:
            data[name] = dataclasses.asdict(getattr(self, name))
        for name, section in self.sections.items():
            data[name] = dataclasses.asdict(section) if dataclasses.is_dataclass(section) else dict(section)
        return data

    def trainer_config(self, run_dir):
        """The flat config the method's trainer reads (``TrainConfig``, ``RLlibConfig`` or ``CandidateValueConfig``),
        writing to ``run_dir``; its checks raise ``ValueError`` for any bad value."""
        trainer = TRAINERS[self.method]
        names = FLAT_NAMES[trainer]
        flat = {"run_dir": run_dir}
        for section, section_class in SHARED_SECTIONS.items():
            defaults = section_class()
            for key in _field_names(section_class):
                value = getattr(getattr(self, section), key)
                if (section, key) in names:
                    if value is not None:
                        flat[names[section, key]] = value
                elif value != getattr(defaults, key):
                    raise checks.InvalidValueError(
                        f"{section}.{key} does not apply to method {self.method}"
                        + (" (RLlib evaluates at every checkpoint: set run.checkpoint_every)"
                           if (trainer, section, key) == ("rllib", "evaluation", "every") else "")
                        + f"; leave it unset (got {checks.shown(value)})")
        flat.update(dataclasses.asdict(self.sections[trainer]))  # each trainer's own section has its name
        if trainer == "ppo":
            flat.update({name: self.sections.get(name) for name in ("selfplay", "bc", "league")})
        return flat_class(trainer)(**flat)

    def _section_names(self, message):
        """``message`` with the flat field it starts with named as in the sections (``eval_games`` ->
        ``evaluation.games``, ``n_envs`` -> ``ppo.n_envs``)."""
        trainer = TRAINERS[self.method]
        where = {flat: f"{section}.{key}" for (section, key), flat in FLAT_NAMES[trainer].items()}
        where.update({key: f"{trainer}.{key}" for key in _field_names(SECTION_CLASSES[trainer])})
        for flat in sorted(where, key=len, reverse=True):
            if message.startswith(flat) and not message[len(flat):len(flat) + 1].isalnum() \
                    and message[len(flat):len(flat) + 1] != "_":
                return where[flat] + message[len(flat):]
        return message


def _section_object(name, value):
    value = checks.mapping(f"the {name} section", value)
    if name == "generations":
        return dict(value)
    section_class = SHARED_SECTIONS.get(name) or SECTION_CLASSES[name]
    allowed = _field_names(section_class)
    unknown = set(value) - allowed
    if unknown:
        raise checks.InvalidValueError(f"unknown {name} keys {sorted(unknown)}; allowed: {sorted(allowed)}")
    return section_class(**value)


def run_config_from_dict(data):
    """The ``RunConfig`` of ``data`` (the JSON object of a run config); ``ValueError`` naming what is wrong."""
    data = checks.mapping("a run config", data)
    if "method" not in data:
        raise checks.InvalidValueError(f"a run config must name its method (one of {', '.join(METHODS)}); "
                                       f"got the keys {sorted(data)}")
    method = checks.choice("method", data["method"], METHODS)
    required, optional = METHOD_SECTIONS[method]
    allowed = {"method", *SHARED_SECTIONS, *required, *optional}
    unknown = set(data) - allowed
    if unknown:
        raise checks.InvalidValueError(f"unknown keys {sorted(unknown)} for method {method}; allowed: "
                                       f"{sorted(allowed)}")
    shared = {name: _section_object(name, data.get(name, {})) for name in SHARED_SECTIONS}
    sections = {name: _section_object(name, data.get(name, {})) for name in required}
    sections.update({name: _section_object(name, data[name]) for name in optional if name in data})
    return RunConfig(method, sections=sections, **shared)


def is_legacy(data):
    """Whether ``data`` (a JSON object) is a flat config written before this schema."""
    return isinstance(data, dict) and "method" not in data


def _legacy_trainer(data):
    if {"groups", "samples", "ensemble", "weight_decay", "played_groups"} & set(data):
        return "candidate_values"
    if {"total_env_steps", "num_env_runners", "train_batch_size", "lr", "hidden", "pool_fraction",
            "reward_scale", "num_envs_per_env_runner", "lambda_"} & set(data):
        return "rllib"
    return "ppo"


def _today(data, trainer):
    """A flat config ``data`` of ``trainer`` with today's names, and the old defaults of the fields it leaves
    unset (``OLD_DEFAULTS``); returns ``(dict, old names it used)``."""
    today, used = _renamed_keys(data, RENAMED[trainer], "the config")
    for key, value in OLD_DEFAULTS[trainer].items():
        today.setdefault(key, value)
    return today, used


def legacy_flat(data, trainer=None):
    """``data`` (a flat config from before this schema, or a checkpoint's stored config) of ``trainer`` (None:
    told by its keys) with today's names and without what no longer belongs in a config; returns
    ``(trainer, flat dict, old names it used)``."""
    data = checks.mapping("a config", data)
    trainer = trainer or _legacy_trainer(data)
    today, used = _today(data, trainer)
    flat = {key: value for key, value in today.items() if key not in _DROPPED}
    allowed = _field_names(flat_class(trainer))
    unknown = set(flat) - allowed
    if unknown:
        raise checks.InvalidValueError(f"unknown config keys {sorted(unknown)}; allowed: {sorted(allowed)}")
    return trainer, flat, used


def translate_legacy(data):
    """The run config (JSON form) of a flat config from before this schema, with every value it had then
    (defaults of that time filled in); returns ``(run config dict, "OLD is now NEW" for each old name used)``."""
    trainer, flat, used = legacy_flat(data)
    resolved = flat_class(trainer)(**flat).to_dict()
    names = FLAT_NAMES[trainer]
    new = {section: {} for section in SHARED_SECTIONS}
    for (section, key), flat_name in names.items():
        new[section][key] = resolved.pop(flat_name)
    resolved.pop("run_dir")
    if trainer == "ppo":
        extras = {name: resolved.pop(name) for name in ("selfplay", "bc", "league")}
        method = "bc" if extras["bc"] is not None else "selfplay" if extras["selfplay"] is not None else "ppo"
        new["ppo"] = resolved
        new.update({name: value for name, value in extras.items() if value is not None})
    else:
        method = trainer
        new[trainer] = resolved
    return {"method": method, **new}, [f"{old} is now {RENAMED[trainer][old]}" for old in used]


def _renamed_sections(data):
    """``data`` (the schema's JSON form) with the old names in its method sections renamed (``RENAMED``);
    returns ``(dict, "SECTION.OLD is now SECTION.NEW" for each)``."""
    data, used = dict(data), []
    for section, renames in RENAMED.items():
        if isinstance(data.get(section), dict):
            data[section], old = _renamed_keys(data[section], renames, f"the {section} section")
            used += [f"{section}.{name} is now {section}.{renames[name]}" for name in old]
    return data, used


def _renamed_keys(values, renames, where):
    """``(values with today's names, the old names it used)``; naming a field twice is an error."""
    old = sorted(set(values) & set(renames))
    for name in old:
        if renames[name] in values:
            raise checks.InvalidValueError(f"{where} names both {renames[name]} and its old name {name}; keep "
                                           f"{renames[name]}")
    return {renames.get(key, key): value for key, value in values.items()}, old


def with_today_names(section, values):
    """``values`` (a section's or flat config's fields) with its old names (``RENAMED[section]``) renamed."""
    return _renamed_keys(checks.mapping(f"the {section} config", values), RENAMED[section], f"the {section} config")[0]


def _notify(message):
    print(message, file=sys.stderr)


def current_names(data, source, sets=(), notify=_notify):
    """``data`` (a run config's JSON form, or an old flat config) in the schema with today's names and ``sets``
    (``parse_set`` results) applied: an old flat config translated (``translate_legacy``), old keys of a method
    section renamed (``RENAMED``), either with a one-line notice naming what was old. Nothing is checked yet."""
    data = checks.mapping(f"the config in {source}", data)
    if is_legacy(data):
        data, used = translate_legacy(data)
        names = f" ({', '.join(used)})" if used else ""
        notify(f"notice: {source} is a flat config of the old format{names}; read as the new schema "
               f"(method {data['method']}); run_config.json in the run directory is its translation")
    data, used = _renamed_sections(with_sets(data, sets))
    if used:
        notify(f"notice: {source} uses old names ({', '.join(used)}); read with today's names, as run_config.json "
               f"in the run directory writes them")
    return data


def parse_run_config(data, source, notify=_notify):
    """The ``RunConfig`` of ``data`` (new schema or an old flat config, translated with a one-line notice)."""
    return run_config_from_dict(current_names(data, source, notify=notify))


def parse_set(text):
    """``SECTION.KEY=VALUE`` (or ``method=VALUE``) of ``--set`` as ``((section, key), value)``; the value is
    read as JSON where it parses (numbers, true/false/null, lists, quoted strings), else taken as a string."""
    path, sep, raw = text.partition("=")
    if not sep or not path:
        raise checks.InvalidValueError(f"--set takes SECTION.KEY=VALUE (or method=VALUE), got {text!r}")
    parts = tuple(path.split("."))
    if parts != ("method",) and len(parts) != 2:
        raise checks.InvalidValueError(f"--set takes SECTION.KEY=VALUE with one dot (or method=VALUE), got {text!r}")
    try:
        value = safejson.loads(raw, f"--set {path}")
    except ValueError:
        value = raw
    return parts, value


def with_sets(data, sets):
    """``data`` (a run config's JSON form) with ``--set`` assignments (``parse_set``'s results) applied."""
    data = {key: dict(value) if isinstance(value, dict) else value for key, value in data.items()}
    for parts, value in sets:
        if parts == ("method",):
            data["method"] = value
            continue
        section, key = parts
        if not isinstance(data.get(section, {}), dict):
            raise checks.InvalidValueError(f"--set {section}.{key}: {section} is not a section")
        data.setdefault(section, {})[key] = value
    return data


def load_run_config(path, sets=(), notify=_notify):
    """The ``RunConfig`` in the JSON file ``path`` (new schema, or an old flat config translated with a notice),
    with ``sets`` (``--set`` texts) applied and everything checked; ``ValueError`` naming the field,
    ``OSError`` for a file that does not read."""
    data = safejson.load(path, f"the config file {path}")
    return run_config_from_dict(current_names(data, path, [parse_set(text) for text in sets], notify))


def _field_names(cls):
    return {f.name for f in dataclasses.fields(cls)}


_SECTIONS = {"selfplay": SelfPlayConfig, "bc": BCConfig, "league": LeagueConfig}


def config_from_dict(data):
    """The ``TrainConfig`` of ``data``: its flat fields, as checkpoints store them (old names translated, a field
    an old config leaves unset means what it did then, ``OLD_DEFAULTS``); ``ValueError`` naming what is wrong."""
    checks.mapping("a config", data)
    data = _today({key: value for key, value in data.items() if key != "subproc"}, "ppo")[0]
    unknown = set(data) - _field_names(TrainConfig)
    if unknown:
        raise ValueError(f"unknown config keys {sorted(unknown)}; allowed: {sorted(_field_names(TrainConfig))}")
    return TrainConfig(**data)


def load_config(path=None, overrides=None):
    """The ``TrainConfig`` of a JSON file (a run config of a PPO method, or an old flat one; none: the defaults),
    with ``overrides`` (flat fields) applied. ``ValueError`` for a file that does not hold a valid config,
    ``OSError`` for one that does not read."""
    data = TrainConfig().to_dict()  # today's defaults (a stored config that leaves a field unset: OLD_DEFAULTS)
    if path is not None:
        data = safejson.load(path, f"the config file {path}")
        checks.mapping(f"the config in {path}", data)
        if not is_legacy(data):
            run_config = run_config_from_dict(data)
            if TRAINERS.get(run_config.method) != "ppo":
                raise checks.InvalidValueError(f"{path} is a {run_config.method} run, not a PPO one")
            data = run_config.trainer_config(TrainConfig.run_dir).to_dict()
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return config_from_dict(data)
