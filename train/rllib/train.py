"""Self-play PPO with RLlib: one policy shared by all seats, a pool of frozen snapshots, scripted opponents.

Run it with ``fifthave train CONFIG`` and a config of method ``rllib`` (``train/configs/rllib_vs_random.json``;
``fifthave.train.run``), which calls ``train`` here with the flat ``RLlibConfig`` (``fifthave.train.config``) and
saves it as ``RUN_DIR/config.json``. A local Ray starts; with the environment variable ``RAY_ADDRESS=HOST:PORT``
(Ray's own) the run joins the cluster whose head ``ray start --head`` started there, and RLlib's env runners
(``run.workers``) and the evaluation games spread over its nodes.

Self-play, in the manner of RLlib's ``self_play_with_open_spiel.py`` example: the
env (``fifthave.train.rllib.env``) names the seats by role; the ``learner`` seat (drawn
each game) always plays the trained module ``main``; each other seat is played
inside the env by a scripted agent (``scripted_fraction``) or by an RLlib
module: with probability ``pool_fraction`` a frozen snapshot ``main_vN`` from the
pool, else ``main`` itself, so the shared policy learns from every seat it
plays. Snapshots join the pool every ``snapshot_every`` iterations or when the
learner seat's recent win rate reaches ``promote_win_rate``; the oldest leaves
when the pool is full. Masks are honoured by RLlib's action-masking RLModule
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``).

Every ``checkpoint_every`` iterations and at the end a checkpoint is written to
``RUN_DIR/checkpoints/iter_NNNNNN`` (RLlib's algorithm state plus the actor for
``rllib:PATH``, see ``fifthave.train.rllib.agent``) and evaluated with our tournament
(``eval_games`` seat-rotated games against each of ``eval_opponents``, played as
Ray tasks); the results go to ``RUN_DIR/eval.csv``. ``RUN_DIR/cluster.txt``
records the Ray nodes and where the env runners and evaluation games ran. At the end
the run names its best evaluated checkpoint against each opponent and the tournament that
plays it on fresh deals (``fifthave.train.evaluate.best_evaluation``): a long run drifts, and its
best checkpoint may be a better policy than its last.

Repeatable: the same config, seed and number of env runners give the same weights (their SHA-256 is printed
at the end) when the budget is in env steps (``max_seconds`` stops on the clock). The snapshot draws come
from a seeded generator (``SelfPlayMapping``) and ``fifthave train`` runs an RLlib config with
``PYTHONHASHSEED`` fixed (it starts itself again with ``PYTHONHASHSEED=0`` unless the variable is set: with a
salt per process, Python's default, the same seed gave other weights on every run, as some order in RLlib's
sampling or learning follows Python's string hashes; ``init_ray`` passes the variable to a cluster's workers).

``fifthave train --resume RUN_DIR`` continues a run from its newest checkpoint with the config stored there
(``--set run.steps=N`` may raise the budget): weights, optimizer state, snapshot pool, iteration and env-step
counts carry on; the budget ``max_seconds`` counts this process's time only. Sampling does not replay the
original run's random draws.
"""

import collections
import json
import os
import re
import shutil
import time
import zlib

import numpy as np

from fifthave.agents.ray_backend import init_ray, node_summary
from fifthave_env.runtime import atomic_append_csv, atomic_write_text, process_exists

from ..evaluate import EVAL_FIELDS as TRAIN_EVAL_FIELDS
from ..evaluate import best_checkpoint_report, read_eval_log
from ..manifest import write_directory_manifest, verify_directory
from ..config import RLLIB_NAMES

# the columns of fifthave.train.train's eval.csv (fifthave.train.evaluate), counted in RLlib iterations and env steps
EVAL_FIELDS = ("iteration", "env_steps") + tuple(f for f in TRAIN_EVAL_FIELDS if f != "timesteps")
MAIN = "main"


class SelfPlayMapping:
    """Agent id -> module id: ``learner`` (and every ``player_N`` seat) plays ``main``; an opponent seat plays a
    snapshot from ``pool`` with probability ``pool_fraction``, else ``main``. Picklable (sent to env runners).

    RLlib asks once per seat and game. The draws come from a generator seeded with ``seed``, the pool and the
    env runner's index (``env.runner_index``), in the order the runner meets the seats, so a run repeats (RLlib's
    episode ids are random uuid4s: draws from them did not)."""

    def __init__(self, pool=(), pool_fraction=0.5, seed=0):
        self.pool = tuple(pool)
        self.pool_fraction = pool_fraction
        self.seed = seed
        self._rng = None  # made in the env runner, on the first draw

    def __call__(self, agent_id, episode, **kwargs):
        if not self.pool or not str(agent_id).startswith("opponent_"):
            return MAIN
        if self._rng is None:
            from .env import runner_index

            pool_key = zlib.crc32(",".join(self.pool).encode())  # not hash(): salted per process
            self._rng = np.random.default_rng([self.seed, pool_key, runner_index()])
        draw = self._rng.random()
        if draw >= self.pool_fraction:
            return MAIN
        return self.pool[int(draw / self.pool_fraction * len(self.pool))]


def _learner_win_callback():
    from ray.rllib.callbacks.callbacks import RLlibCallback

    from .env import LEARNER

    class LearnerWinRate(RLlibCallback):
        """Logs ``learner_win_rate`` (the learner seat's share of the win, 1/k for a k-way shared win), its VP and
        ``truncated_rate`` over the last 100 games."""

        def on_episode_end(self, *, episode, metrics_logger=None, **kwargs):
            learner = episode.agent_episodes.get(LEARNER)
            if learner is None or metrics_logger is None:
                return
            info = learner.get_infos(-1)
            winners = info.get("winners")
            if winners is None:
                return
            share = 1 / len(winners) if f"player_{info['seat']}" in winners else 0.0
            metrics_logger.log_value("learner_win_rate", share, reduce="mean", window=100)
            metrics_logger.log_value("truncated_rate", float(info.get("truncated", False)), reduce="mean", window=100)
            metrics_logger.log_value("learner_vp", float(info["scores"][info["seat"]]), reduce="mean", window=100)

    return LearnerWinRate


def ppo_config(config):
    """RLlib's ``PPOConfig`` for ``config`` (an ``RLlibConfig``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from .env import FifthAvenueMultiAgentEnv

    model = DefaultModelConfig(fcnet_hiddens=list(config.net_arch), fcnet_activation=config.activation,
                               vf_share_layers=False)
    return (
        PPOConfig()
        .environment(FifthAvenueMultiAgentEnv, env_config=config.env_config())
        .env_runners(num_env_runners=config.num_env_runners, num_envs_per_env_runner=config.num_envs_per_env_runner,
                     rollout_fragment_length="auto", batch_mode=config.batch_mode)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=config.train_batch_size, gamma=config.gamma,
                  vf_clip_param=config.vf_clip_param, use_kl_loss=config.use_kl_loss,
                  **{rllib_name: getattr(config, name) for name, rllib_name in RLLIB_NAMES.items()})
        .multi_agent(policies={MAIN}, policy_mapping_fn=SelfPlayMapping(), policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            MAIN: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)}))
        .callbacks(_learner_win_callback())
        # RLlib reseeds the envs with this seed before every complete-episodes sample (the same games again).
        .debugging(seed=config.seed if config.batch_mode == "truncate_episodes" else None, log_level="ERROR")
    )


class SnapshotPool:
    """The frozen snapshots of ``main`` in an algorithm, oldest first."""

    def __init__(self, algo, config):
        self.algo = algo
        self.config = config
        self.ids = []
        self.last_added = 0

    def add(self, iteration):
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

        algo = self.algo
        module_id = f"main_v{iteration}"
        self.ids.append(module_id)
        main = algo.get_module(MAIN)
        algo.add_module(module_id=module_id, module_spec=RLModuleSpec.from_module(main),
                        new_agent_to_module_mapping_fn=self._mapping())
        algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: main.get_state()}}}})
        # add_module syncs the new module's fresh weights to the env runners; send the copied ones.
        algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                           policies=[module_id], inference_only=True)
        if len(self.ids) > self.config.pool_size:
            algo.remove_module(self.ids.pop(0), new_agent_to_module_mapping_fn=self._mapping())
        self.last_added = iteration

    def restore(self, ids, last_added):
        """Re-create the snapshot modules ``ids`` (weights come with the algorithm state restored afterwards)."""
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

        spec = RLModuleSpec.from_module(self.algo.get_module(MAIN))
        for module_id in ids:
            self.ids.append(module_id)
            self.algo.add_module(module_id=module_id, module_spec=spec, new_agent_to_module_mapping_fn=self._mapping())
        self.last_added = last_added

    def _mapping(self):
        return SelfPlayMapping(self.ids, self.config.pool_fraction, self.config.seed)

    def due(self, iteration, win_rate):
        every = self.config.snapshot_every
        if every and iteration - self.last_added >= every:
            return True
        return (win_rate is not None and win_rate >= self.config.promote_win_rate
                and iteration - self.last_added >= max(1, every // 2))


def _versions(config):
    import ray
    import torch

    import fifthave_env

    return {"fifthave": fifthave_env.__version__, "env_version": config.observation_layout, "ray": ray.__version__,
            "torch": torch.__version__}


def save(algo, config, directory, iteration, env_steps, pool=None):
    """Write RLlib's algorithm state and the playable actor (``fifthave.train.rllib.agent``) to ``directory``, which must
    not exist: all is written to a temporary directory beside it, with its SHA-256 manifest
    (``fifthave.train.manifest``), which is then renamed into place, so a checkpoint is whole or absent and never
    rewritten."""
    from ..export import agent_file_of, write_policy
    from ..policy_agent import ActorNet
    from .agent import actor_modules, save_actor

    directory = os.path.abspath(directory)
    if os.path.exists(directory):
        raise FileExistsError(f"{directory} exists already; a checkpoint is never written over")
    partial = os.path.join(os.path.dirname(directory), f".{os.path.basename(directory)}.tmp-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)  # a leftover of an earlier process with this PID
    try:
        algo.save_to_path(os.path.join(partial, "algorithm"))
        meta = {"iteration": iteration, "env_steps": env_steps, "hidden": list(config.net_arch),
                "activation": config.activation, "config": config.to_dict(), "versions": _versions(config),
                "pool": list(pool.ids) if pool else [], "pool_last_added": pool.last_added if pool else 0}
        module = algo.get_module(MAIN)
        save_actor(module, partial, meta)
        # the file every command plays (numpy alone, nothing unpickled): rllib:DIRECTORY reads DIRECTORY/agent.npz
        write_policy(agent_file_of(partial), ActorNet.from_modules(actor_modules(module)), config.to_dict(),
                     f"rllib@{iteration}", kind="rllib-policy",
                     training={"method": "rllib-ppo", "iteration": iteration, "env_steps": env_steps},
                     versions=meta["versions"])
        write_directory_manifest(partial)
        os.rename(partial, directory)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return directory


def rllib_eval_seed(config):
    """The seed of a run's evaluation tournaments: the same deals at every checkpoint (``eval_seed`` if set)."""
    return config.eval_seed if config.eval_seed is not None else config.seed + 1


def checkpoint_dir(run_dir, iteration):
    return os.path.abspath(os.path.join(run_dir, "checkpoints", f"iter_{iteration:06d}"))


def _evaluate_checkpoint(directory, config, iteration, env_steps, log_path, address):
    from ..evaluate import eval_games_path, evaluate
    from .agent import RLlibFactory

    rows = []
    for opponent in config.eval_opponents:
        result = evaluate(RLlibFactory(directory, config.eval_deterministic, name="rllib"), opponent, config.eval_games, config,
                          seed=rllib_eval_seed(config), backend="ray", address=address,
                          games_path=eval_games_path(os.path.dirname(log_path), f"iter_{iteration:06d}", opponent))
        rows.append({"iteration": iteration, "env_steps": env_steps, **result.row()})
    atomic_append_csv(log_path, EVAL_FIELDS, rows)
    return rows


def _env_runner_nodes(algo):
    if algo.env_runner_group.num_remote_env_runners() == 0:
        return {"driver": 1}
    import ray

    nodes = algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id()[:8],
                                                     local_env_runner=False)
    return dict(collections.Counter(nodes))


def _fmt(value, spec=".2f"):
    return "-" if value is None else format(value, spec)


def build(config, resume=None):
    """The algorithm and its snapshot pool for ``config``; with ``resume`` (a checkpoint directory written by
    ``save``) the pool's modules, the weights, optimizer state, iteration count and env-step count of that
    checkpoint."""
    import torch

    torch.manual_seed(config.seed)  # the initial weights (RLlib seeds nothing with complete_episodes)
    algo = ppo_config(config).build_algo()
    pool = SnapshotPool(algo, config)
    if resume is not None:
        meta = read_checkpoint_meta(resume)
        pool.restore(meta.get("pool", []), meta.get("pool_last_added", 0))
        algo.restore_from_path(os.path.join(os.path.abspath(resume), "algorithm"))
    return algo, pool


def read_checkpoint_meta(directory):
    """``meta.json`` of a checkpoint written by ``save`` to resume from; a clear error if ``directory`` is not
    one, or if its files do not match the manifest ``save`` wrote (checked before any file is read: RLlib's
    restore unpickles, ``fifthave.train.manifest``)."""
    from .agent import load_actor

    if not os.path.isdir(os.path.join(directory, "algorithm")):
        raise ValueError(f"{directory!r} has no RLlib algorithm state to resume from (a fifthave.train.rllib "
                         f"checkpoint holds algorithm/, actor.pt and meta.json)")
    verify_directory(directory)
    _, meta = load_actor(directory)
    if "config" not in meta:
        raise ValueError(f"{directory!r}: its meta.json holds no config to resume with")
    return meta


RUN_FILES = ("config.json", "eval.csv", "eval_games", "cluster.txt", "checkpoints")
"""What a run writes in its directory: any of them marks the directory as used."""


_PARTIAL_RE = re.compile(r"^\.iter_\d+\.tmp-(\d+)$")


def remove_partial_checkpoints(run_dir):
    """Delete the ``.iter_N.tmp-PID`` directories that a killed ``save`` left in ``run_dir/checkpoints`` (those
    whose process is gone or is this one); returns their paths."""
    directory = os.path.join(run_dir, "checkpoints")
    removed = []
    for name in os.listdir(directory) if os.path.isdir(directory) else ():
        match = _PARTIAL_RE.match(name)
        if match and (int(match.group(1)) == os.getpid() or not process_exists(int(match.group(1)))):
            shutil.rmtree(os.path.join(directory, name), ignore_errors=True)
            removed.append(os.path.join(directory, name))
    return removed


def check_run_dir(run_dir, resume=None):
    """Raise ``FileExistsError`` unless ``run_dir`` may take this run: an unused directory, or (with ``resume``,
    a checkpoint directory) the checkpoint's own run when it is that run's newest checkpoint, so that no
    checkpoint, config or evaluation row of another run (or of a later part of this one) is written over."""
    used = [name for name in RUN_FILES if os.path.exists(os.path.join(run_dir, name))
            and not (name == "checkpoints" and not os.listdir(os.path.join(run_dir, name)))]
    if not used:
        return
    checkpoints = os.path.join(os.path.abspath(run_dir), "checkpoints")
    if resume is None or os.path.dirname(os.path.abspath(resume)) != checkpoints:
        raise FileExistsError(f"{run_dir} holds the files of another run ({', '.join(used)}); choose an unused "
                              f"--out" + (" (or --resume that run)" if resume else ""))
    later = sorted(name for name in os.listdir(checkpoints)
                   if name.startswith("iter_") and name > os.path.basename(os.path.abspath(resume)))
    if later:
        raise FileExistsError(f"{run_dir} has checkpoints after {os.path.basename(resume)} ({', '.join(later)}): "
                              f"resume from its newest")



def _print_now(line):
    print(line, flush=True)


def train(config, address=None, num_cpus=None, log=_print_now, resume=None):
    """Run ``config`` (from the checkpoint directory ``resume`` on, if given); returns ``(last checkpoint
    directory, its evaluation rows, seconds of training)`` (evaluations excluded)."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    run_dir = config.run_dir
    remove_partial_checkpoints(run_dir)
    check_run_dir(run_dir, resume)
    if resume is not None:
        read_checkpoint_meta(resume)  # its manifest and files, before Ray starts or anything is written
    ray = init_ray(address, num_cpus=num_cpus if address is None else None)
    os.makedirs(os.path.join(run_dir, "checkpoints"), exist_ok=True)
    atomic_write_text(os.path.join(run_dir, "config.json"), json.dumps(config.to_dict(), indent=1))
    cpus = ray.cluster_resources().get("CPU", 0)
    if config.eval_games and cpus < config.num_env_runners + 1:
        raise ValueError(f"the evaluation games need a CPU beside the {config.num_env_runners} env runners, but "
                         f"the Ray cluster has {cpus:g} CPUs: lower run.workers or add a node")
    algo, pool = build(config, resume)
    cluster_lines = ["Ray nodes:", *node_summary(ray), f"env runners per node: {_env_runner_nodes(algo)}"]
    log("\n".join(cluster_lines))
    eval_log = os.path.join(run_dir, "eval.csv")
    start = time.perf_counter()
    env_steps, rows, directory, eval_seconds = 0, [], None, 0.0
    last = False
    while not last:
        result = algo.train()
        iteration = algo.iteration
        runners = result[ENV_RUNNER_RESULTS]
        env_steps = int(runners[NUM_ENV_STEPS_SAMPLED_LIFETIME])
        win_rate = runners.get("learner_win_rate")
        if pool.due(iteration, win_rate):
            pool.add(iteration)
        seconds = time.perf_counter() - start - eval_seconds
        log(f"iter {iteration:4d}  env steps {env_steps:8d}  {env_steps / seconds:6.0f}/s  learner win rate "
            f"{_fmt(win_rate)}  VP {_fmt(runners.get('learner_vp'), '.1f')}  truncated "
            f"{_fmt(runners.get('truncated_rate'))}  game length {_fmt(runners.get('episode_len_mean'), '.0f')}  "
            f"pool {len(pool.ids)}")
        last = env_steps >= config.total_env_steps or bool(config.max_seconds and seconds >= config.max_seconds)
        if last or (config.checkpoint_every and iteration % config.checkpoint_every == 0):
            directory = save(algo, config, checkpoint_dir(run_dir, iteration), iteration, env_steps, pool)
            if config.eval_games:
                eval_start = time.perf_counter()
                rows = _evaluate_checkpoint(directory, config, iteration, env_steps, eval_log, address)
                eval_seconds += time.perf_counter() - eval_start
                for row in rows:
                    log(f"  vs {row['opponent']}: win rate {row['win_rate']:.3f} "
                        f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}] over {row['games']} games")
    atomic_write_text(os.path.join(run_dir, "cluster.txt"),
                      "\n".join(cluster_lines) + f"\ntraining: {env_steps} env steps in {seconds:.0f} s\n")
    algo.stop()
    return directory, rows, seconds


def best_checkpoint_lines(config):
    """The run's best evaluated checkpoint against each evaluation opponent (``fifthave.train.evaluate.best_evaluation``):
    a long run drifts, and its best checkpoint can beat its last on fresh deals too (results/rllib/README.md)."""
    if not config.eval_games or not os.path.exists(os.path.join(config.run_dir, "eval.csv")):
        return []
    return best_checkpoint_report(read_eval_log(config.run_dir), config.eval_opponents, "iteration",
                                  lambda iteration: checkpoint_dir(config.run_dir, iteration), "rllib",
                                  config.eval_deterministic, config.num_players, rllib_eval_seed(config))
