"""Fifth Avenue as an RLlib ``MultiAgentEnv`` (new API stack), a thin adapter over ``fifth_avenue_v0`` / ``v1``.

## Description

The AEC game of ``fifthave_env.fifth_avenue_v0`` (or ``fifth_avenue_v1``, see
``observation_layout``), turn by turn: every step
returns the observation of the one agent asked next, and that agent's action
is the only one read. Opponent seats can be played inside the env by scripted
agents (``agents``: random, greedy, heuristic, or any name of
``fifthave.agents.tournament.agent_factory``), so RLlib sees only the seats its modules
play. They are seated as in a tournament (``fifthave_env.agent_protocol``): each
reads its own ``observation_layout``, a searching agent gets its seat's sampler.

## Action Space

``Discrete(147)`` per agent, the ids of ``fifthave_env.engine.actions``.

## Observation Space

``Dict(observations=Box(...), action_mask=Box(0, 1, (147,), float32))`` per agent: the AEC
observation under the key ``"observations"`` and its mask as floats, the layout RLlib's
action-masking RLModule reads (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``).
The observation is layout ``observation_layout`` of ``fifthave_env.observation``: 0 (the
default, ``fifth_avenue_v0``, ``(1176,)`` floats: what ``fifthave.train.rllib`` trains on and its
checkpoints read) or 1 (``fifth_avenue_v1``, ``(1409,)``: layout 0 plus the derived views).

## Rewards

The AEC env's (``reward``: ``win_loss``, ``win``, ``vp_margin`` or ``score_delta``), given
to the agent of the seat that earned it: each step returns the reward every
RLlib-played seat collected since the previous step (scripted moves in
between included), so each seat's rewards sum to what the AEC env gives it.

An illegal action (possible only without masking, e.g. RLlib's environment
pre-check samples from the whole ``Discrete(147)``) leaves the game unchanged:
the same agent is asked again with the same observation, reward 0, and its
info holds ``{"illegal_action": id}``. Pass ``strict=True`` to raise
``IllegalActionError`` instead.

What is no action id at all is a bug in the caller and raises, as in the AEC env,
changing nothing: ``IllegalActionError`` for an id outside ``[0, 147)``,
``ActionTypeError`` (also a ``TypeError``) for a float such as ``4.9``, a str, a
bool, a shape-(1,) array... (``engine.actions.as_action_id``: Python and numpy
integers and 0-d integer arrays are ids); ``IllegalActionError`` too for an action
dict that does not hold exactly the asked agent's action. ``step`` before
``reset`` or after the episode ended raises ``EnvUsageError``.

## Episode End

When the AEC game ends (termination, or truncation at ``max_turns``), every
RLlib-played agent gets its final observation, reward and done flag.

## Arguments

``FifthAvenueMultiAgentEnv(config)`` with a dict (RLlib's ``env_config``):

- ``num_players``, ``board``, ``max_turns``, ``reward``, ``layout``,
  ``random_start``, ``skyscrapers_per_color``: as ``fifth_avenue_v0.env``.
- ``observation_layout``: the observation layout, 1 (default) or 0; see above.
- ``opponents``: scripted agent names (``fifthave.agents.registry.AGENT_FACTORIES``);
  empty (default): every seat is an RLlib agent named ``player_<seat>``.
  Otherwise (self-play training) agents are named by role: ``learner`` (a seat
  drawn uniformly each game) and ``opponent_1`` .. ``opponent_<n-1>``; each
  opponent seat is, with probability ``scripted_fraction``, played in the env
  by a scripted agent drawn uniformly from ``opponents``. ``infos[agent]["seat"]``
  tells an agent's seat.
- ``scripted_fraction``: see ``opponents`` (default 0.5).
- ``reward_scale``: factor on every reward (default 1).
- ``strict``: raise on illegal actions (default False).

Seeding: ``reset(seed=...)`` fixes the game, the roles and the scripted agents' draws.
"""

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from fifthave.agents.base import LayoutObservations, give_sampler
from fifthave_env.agent_protocol import act
from fifthave.agents.tournament import agent_factory
from fifthave_env import fifth_avenue_v0, fifth_avenue_v1
from fifthave_env.engine import checks
from fifthave_env.engine.actions import NUM_ACTIONS, as_action_id
from fifthave_env.engine.game import IllegalActionError
from fifthave_env.env_common import EnvUsageError
from fifthave_env.observation import Observer

LEARNER = "learner"
AEC_ENVS = {0: fifth_avenue_v0, 1: fifth_avenue_v1}  # observation_layout -> the AEC env of that layout


def observation_space(observation_box):
    """One agent's observation space around the AEC env's observation ``Box`` (a new object: seeding it
    affects no other agent)."""
    return spaces.Dict({
        "observations": spaces.Box(observation_box.low, observation_box.high, observation_box.shape, np.float32),
        "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
    })


def seat_agent_ids(num_players):
    return [f"player_{seat}" for seat in range(num_players)]


def role_agent_ids(num_players):
    return [LEARNER] + [f"opponent_{i}" for i in range(1, num_players)]


# The index of the RLlib env runner this process samples for (0: the driver's own): RLlib passes it in the
# env config (an EnvContext). fifthave.train.rllib.train.SelfPlayMapping seeds its draws with it, so that the runners
# of a run draw apart and the run repeats; one process serves one runner, so one value per process.
_runner_index = 0


def runner_index():
    """The index of the env runner whose envs this process built last (0 if none or no EnvContext)."""
    return _runner_index


class FifthAvenueMultiAgentEnv(MultiAgentEnv):
    def __init__(self, config=None):
        global _runner_index
        super().__init__()
        _runner_index = int(getattr(config, "worker_index", _runner_index))
        config = dict(config or {})
        names = list(config.pop("opponents", None) or ())
        self.scripted_fraction = float(config.pop("scripted_fraction", 0.5))
        self.strict = bool(config.pop("strict", False))
        self.reward_scale = float(config.pop("reward_scale", 1.0))
        version = checks.choice("observation_layout", config.pop("observation_layout", 1), tuple(AEC_ENVS))
        if not 0.0 <= self.scripted_fraction <= 1.0:
            raise ValueError(f"scripted_fraction must lie in [0, 1], got {self.scripted_fraction!r}")
        self.aec = AEC_ENVS[version].env(**config)
        self.num_players = len(self.aec.possible_agents)
        self.scripted_factories = [agent_factory(name) for name in names]
        self.possible_agents = (role_agent_ids if names else seat_agent_ids)(self.num_players)
        self.agents = list(self.possible_agents)
        box = self.aec.observation_space(self.aec.possible_agents[0])["observation"]
        self.observation_spaces = {a: observation_space(box) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self._rng = None
        self.agent_of_seat = {}  # seat -> RLlib agent id, for the seats RLlib plays
        self.seat_of = {}  # the inverse
        self.scripted = {}  # seat -> scripted agent
        self._scripted_observations = None  # their LayoutObservations
        # layout -> Observer for the scripted seats, kept across episodes (other layouts built when first read)
        self._scripted_observers = {version: Observer(self.aec.config, version=version)}
        self._pending = {}  # agent id -> reward collected since its last return
        self._asked = None

    def reset(self, *, seed=None, options=None):
        seed = checks.seed("seed", seed)
        checks.options("options", options)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        aec = self.aec
        aec.reset(seed=int(self._rng.integers(2**63)))
        n = self.num_players
        self.scripted = {}
        if self.scripted_factories:
            learner_seat = int(self._rng.integers(n))
            seats = [(learner_seat + i) % n for i in range(n)]
            self.agent_of_seat = {}
            for role, seat in zip(self.possible_agents, seats):
                if role != LEARNER and self._rng.random() < self.scripted_fraction:
                    agent = self.scripted_factories[self._rng.integers(len(self.scripted_factories))]()
                    agent.reset(aec.config, seat, np.random.default_rng(self._rng.integers(2**63)))
                    give_sampler(agent, aec.game, seat)  # as the tournament does: a search agent searches
                    self.scripted[seat] = agent
                else:
                    self.agent_of_seat[seat] = role
        else:
            self.agent_of_seat = dict(enumerate(self.possible_agents))
        self._scripted_observations = LayoutObservations(aec.config, self.scripted, aec.observation_layout,
                                                         self._scripted_observers)
        self.agents = list(self.agent_of_seat.values())
        self.seat_of = {agent: seat for seat, agent in self.agent_of_seat.items()}
        self._pending = dict.fromkeys(self.agents, 0.0)
        self._advance()
        return self._observations(), self._infos()

    def step(self, action_dict):
        agent = self._asked
        if agent is None:
            raise EnvUsageError("call reset() before step()" if self.aec.game is None
                                else "the episode is over: call reset() to start a new one")
        checks.mapping("action_dict", action_dict)
        if action_dict.keys() != {agent}:
            raise IllegalActionError(f"it is {agent}'s decision: the action dict must hold its action only, "
                                     f"got actions for {sorted(action_dict, key=str)}")
        action = action_dict[agent]
        if action.__class__ is not int or not 0 <= action < NUM_ACTIONS:
            action = as_action_id(action)  # raises for what is no action id (4.9, "4", True, ...); nothing changed
        aec = self.aec
        if action not in aec.game.legal_actions():
            if self.strict:
                raise IllegalActionError(f"{agent} (seat {self.seat_of[agent]}) chose {action}, which is not "
                                         f"legal now; legal ids: {aec.game.legal_actions()}")
            return ({agent: self._observe(agent)}, {agent: 0.0}, {"__all__": False}, {"__all__": False},
                    {agent: {"illegal_action": action, "seat": self.seat_of[agent]}})
        self._apply(action)
        self._advance()
        return self._step_result()

    # ---- internals ----------------------------------------------------------------------------

    def _apply(self, action):
        aec = self.aec
        aec.step(action)
        for seat, agent in self.agent_of_seat.items():
            self._pending[agent] += self.reward_scale * float(aec.rewards[aec.possible_agents[seat]])

    def _advance(self):
        """Let scripted seats move until an RLlib agent is asked or the game ends."""
        aec, game, layouts = self.aec, self.aec.game, self._scripted_observations
        while not game.is_over and game.actor in self.scripted:
            seat = game.actor
            agent = self.scripted[seat]
            # a seat view, or its observation in the layout it reads (none if it reads only the mask)
            action = act(agent, game, seat, layouts)
            if action.__class__ is not int:
                action = as_action_id(action)  # 3.9 is refused, not played as 3
            self._apply(action)
        self._asked = None if game.is_over else self.agent_of_seat[game.actor]

    def _observe(self, agent):
        aec = self.aec
        raw = aec.observe(aec.possible_agents[self.seat_of[agent]])
        return {"observations": raw["observation"], "action_mask": raw["action_mask"].astype(np.float32)}

    def _observations(self):
        if self._asked is None:
            return {agent: self._observe(agent) for agent in self.agents}
        return {self._asked: self._observe(self._asked)}

    def _infos(self):
        infos = {agent: {"seat": self.seat_of[agent]} for agent in self._observations_keys()}
        if self._asked is None:
            for agent in infos:
                infos[agent].update(self.aec.infos[self.aec.possible_agents[self.seat_of[agent]]])
        return infos

    def _observations_keys(self):
        return self.agents if self._asked is None else [self._asked]

    def _step_result(self):
        game = self.aec.game
        rewards, self._pending = self._pending, dict.fromkeys(self.agents, 0.0)
        observations = self._observations()
        done = game.is_over
        terminated = done and not game.truncated
        truncated = done and game.truncated
        terminateds = {"__all__": terminated}
        truncateds = {"__all__": truncated}
        if done:
            terminateds.update(dict.fromkeys(self.agents, terminated))
            truncateds.update(dict.fromkeys(self.agents, truncated))
        return observations, rewards, terminateds, truncateds, self._infos()

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()
