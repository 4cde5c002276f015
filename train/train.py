"""Train a MaskablePPO agent on ``FifthAvenue-v0`` (or ``-v1``); evaluate, checkpoint and resume as it goes.

Command: ``fifthave train CONFIG`` (``fifthave.train.run``) with a config of method ``ppo``, ``selfplay`` or
``bc``; its flat form, a ``TrainConfig`` (``fifthave.train.config``), is what ``train`` reads, saved as
``RUN_DIR/config.json``. While training, a progress bar shows the steps, the
last evaluation and the recent training win rate; every ``eval_every`` steps the
learner plays ``eval_games`` games against each of ``eval_opponents``
(``fifthave.train.evaluate``) and the win rates with their 95% intervals go to
TensorBoard (``RUN_DIR/tb``, next to sb3's training curves) and to
``RUN_DIR/eval.csv``; every ``checkpoint_every`` steps (and at the end) a
checkpoint is written atomically to ``RUN_DIR/checkpoints``.

Evaluations and checkpoints happen between rollouts (after an update, before the
next rollout), at the first such point at or after each multiple of
``eval_every`` / ``checkpoint_every``; every evaluation point also writes a
checkpoint, so the row of step N in ``eval.csv`` evaluates exactly the weights
of ``ckpt_N``.

Reproducible bit for bit: a checkpoint holds, besides the weights and the
optimizer, every generator (numpy's, torch's, Python's, each game's), every game
in progress with its opponents (``fifthave.train.vec_env`` state), sb3's last observations
and counters, and the self-play pool's state. ``--resume`` continues an
interrupted run from its newest intact checkpoint (a truncated or corrupt newer
one is skipped with a warning naming it) with its saved config
(``--set run.steps=N`` may raise the budget) and gives the same weights and
evaluation table as a run that was never interrupted. It continues in the
directory it is given: a copied or moved run directory resumes where it is
now, with its own pool snapshots (to branch a run: copy it, resume the copy). At the end the evaluation
table, the hash of the final weights and the best evaluated checkpoint against each
opponent (``fifthave.train.evaluate.best_evaluation``, with the tournament that plays it on fresh
deals) are printed.
"""

import csv
import json
import os
import time
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from fifthave_env.engine import checks
from fifthave_env.runtime import atomic_append_csv, atomic_open, atomic_write_text

from .bc import behaviour_cloning
from .checkpoint import (
    CheckpointError,
    checkpoint_path,
    load_module_state,
    load_optimizer_state,
    generator_states,
    latest_checkpoint,
    newest_intact_checkpoint,
    read_meta,
    remove_stale_temporaries,
    restore_generator_states,
    save_checkpoint,
    versions,
    weights_hash,
)
from .export import agent_file_of, write_policy
from .evaluate import EVAL_FIELDS, LEARNER_LABEL, eval_games_path, eval_seed, evaluate
from .league import League
from .opponents import ScriptedOpponents
from .policy_agent import ActorNet, PolicyAgent, policy_spec
from .ppo import PipelinedMaskablePPO
from .selfplay import SelfPlayPool
from .vec_env import FifthAvenueVecEnv

RUN_FILES = ("config.json", "eval.csv", "eval_games", "checkpoints", "pool", "tb")
"""What a run writes in its directory: any of them marks the directory as used."""


def make_vec_env(config):
    """The training games of ``config``: ``n_envs`` games in ``workers`` processes."""
    return FifthAvenueVecEnv(config.n_envs, config.env_kwargs(), ScriptedOpponents(config.opponents),
                             workers=config.workers, advisers=config.advisers,
                             local_shard=config.local_shard)


def _next_multiple(value, every):
    return (value // every + 1) * every if every else None


class RunCallback(BaseCallback):
    """Progress bar, evaluations and checkpoints between rollouts, and the self-play pool."""

    def __init__(self, config, run_dir, pool=None, show_progress=True, resume_state=None):
        super().__init__()
        self.config = config
        self.run_dir = run_dir
        self.pool = pool
        self.show_progress = show_progress
        self.resume_state = resume_state
        self.eval_log = os.path.join(run_dir, "eval.csv")
        self.last_eval = []
        self.games = self.wins = 0
        self.eval_seconds = 0.0
        self.done_at = None  # the step whose evaluation and checkpoint exist already

    def _on_training_start(self):
        t = self.num_timesteps
        self.next_eval = _next_multiple(t, self.config.eval_every)
        self.next_checkpoint = _next_multiple(t, self.config.checkpoint_every)
        self.bar = tqdm(total=self.config.total_timesteps, initial=t, unit="step", mininterval=5,
                        disable=not self.show_progress, dynamic_ncols=True, desc="training")
        if self.pool is not None:
            self.pool.start(self.model)
        state = self.resume_state
        if state is not None:
            self.done_at = t
            if self.pool is not None:
                self.pool.restore(state["pool"], self.model)
            # Last: nothing may draw between here and the first action of the resumed rollout.
            restore_generator_states(state["generators"])

    def _on_rollout_start(self):
        t = self.num_timesteps
        if t == self.done_at:
            return
        evaluate_now = self.config.eval_every and (t == 0 or t >= self.next_eval)
        if evaluate_now or (self.next_checkpoint is not None and t >= self.next_checkpoint):
            self.evaluate_and_save(evaluate_now)

    def evaluate_and_save(self, evaluate_now):
        """Evaluate (if asked) and checkpoint the current weights, both labelled with the current step."""
        t = self.num_timesteps
        if evaluate_now:
            self.run_evaluation()  # before the checkpoint: a crash in between re-evaluates on resume
            self.next_eval = _next_multiple(t, self.config.eval_every)
        self.save()
        self.next_checkpoint = _next_multiple(t, self.config.checkpoint_every)
        self.done_at = t

    def _on_step(self):
        self.bar.update(self.num_timesteps - self.bar.n)
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "winners" in info:
                won = info["learner_seat"] in info["winners"] and not info["truncated"]
                self.games += 1
                self.wins += won
                if self.pool is not None:
                    self.pool.record_game(won, info)
        if self.pool is not None:
            reason = self.pool.maybe_snapshot(self.model)
            if reason:
                tqdm.write(f"[{self.num_timesteps}] snapshot joins the pool ({reason}); "
                           f"pool size {len(self.pool.paths)}")
        return True

    def _on_rollout_end(self):
        if self.pool is not None:
            self.pool.log(self.logger)
        if self.games:
            self.logger.record("train/win_rate_recent_games", self.wins / self.games)
            self.games = self.wins = 0

    def run_evaluation(self):
        started = time.perf_counter()
        cfg = self.config
        net = ActorNet(self.model.policy)  # a snapshot of the current weights, shared by the games
        meta = {"config": cfg.to_dict()}  # its advisers and observation layout, as a checkpoint's agent has them

        def make_agent():
            return PolicyAgent(net, deterministic=cfg.eval_deterministic, name=LEARNER_LABEL, meta=meta)
        rows = []
        for opponent in cfg.eval_opponents:
            # The same evaluation deals at every point, so successive rows differ only by the policy.
            result = evaluate(make_agent, opponent, cfg.eval_games, cfg, seed=eval_seed(cfg),
                              games_path=eval_games_path(self.run_dir, f"step_{self.num_timesteps:09d}", opponent))
            row = {"timesteps": self.num_timesteps, **result.row()}
            rows.append(row)
            self.logger.record(f"eval/win_rate_vs_{opponent}", row["win_rate"])
            self.logger.record(f"eval/win_rate_ci_low_vs_{opponent}", row["ci_low"])
            self.logger.record(f"eval/win_rate_ci_high_vs_{opponent}", row["ci_high"])
            self.logger.record(f"eval/mean_vp_vs_{opponent}", row["mean_vp"])
            self.logger.record(f"eval/mean_rank_vs_{opponent}", row["mean_rank"])
            self.logger.record(f"eval/truncated_vs_{opponent}", row["truncated"])
        self.logger.dump(self.num_timesteps)
        atomic_append_csv(self.eval_log, EVAL_FIELDS, rows)
        self.last_eval = rows
        self.eval_seconds += time.perf_counter() - started
        self.bar.set_postfix_str(" ".join(f"{r['opponent']}:{r['win_rate']:.2f}" for r in rows))
        tqdm.write(f"[{self.num_timesteps}] " + "  ".join(
            f"vs {r['opponent']}: {r['win_rate']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]" for r in rows))

    def run_state(self):
        """What a resumed run needs besides the model's own files; see the module docstring."""
        pool = self.pool.state() if self.pool is not None else None
        return {"generators": generator_states(), "games": self.model.get_env().get_state(), "pool": pool,
                "sb3": sb3_state(self.model)}

    def save(self):
        extra = {"pool": self.pool.paths if self.pool is not None else [], "run_state": self.run_state(),
                 "weights_sha256": weights_hash(self.model.policy)}
        path = checkpoint_path(self.run_dir, self.num_timesteps)
        save_checkpoint(self.model, path, self.config, extra)
        # the file every command plays (numpy alone, nothing unpickled): ckpt_N.npz beside ckpt_N.zip
        write_policy(agent_file_of(path), ActorNet(self.model.policy), self.config.to_dict(),
                     f"ppo@{self.num_timesteps}", training={"method": "sb3-maskableppo", "num_timesteps": self.num_timesteps,
                               "exported_from": os.path.basename(path)}, versions=versions(self.config))

    def _on_training_end(self):
        if self.num_timesteps != self.done_at:
            self.evaluate_and_save(evaluate_now=True)
        self.bar.close()


def _trim_eval_log(path, up_to):
    """Drop evaluation rows written after the checkpoint a run resumes from."""
    if not os.path.exists(path):
        return
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["timesteps"]) <= up_to]
    with atomic_open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def new_model(config, env):
    """A new MaskablePPO model for ``config`` on ``env``, with freshly initialised weights."""
    policy_class, policy_kwargs = policy_spec(config)
    model = PipelinedMaskablePPO(
        policy_class, env, n_steps=config.n_steps,
        batch_size=config.batch_size, n_epochs=config.n_epochs,
        learning_rate=config.learning_rate, gamma=config.gamma, gae_lambda=config.gae_lambda,
        clip_range=config.clip_range, ent_coef=config.ent_coef, vf_coef=config.vf_coef,
        max_grad_norm=config.max_grad_norm, seed=config.seed, device="cpu", verbose=0,
        policy_kwargs=policy_kwargs,
        tensorboard_log=os.path.join(config.run_dir, "tb"))
    model.update_threads = config.torch_threads
    return model


def load_weights(model, path):
    """The policy's weights and Adam's state from the checkpoint at ``path`` into ``model`` (built for the same
    network), read weights-only and checked (``fifthave.train.checkpoint``); ``CheckpointError`` if they do not fit."""
    load_module_state(model.policy, path)
    load_optimizer_state(model.policy.optimizer, path)


def build_model(config, env):
    """A new MaskablePPO model for ``config`` on ``env``, starting from ``config.init_from`` if set."""
    model = new_model(config, env)
    if config.init_from is not None:
        read_meta(config.init_from)  # a missing or damaged file is named before its members are read
        load_weights(model, config.init_from)
    return model


def sb3_state(model):
    """sb3's counters that a resumed rollout needs (the episode starts enter the advantages) or logs, as JSON."""
    return {"n_updates": int(model._n_updates), "episode_starts": [bool(b) for b in model._last_episode_starts],
            "ep_info_buffer": [{key: float(value) for key, value in info.items()} for info in model.ep_info_buffer]}


def restore_sb3_state(model, state):
    """Put back what ``sb3_state`` returned, checked first (so a refusal changes nothing)."""
    state = checks.mapping("run_state.sb3", state, ("n_updates", "episode_starts", "ep_info_buffer"))
    n_updates = checks.integer("run_state.sb3.n_updates", state["n_updates"], 0)
    starts = [checks.boolean(f"run_state.sb3.episode_starts[{i}]", b) for i, b in
              enumerate(checks.sequence("run_state.sb3.episode_starts", state["episode_starts"], model.n_envs))]
    infos = checks.sequence("run_state.sb3.ep_info_buffer", state["ep_info_buffer"])
    if len(infos) > model._stats_window_size:
        raise ValueError(f"run_state.sb3.ep_info_buffer holds at most {model._stats_window_size} episodes, "
                         f"got {len(infos)}")
    infos = [{key: checks.real(f"run_state.sb3.ep_info_buffer[{i}].{key}", value) for key, value in
              checks.mapping(f"run_state.sb3.ep_info_buffer[{i}]", info, ("r", "l", "t")).items()}
             for i, info in enumerate(infos)]
    model._n_updates = n_updates
    model._last_episode_starts = np.array(starts)
    model.ep_info_buffer = deque(infos, maxlen=model._stats_window_size)  # learn() keeps buffers that exist
    model.ep_success_buffer = deque(maxlen=model._stats_window_size)


def resume_model(config, env, checkpoint, meta):
    """The model of ``checkpoint`` (``meta``: its ``read_meta``) on ``env`` with its games restored: built new from
    ``config``, then its weights, Adam's state, sb3's counters and the games in progress from the checkpoint.
    Nothing of the checkpoint is unpickled; anything that does not fit raises ``CheckpointError``."""
    state = meta.get("run_state")
    if not isinstance(state, dict) or "sb3" not in state:
        raise CheckpointError(f"{checkpoint} holds no run state that this version reads (games in progress, "
                              "generators, sb3's counters), so the run cannot continue exactly; start a new run "
                              "from its policy with --init-from")
    model = new_model(config, env)
    load_weights(model, checkpoint)
    try:
        checks.mapping("run_state", state, ("generators", "games", "pool", "sb3"))
        restore_sb3_state(model, state["sb3"])
        current = generator_states()  # a trial restore checks the saved ones now, before the run directory changes
        restore_generator_states(state["generators"])
        restore_generator_states(current)  # they are put back for real when training starts (RunCallback)
        env._reset_seeds()  # building the model seeded the env for a reset that a resumed run does not do
        model._last_obs = env.set_state(state["games"])
    except (ValueError, RuntimeError) as err:  # RuntimeError: a worker process refused the games
        raise CheckpointError(f"{checkpoint}: its run state does not restore: {err}") from err
    model.num_timesteps = meta["num_timesteps"]
    return model


@dataclass
class TrainResult:
    model: MaskablePPO
    steps: int
    """Env steps taken by this call (fewer than ``total_timesteps`` after a resume)."""
    wall_seconds: float
    eval_seconds: float
    """Part of ``wall_seconds`` spent in evaluation games."""
    weights_sha256: str
    """SHA-256 of the final weights (``fifthave.train.checkpoint.weights_hash``): equal for equal runs."""

    @property
    def steps_per_second(self):
        """Training throughput: env steps per second of training time (evaluation excluded)."""
        return self.steps / max(self.wall_seconds - self.eval_seconds, 1e-9)


def relocated(paths, saved_run_dir, run_dir):
    """The run's own pool snapshots, saved under ``saved_run_dir``, in ``run_dir`` (where a copied or moved
    run continues); other paths unchanged."""
    saved_pool = os.path.normpath(os.path.join(saved_run_dir, "pool"))
    return [os.path.join(run_dir, "pool", os.path.basename(path))
            if os.path.normpath(os.path.dirname(path)) == saved_pool else path for path in paths]


def train(config, resume=False, show_progress=True):
    """Run (or resume) the training ``config`` describes."""
    started = time.perf_counter()  # the wall time includes starting the workers and loading a checkpoint
    run_dir = config.run_dir
    torch.set_num_threads(1)  # the rollout's forward passes; the update uses config.torch_threads
    if latest_checkpoint(run_dir) is not None and not resume:
        raise FileExistsError(f"{run_dir} already holds checkpoints; pass --resume to continue that run "
                              f"or choose another --out")
    used = [name for name in RUN_FILES if os.path.exists(os.path.join(run_dir, name))]
    if used and not resume:  # a run that stopped before its first checkpoint: never written over silently
        raise FileExistsError(f"{run_dir} holds the files of another run ({', '.join(used)}); choose another "
                              f"--out or remove that one")
    for directory in ("checkpoints", "pool"):  # what a killed writer left behind
        remove_stale_temporaries(os.path.join(run_dir, directory))
    checkpoint, meta = newest_intact_checkpoint(run_dir) if resume else (None, None)
    if resume and checkpoint is None and latest_checkpoint(run_dir) is not None:
        raise CheckpointError(f"--resume: no checkpoint in {os.path.join(run_dir, 'checkpoints')} is intact "
                              f"(each is named in a warning above with what is wrong)")
    if resume and checkpoint is None:  # never a fresh run in its place
        raise CheckpointError(f"--resume: {run_dir} holds no checkpoint to resume from; start a new run "
                              f"without --resume")
    env = make_vec_env(config)
    pool_paths, state = [], None
    try:
        # The model first: a checkpoint that does not load is refused before the run directory changes.
        model = resume_model(config, env, checkpoint, meta) if checkpoint is not None else build_model(config, env)
        atomic_write_text(os.path.join(run_dir, "config.json"), json.dumps(config.to_dict(), indent=2))
        if checkpoint is not None:
            state = meta["run_state"]
            pool_paths = relocated(meta.get("pool", []), str(meta["config"].get("run_dir", run_dir)), run_dir)
            _trim_eval_log(os.path.join(run_dir, "eval.csv"), model.num_timesteps)
            tqdm.write(f"resuming {run_dir} from {checkpoint} ({model.num_timesteps} steps)")
        else:
            _trim_eval_log(os.path.join(run_dir, "eval.csv"), -1)
            if config.bc is not None:
                report = behaviour_cloning(config, model, log=tqdm.write)
                atomic_write_text(os.path.join(run_dir, "bc.json"), json.dumps(report, indent=2))
        pool = None
        if config.selfplay is not None:
            pool = SelfPlayPool(config, run_dir, pool_paths)
        elif config.league is not None:
            pool = League(config, run_dir, pool_paths)
        callback = RunCallback(config, run_dir, pool, show_progress, resume_state=state)
        start_steps = model.num_timesteps
        remaining = config.total_timesteps - start_steps
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=checkpoint is None, tb_log_name="ppo")
        elif checkpoint is None:  # cloning only (total_timesteps 0): evaluate and save the clone as step 0
            model._setup_learn(0, callback=None, tb_log_name="ppo")
            callback.init_callback(model)
            callback.on_training_start(locals(), globals())
            callback.evaluate_and_save(evaluate_now=bool(config.eval_every))
            callback.bar.close()
    finally:
        env.close()
    return TrainResult(model, model.num_timesteps - start_steps, time.perf_counter() - started,
                       callback.eval_seconds, weights_hash(model.policy))
