"""Many ``FifthAvenue-v0`` (or ``-v1``) games as one sb3 ``VecEnv``, with opponent policies answered in batches.

``FifthAvenueVecEnv(n_envs, env_kwargs, opponents, workers)`` splits the games into
shards, one per worker process (``workers=0``: a single shard in this process). A
shard advances each game until its learner is asked. Scripted opponents act as in
``FifthAvenueEnv``; an opponent with a ``batch_net`` (``fifthave.train.policy_agent.PolicyAgent``:
frozen self-play snapshots) does not act alone: the shard stacks the observations of
all its games waiting on the same network, runs that network once, and gives each
agent its row of logits (``agent.choose``), so the agent draws from its own
generator exactly as ``act`` would. The network's first layer is updated from each
seat's last observation in its game (``ActorNet.logits_tracked``: only the rows of
the values that changed), which takes about a quarter off the time of games with
snapshot opponents.

Pipelining: ``step_async_shard(k, actions)`` / ``step_wait_shard(k)`` step one shard,
so the learner can choose the actions of one shard while the others step (what
``fifthave.train.ppo.PipelinedMaskablePPO`` does). ``step_async`` / ``step_wait`` step all.
After ``set_learner_policy(policy)`` (a CPU torch policy, sent to every shard), a
shard step started with ``forward=True`` also runs that policy on the learner's new
observations (``fifthave.train.policy_forward.RolloutForward``), so the forward passes of the
learner's next moves run in the workers, next to the games, and the learner's
process only draws the moves; ``worker_seconds()`` tells how long the shards spent
on games and on those forward passes. With ``local_shard``, one more shard steps in
this process, when its actions are sent (after the workers got theirs): with one
worker, the two cores step games while no third process competes for them.

sb3 conventions: games reset themselves when they end, the last observation in
``info["terminal_observation"]``, ``info["TimeLimit.truncated"]``, and
``info["episode"]`` (return, length, time) as sb3's ``Monitor`` writes it. The
learner's action masks travel with the observations, so ``env_method("action_masks")``
(what ``MaskablePPO`` calls) answers without a round trip to the workers.

State: ``get_state()`` returns, for every game in progress, how it started (the env
generator's state, the opponent sampler) and every move since (learner's and
opponents'), the env generators and the episode counters, as JSON-compatible data
(the samplers as ``fifthave.train.opponents`` describes them: nothing is pickled, as a
checkpoint is untrusted input); ``set_state`` checks every field, then replays the
moves, asking each opponent to act on the way so its own state and generator
advance as they did (a policy opponent through the same first-layer updates, so its
rounding goes on as it would have), and checks the result against the saved
``Game.to_dict()``. Replaying the recorded moves, rather than the opponents' choices,
keeps a resumed run exact even where a batched matrix product rounds differently
from a single one.
"""

import multiprocessing
import os
import time
import traceback

import numpy as np
import torch
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from fifthave_env.agent_protocol import act, observation_layout
from fifthave_env.engine import checks
from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.gym_env import FifthAvenueEnv
from fifthave_env.observation import OBS_SIZES
from fifthave_env.runtime import die_with_parent

from .hints import Advisers, advised_observation_space
from .opponents import opponents_from_data, opponents_to_data
from .policy_forward import RolloutForward


def _batched(agent):
    return getattr(agent, "batch_net", None) is not None


class _RecordingEnv(FifthAvenueEnv):
    """``FifthAvenueEnv`` that remembers every move of the current game (for ``get_state``)."""

    moves = ()

    def _start_game(self, seed):
        self.moves = []
        super()._start_game(seed)

    def _play_opponent_action(self, seat, action):
        super()._play_opponent_action(seat, action)
        self.moves.append(int(action))

    def _play_learner_action(self, action):
        result = super()._play_learner_action(action)
        if result is None:
            self.moves.append(int(action))
        return result


class GameShard:
    """Games stepped together in one process; see the module docstring."""

    def __init__(self, count, env_kwargs, opponents, advisers=()):
        self.envs = [_RecordingEnv(**env_kwargs, opponents=opponents) for _ in range(count)]
        # the learner's advisers per game (``fifthave.train.hints``): their advice follows its observation
        self.advisers = [Advisers(advisers) for _ in range(count)] if advisers else None
        size = self.envs[0].observation_space.shape[0] + (self.advisers[0].size if advisers else 0)
        self.obs = np.zeros((count, size), dtype=np.float32)
        self.masks = np.zeros((count, NUM_ACTIONS), dtype=bool)
        self.seeds = [None] * count
        self.starts = [None] * count  # per game: (seed or None, generator state or None, opponent sampler)
        self.returns = [0.0] * count
        self.lengths = [0] * count
        self.started_at = [time.time()] * count
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self.forward = None  # the learner policy's forward passes when they run here (``set_learner_policy``)
        self._memories = {}  # (game, seat) -> (policy opponent, its ActorNet.logits_tracked memory) in this game
        self.seconds = {"games": 0.0, "learner_forward": 0.0}

    # ---- playing ---------------------------------------------------------------------------

    def _start(self, i):
        env = self.envs[i]
        seed, self.seeds[i] = self.seeds[i], None
        state = None if seed is not None else env.np_random.bit_generator.state
        self.starts[i] = (seed, state, env.opponent_spec)
        env._start_game(seed)
        for seat in range(env.config.num_players):
            self._memories.pop((i, seat), None)
        if self.advisers is not None:
            self.advisers[i].reset(env.config, env.learner_seat, env.np_random)
        self.returns[i], self.lengths[i], self.started_at[i] = 0.0, 0, time.time()

    def _settle(self, indices):
        """Play the opponents of games ``indices`` until every learner is asked or its game is over."""
        waiting = list(indices)
        while waiting:
            requests = []
            for i in waiting:
                seat = self.envs[i]._play_opponents(defer=_batched)
                if seat is not None:
                    requests.append((i, seat))
            self._answer(requests)
            waiting = [i for i, _ in requests]

    def _answer(self, requests):
        """Play the moves of the policy opponents waiting in ``requests`` ((game, seat) pairs)."""
        for i, seat, action in self._policy_moves(requests):
            self.envs[i]._play_opponent_action(seat, action)

    def _policy_moves(self, requests):
        """(game, seat, action) for ``requests``: one forward pass per network, each seat's first layer updated from
        its last observation in this game (``ActorNet.logits_tracked``)."""
        by_net = {}
        for i, seat in requests:
            agent = self.envs[i]._opponents[seat]
            by_net.setdefault(id(agent.batch_net), []).append((i, seat, agent))
        moves = []
        for group in by_net.values():
            # each opponent's observation in the layout it reads (its network's input)
            size = OBS_SIZES[observation_layout(group[0][2])]  # one network, one layout
            stack = np.empty((len(group), size), np.float32)
            memories = []
            for row, (i, seat, agent) in enumerate(group):
                self.envs[i]._opponent_observations.observe(self.envs[i].game, seat, out=stack[row])
                memory = self._memories.get((i, seat))
                if memory is None or memory[0] is not agent:  # a new game or a new opponent there
                    memory = self._memories[(i, seat)] = (agent, [None, None])
                memories.append(memory[1])
            logits = group[0][2].batch_net.logits_tracked(stack, memories)
            for row, (i, seat, agent) in enumerate(group):
                env = self.envs[i]
                try:
                    action = agent.choose(logits[row], env.game.legal_actions())
                except Exception as err:
                    env._fail(f"opponent {env._opponent_name(agent)} at seat {seat} raised "
                              f"{type(err).__name__}: {err}", err)
                moves.append((i, seat, action))
        return moves

    def _read(self, i, observation):
        self.masks[i] = self.envs[i].action_masks()
        if self.advisers is not None:
            observation = self.advisers[i].features(observation, self.masks[i])
        self.obs[i] = observation

    def reset(self):
        indices = range(len(self.envs))
        for i in indices:
            self._start(i)
        self._settle(indices)
        for i in indices:
            self._read(i, self.envs[i]._observe())
        return self.obs.copy(), self.masks.copy()

    def step(self, actions):
        started = time.perf_counter()
        try:
            return self._step(actions)
        finally:
            self.seconds["games"] += time.perf_counter() - started

    def step_forward(self, actions):
        """``step``, then the learner policy's logits and values for the new observations (as numpy arrays)."""
        result = self.step(actions)
        started = time.perf_counter()
        logits, values = self.forward(result[0])
        self.seconds["learner_forward"] += time.perf_counter() - started
        return (*result, logits, values)

    def _step(self, actions):
        count = len(self.envs)
        results = [None] * count
        for i, env in enumerate(self.envs):
            if self.advisers is not None:
                self.advisers[i].record(int(actions[i]))
            results[i] = env._play_learner_action(actions[i])
        self._settle([i for i in range(count) if results[i] is None])
        rewards = np.zeros(count, dtype=np.float32)
        dones = np.zeros(count, dtype=bool)
        infos = [None] * count
        restarted = []
        for i, env in enumerate(self.envs):
            observation, reward, terminated, truncated, info = results[i] or env._step_result()
            self.returns[i] += reward
            self.lengths[i] += 1
            rewards[i] = reward
            infos[i] = info
            if terminated or truncated:
                dones[i] = True
                if self.advisers is not None:  # no decision left: an empty advice block
                    observation = np.concatenate([observation, np.zeros(self.advisers[i].size, np.float32)])
                info["terminal_observation"] = observation.copy()
                info["TimeLimit.truncated"] = truncated and not terminated
                info["episode"] = {"r": self.returns[i], "l": self.lengths[i],
                                   "t": round(time.time() - self.started_at[i], 6)}
                self._start(i)
                restarted.append(i)
            else:
                self._read(i, observation)
        self._settle(restarted)
        for i in restarted:
            self._read(i, self.envs[i]._observe())
        return self.obs.copy(), rewards, dones, infos, self.masks.copy()

    def observations(self):
        return self.obs.copy(), self.masks.copy()

    # ---- settings ----------------------------------------------------------------------------

    def set_policy(self, policy_class, parameters):
        with torch.random.fork_rng(devices=[]):  # its random initial weights, soon replaced, draw from a copy:
            policy = policy_class(**parameters)  # a shard in the learner's process leaves its generator alone
        policy.set_training_mode(False)
        self.forward = RolloutForward(policy)

    def load_weights(self, weights):
        self.forward.policy.load_state_dict({name: torch.from_numpy(value) for name, value in weights.items()})
        self.forward.refresh()

    def worker_seconds(self):
        return dict(self.seconds)

    def seed(self, seeds):
        self.seeds = list(seeds)

    def get_attr(self, name):
        return [getattr(env, name) for env in self.envs]

    def set_attr(self, name, value):
        for env in self.envs:
            setattr(env, name, value)

    def env_method(self, name, args, kwargs):
        return [getattr(env, name)(*args, **kwargs) for env in self.envs]

    # ---- state -------------------------------------------------------------------------------

    def get_state(self):
        games = []
        for i, env in enumerate(self.envs):
            seed, start_state, spec = self.starts[i]
            games.append({
                "seed": seed, "start_generator": start_state, "opponents": opponents_to_data(spec),
                "moves": list(env.moves), "score_before": env._score_before, "episode_return": self.returns[i],
                "episode_length": self.lengths[i], "game": env.game.to_dict(),
                "generator": env.np_random.bit_generator.state,
                "current_opponents": opponents_to_data(env.opponent_spec),
            })
        return games

    def set_state(self, games):
        checks.sequence("the saved games", games, len(self.envs))
        games = [_checked_game(f"games[{i}]", saved) for i, saved in enumerate(games)]  # all, before any change
        for i, (env, saved) in enumerate(zip(self.envs, games)):
            env.set_opponents(saved["opponents"])
            if saved["seed"] is None:
                env.np_random = _generator(saved["start_generator"])
            self.seeds[i] = saved["seed"]
            self._start(i)
            self._replay(i, env, saved["moves"])
            if env.game.to_dict() != saved["game"]:
                raise ValueError(f"game {i} of the saved state does not replay to its saved position: "
                                 "the checkpoint is damaged or was written by other code")
            env._score_before = saved["score_before"]
            env.np_random = _generator(saved["generator"])
            env.set_opponents(saved["current_opponents"])
            self.returns[i], self.lengths[i] = saved["episode_return"], saved["episode_length"]
            self._read(i, env._observe())

    def _replay(self, i, env, moves):
        game = env.game
        for action in moves:
            if game.is_over:
                raise ValueError("the saved moves go on after the end of the game")
            seat = game.actor
            if seat != env.learner_seat:
                # The opponent acts as it did, so its state, generator and first-layer memory advance; the
                # recorded move is played.
                if _batched(env._opponents[seat]):
                    self._policy_moves([(i, seat)])
                else:
                    act(env._opponents[seat], game, seat, env._opponent_observations, self._mask)
            elif self.advisers is not None:  # the learner's advisers advance the same way
                self.advisers[i].features(env._observer.observe(game, seat), game.action_mask(self._mask))
                self.advisers[i].record(int(action))
            game.apply(action)
        env.moves = list(moves)


# ---- the saved games, checked -------------------------------------------------------------------

_GAME_KEYS = ("seed", "start_generator", "opponents", "moves", "score_before", "episode_return", "episode_length",
              "game", "generator", "current_opponents")


def _generator(state):
    """A numpy ``Generator`` in the saved ``bit_generator.state`` ``state``; ``ValueError`` for one it refuses."""
    generator = np.random.Generator(np.random.PCG64())
    try:
        generator.bit_generator.state = state
    except (TypeError, ValueError, KeyError) as err:
        raise ValueError(f"not the state of a PCG64 generator ({err}): {checks.shown(state)}") from err
    return generator


def _checked_game(name, saved):
    """One game of ``get_state``'s data with its fields checked and its samplers rebuilt (``fifthave.train.opponents``);
    what only replaying can check (the moves, the position) ``set_state`` checks."""
    checks.mapping(name, saved, _GAME_KEYS)
    game = dict(saved)
    game["seed"] = checks.seed(f"{name}.seed", saved["seed"])
    if game["seed"] is None:
        _generator(saved["start_generator"])
    _generator(saved["generator"])
    game["moves"] = [checks.integer(f"{name}.moves[{k}]", move, 0, NUM_ACTIONS - 1)
                     for k, move in enumerate(checks.sequence(f"{name}.moves", saved["moves"]))]
    game["score_before"] = checks.integer(f"{name}.score_before", saved["score_before"])
    game["episode_return"] = checks.real(f"{name}.episode_return", saved["episode_return"])
    game["episode_length"] = checks.integer(f"{name}.episode_length", saved["episode_length"], 0)
    checks.mapping(f"{name}.game", saved["game"])
    for key in ("opponents", "current_opponents"):
        game[key] = opponents_from_data(f"{name}.{key}", saved[key])
    return game


# ---- worker processes ------------------------------------------------------------------------------

def _limit_threads():
    """One thread for numpy's BLAS and torch here: batched forwards are small, and the cores are shared."""
    import torch
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
    torch.set_num_threads(1)


def _work(connection, count, env_kwargs, opponents, advisers):
    die_with_parent(os.getppid())  # the fork server, which ends with the training process; Ctrl-C is the trainer's
    _limit_threads()
    shard = GameShard(count, env_kwargs, opponents, advisers)
    while True:
        command, data = connection.recv()
        if command == "close":
            connection.close()
            return
        try:
            connection.send(("ok", getattr(shard, command)(*data)))
        except Exception as err:  # reported to the main process, which raises it
            connection.send(("error", f"{type(err).__name__}: {err}\n{traceback.format_exc()}"))


class _Worker:
    def __init__(self, context, count, env_kwargs, opponents, advisers):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_work, args=(child, count, env_kwargs, opponents, advisers),
                                       daemon=True)
        self.process.start()
        child.close()
        self.in_flight = False  # a command sent whose answer was not read yet
        self.stashed = None  # its answer, read early by ``call``

    def send(self, command, *data):
        self.connection.send((command, data))
        self.in_flight = True

    def _read(self):
        status, value = self.connection.recv()
        if status == "error":
            raise RuntimeError(f"a game worker failed: {value}")
        return value

    def receive(self):
        value = self.stashed if self.stashed is not None else self._read()
        self.stashed, self.in_flight = None, False
        return value

    def call(self, command, *data):
        """Run ``command`` now; an answer still on its way (a step) is kept for ``receive``."""
        if self.in_flight and self.stashed is None:
            self.stashed = self._read()
        self.connection.send((command, data))
        return self._read()


class _Local:
    """A shard in this process with the worker interface."""

    def __init__(self, count, env_kwargs, opponents, advisers):
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")  # batched numpy forwards: more BLAS threads only contend
        self.shard = GameShard(count, env_kwargs, opponents, advisers)
        self.pending = None

    def send(self, command, *data):
        self.pending = getattr(self.shard, command)(*data)

    def receive(self):
        value, self.pending = self.pending, None
        return value

    def call(self, command, *data):
        return getattr(self.shard, command)(*data)


class FifthAvenueVecEnv(VecEnv):
    """``n_envs`` games of ``FifthAvenueEnv(**env_kwargs, opponents=opponents)`` in ``workers`` processes (0:
    in this one), plus a shard in this process with ``local_shard``; see the module docstring."""

    def __init__(self, n_envs, env_kwargs, opponents, workers=2, advisers=(), local_shard=False):
        if workers < 0:
            raise ValueError(f"workers must be 0 (games in this process) or more, got {workers}")
        local = workers == 0 or local_shard
        shards = max(1, min(workers + (local and workers > 0), n_envs))
        sizes = [n_envs // shards + (k < n_envs % shards) for k in range(shards)]
        self.slices = []
        start = 0
        for size in sizes:
            self.slices.append(slice(start, start + size))
            start += size
        self.shards = []
        if shards > local:
            # Workers fork from a server process that imported this module once (fast starts, and no
            # torch threads inherited from this process).
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([__name__])
            self.shards = [_Worker(context, size, env_kwargs, opponents, advisers) for size in sizes[:shards - local]]
        if local:  # last: it steps when its actions are sent, after the workers got theirs
            self.shards.append(_Local(sizes[-1], env_kwargs, opponents, advisers))
        model = FifthAvenueEnv(**env_kwargs)  # its spaces (the observation layout decides the size)
        super().__init__(n_envs, advised_observation_space(model.observation_space, advisers), model.action_space)
        self.masks = np.zeros((n_envs, NUM_ACTIONS), dtype=bool)
        self._actions = None
        self._learner_policy = None  # the policy whose copies the shards hold
        self.closed = False

    # ---- sb3 VecEnv ------------------------------------------------------------------------------

    def reset(self):
        seeds = self._seeds
        for shard, part in zip(self.shards, self.slices):
            shard.send("seed", seeds[part])
            shard.receive()
            shard.send("reset")
        observations = []
        for k, shard in enumerate(self.shards):
            obs, masks = shard.receive()
            observations.append(obs)
            self.masks[self.slices[k]] = masks
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(observations)

    def step_async_shard(self, k, actions, forward=False):
        """Start stepping shard ``k`` (games ``self.slices[k]``) with the learner's ``actions`` for them; with
        ``forward``, the shard then runs the learner's policy (``set_learner_policy``) on its new observations."""
        self.shards[k].send("step_forward" if forward else "step", np.asarray(actions))

    def step_wait_shard(self, k):
        """Observations, rewards, dones, infos and masks of shard ``k`` once its step is done, then the logits and
        values of the learner's policy if the step was started with ``forward``."""
        result = self.shards[k].receive()
        self.masks[self.slices[k]] = result[4]
        return result

    def set_learner_policy(self, policy):
        """Send the learner's ``policy`` (an sb3 policy on the CPU, with its weights as they are now) to every
        shard, for the forward passes of ``step_async_shard(..., forward=True)``."""
        if policy is not self._learner_policy:  # a copy is built in each shard once, then gets new weights
            for shard in self.shards:
                shard.call("set_policy", type(policy), policy._get_constructor_parameters())
            self._learner_policy = policy
        weights = {name: value.detach().numpy().copy() for name, value in policy.state_dict().items()}
        for shard in self.shards:
            shard.call("load_weights", weights)

    def worker_seconds(self):
        """Seconds the shards spent stepping games and running the learner's forward passes, summed."""
        total = {"games": 0.0, "learner_forward": 0.0}
        for shard in self.shards:
            for key, value in shard.call("worker_seconds").items():
                total[key] += value
        return total

    def step_async(self, actions):
        self._actions = actions
        for k, part in enumerate(self.slices):
            self.step_async_shard(k, actions[part])

    def step_wait(self):
        results = [self.step_wait_shard(k) for k in range(len(self.shards))]
        return (np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results]),
                np.concatenate([r[2] for r in results]), [info for r in results for info in r[3]])

    def action_masks(self):
        return self.masks.copy()

    def close(self):
        if self.closed:
            return
        self.closed = True
        for shard in self.shards:
            if isinstance(shard, _Worker):
                try:
                    shard.send("close")
                except (BrokenPipeError, OSError):
                    pass
                shard.process.join(timeout=5)
                if shard.process.is_alive():
                    shard.process.terminate()

    def _targets(self, indices):
        """(shard, positions in that shard) for the env ``indices``."""
        indices = self._get_indices(indices)
        for shard, part in zip(self.shards, self.slices):
            mine = [i - part.start for i in indices if part.start <= i < part.stop]
            if mine:
                yield shard, mine

    def get_attr(self, attr_name, indices=None):
        found = []
        for shard, mine in self._targets(indices):
            values = shard.call("get_attr", attr_name)
            found.extend(values[i] for i in mine)
        return found

    def set_attr(self, attr_name, value, indices=None):
        if indices is not None and list(self._get_indices(indices)) != list(range(self.num_envs)):
            raise NotImplementedError("set_attr sets the attribute in every game")
        for shard in self.shards:
            shard.call("set_attr", attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            return list(self.masks[self._get_indices(indices)])
        found = []
        for shard, mine in self._targets(indices):
            values = shard.call("env_method", method_name, method_args, method_kwargs)
            found.extend(values[i] for i in mine)
        return found

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._get_indices(indices))

    # ---- state -------------------------------------------------------------------------------------

    def get_state(self):
        """Every game in progress and its generators, as JSON-compatible data (see the module docstring)."""
        return [game for shard in self.shards for game in shard.call("get_state")]

    def set_state(self, games):
        """Continue exactly from ``get_state()``'s ``games``; the observations of the restored games."""
        checks.sequence("the saved games", games, self.num_envs)
        for shard, part in zip(self.shards, self.slices):
            shard.call("set_state", games[part])
        observations = []
        for k, shard in enumerate(self.shards):
            obs, masks = shard.call("observations")
            observations.append(obs)
            self.masks[self.slices[k]] = masks
        return np.concatenate(observations)
