"""Trained agents played with numpy alone: a policy network (``PolicyAgent``), a candidate-value network
(``CandidateValueAgent``) and an action-value network (``ActionValueAgent``, every decision), built from an
exported agent file (``fifthave.agents.agentfile``) or, in training, from the networks themselves (``train`` converts its
torch modules into the arrays these classes take).

``AgentFileFactory(path)`` is a picklable zero-argument factory (what ``fifthave.agents.tournament.run_tournament``
takes, also with ``workers > 1``) that reads the file once per process and returns a fresh agent per call.
An agent seated in a game of another player count or board than it was trained for raises a ``ValueError``
at ``reset``; with ``other_games="warn"`` it plays anyway after a loud warning.

Speed: acting runs the network in numpy (``ActorNet``, ``NumpyValueNet``); one decision costs a few
matrix-vector products instead of a torch call chain.
"""

import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fifthave_env.engine.actions import BID_ADD, BID_CONFIRM, BID_PASS, MOVE, NUM_ACTIONS
from fifthave_env.engine.board import NUM_DISTRICTS, NUM_LOCATIONS
from fifthave_env.engine.cards import NUM_COLORS, NUM_KINDS
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.engine.game import GameConfig
from fifthave_env.observation import OBS_SIZES, views

from .agentfile import (AGENT_FILE, CANDIDATE_FEATURES, DESTINATION_FEATURES, MLP_KINDS, POLICY_KINDS, VALUE_PARTS,
                        AgentFileError, check_advice, check_bid_destinations, check_destinations, groups_played,
                        read_agent_file)
from .base import Agent
from .bidding import cheapest_raise, table_limit, table_total
from .registry import AGENT_FACTORIES
from .search import DECISION_GROUPS, SearchAgent, projected_scores, projected_value

OTHER_GAMES = ("error", "warn")
"""What an agent does when seated in a game of another player count or board than it was trained for."""


def check_observation_layout(agent: Any, observation: np.ndarray | None) -> None:
    """Refuse an observation of another layout than ``agent.observation_layout`` (a clear error, not garbage play)."""
    expected = OBS_SIZES[agent.observation_layout]
    if observation is None or len(observation) != expected:
        raise ValueError(f"{agent.name} reads observation layout {agent.observation_layout} ({expected} values), "
                         f"got {None if observation is None else len(observation)} values: give it its layout "
                         "(fifthave.agents.base.LayoutObservations, as the tournament and the terminal game do)")


def check_trained_for(agent: Any, config: GameConfig) -> None:
    """Raise (or, with ``agent.other_games == "warn"``, warn) when ``config`` is not the player count and board
    ``agent.trained_for`` names (None: unknown, not checked)."""
    if agent.trained_for is None or agent.trained_for == (config.num_players, config.board):
        return
    players, board = agent.trained_for
    message = (f"{agent.name} was trained for {players} players on the {board}-plot board, not "
               f"{config.num_players} players on the {config.board}-plot board")
    if agent.other_games != "warn":
        raise ValueError(message + " (load it with other_games='warn' to play it there anyway)")
    warnings.warn(f"{message}: it plays a game it never saw, expect weak play", stacklevel=3)


def _trained_for(meta):
    """(players, board) a network was trained for, from an agent file's metadata or a training config."""
    if "num_players" in meta:
        return meta["num_players"], meta["board"]
    config = meta.get("config") or {}
    return (config["num_players"], config["board"]) if config else None


def _relu(x):
    return np.maximum(x, 0.0)


ACTIVATION_FUNCTIONS = {"tanh": np.tanh, "relu": _relu}  # module-level functions: agents pickle


class ActorNet:
    """A policy network as numpy arrays: observation (followed by any advisers' block) -> action logits.

    ``layers``: ``[weight (inputs x outputs), bias, activation function or None]`` per layer; ``advice_size``:
    the output layer also reads the last ``advice_size`` inputs (``fifthave.train.hints.AdvisedPolicy``'s skip)."""

    def __init__(self, layers: Sequence[Sequence[Any]], advice_size: int = 0) -> None:
        self.layers = [list(layer) for layer in layers]
        self.advice_size = advice_size

    @classmethod
    def from_arrays(cls, architecture: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> "ActorNet":
        """From an agent file's architecture and arrays (``fifthave.agents.agentfile.policy_arrays``)."""
        hidden = architecture["hidden"]
        layers = [[arrays[f"layer{i}.weight"], arrays[f"layer{i}.bias"],
                   ACTIVATION_FUNCTIONS[architecture["activations"][i]] if i < len(hidden) else None]
                  for i in range(len(hidden) + 1)]
        return cls(layers, architecture["advice"])

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``(architecture without its input and outputs, arrays)`` as an agent file stores them."""
        names = {function: name for name, function in ACTIVATION_FUNCTIONS.items()}
        *hidden, last = self.layers
        if last[2] is not None or any(layer[2] not in names for layer in hidden):
            raise ValueError("an agent file holds hidden layers with tanh or relu and a linear output layer")
        arrays = {}
        for i, (weight, bias, _) in enumerate(self.layers):
            arrays[f"layer{i}.weight"], arrays[f"layer{i}.bias"] = weight, bias
        architecture = {"hidden": [int(layer[0].shape[1]) for layer in hidden],
                        "activations": [names[layer[2]] for layer in hidden], "advice": int(self.advice_size)}
        return architecture, arrays

    def __deepcopy__(self, memo):
        # the weights never change after loading: copies of an agent (the Gymnasium env copies listed
        # opponents) share its network, so fifthave.train.vec_env still batches them and memory is not duplicated
        return self

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Logits for one observation or a batch."""
        x = np.asarray(observation, dtype=np.float32)
        if len(self.layers) == 1:
            return self._output(x, x)
        return self._from_product(x @ self.layers[0][0], x)

    def logits_tracked(self, observations: np.ndarray, memories: Sequence[list]) -> np.ndarray:
        """Logits of a batch whose row r is the next observation of the seat ``memories[r]`` follows: a list
        ``[observation, product]`` of that seat's last observation and its first-layer product (``x @ W1``),
        ``[None, None]`` before the first, updated here.

        A seat's consecutive observations differ in about 15 of their 1,176 values (4 players, random play), so
        only those rows of ``W1`` are read (1.2 MB in all, the most of the network; the nonzero entries' rows at
        first). Self-play opponents (``fifthave.train.vec_env``), whose networks are rarely in cache, use it: their games
        take about a quarter less time (``scripts/bench_training.py``, the games alone). The same logits up to float
        rounding, which builds up over a game's calls (about 1e-6 relative) and depends only on the seat's own
        observations, not on the batch; agents that play evaluation games keep the full product."""
        x = np.asarray(observations, dtype=np.float32)
        if len(self.layers) == 1:
            return self.logits(x)
        weight = self.layers[0][0]
        product = np.empty((len(x), weight.shape[1]), dtype=np.float32)
        for row, (observation, memory) in enumerate(zip(x, memories)):
            last, last_product = memory
            if last is None:  # (x != 0).nonzero() costs half of np.flatnonzero(x); NaN counts as nonzero
                active = (observation != 0).nonzero()[0]
                product[row] = observation.take(active) @ weight.take(active, axis=0)
            else:
                changed = (observation != last).nonzero()[0]
                product[row] = last_product + (observation.take(changed) - last.take(changed)) @ weight.take(
                    changed, axis=0)
            memory[0], memory[1] = observation.copy(), product[row].copy()
        return self._from_product(product, x)

    def _from_product(self, product, x):
        """The logits of ``x`` given ``product``, its first-layer product (there is a hidden layer)."""
        _, bias, activation = self.layers[0]
        hidden = product + bias
        if activation is not None:
            hidden = activation(hidden)
        for weight, bias, activation in self.layers[1:-1]:
            hidden = hidden @ weight + bias
            if activation is not None:
                hidden = activation(hidden)
        return self._output(hidden, x)

    def _output(self, hidden, x):
        if self.advice_size:
            hidden = np.concatenate([hidden, x[..., -self.advice_size:]], axis=-1)
        weight, bias, _ = self.layers[-1]
        return hidden @ weight + bias


class Advisers:
    """The scripted advisers of one seat and the feature block they write."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.factories = [AGENT_FACTORIES[name] for name in self.names]
        self.agents: list[Agent] = []
        self.advice: list[int] = []  # the advisers' last choices

    @property
    def size(self) -> int:
        return len(self.names) * NUM_ACTIONS

    def reset(self, config: GameConfig, seat: int, rng: np.random.Generator) -> None:
        """New advisers for the seat's next game, their generators drawn from ``rng``."""
        self.agents = [factory() for factory in self.factories]
        for agent in self.agents:
            agent.reset(config, seat, np.random.default_rng(rng.integers(2**63)))
        self.advice = []

    def features(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The observation followed by the advisers' one-hot choices (zeros when no action is legal)."""
        block = np.zeros(self.size, dtype=np.float32)
        self.advice = []
        if np.any(action_mask):
            for i, agent in enumerate(self.agents):
                action = int(agent.act(observation, action_mask))
                self.advice.append(action)
                block[i * NUM_ACTIONS + action] = 1.0
        return np.concatenate([np.asarray(observation, dtype=np.float32), block])

    def record(self, action: int) -> None:
        """The seat played ``action``: advisers whose advice it did not follow drop their plans."""
        for agent, advised in zip(self.agents, self.advice):
            if advised != action and hasattr(agent, "drop_plan"):
                agent.drop_plan()


class PolicyAgent:
    """Plays a policy network: samples from its masked policy with the generator ``reset`` gives it, or plays
    the most likely legal action (``deterministic``), so games with it replay from their seeds."""

    def __init__(self, policy: "ActorNet", deterministic: bool = False, name: str = "ppo",
                 meta: Mapping[str, Any] | None = None, advisers: Sequence[str] | None = None,
                 other_games: str = "error") -> None:
        """``policy``: an ``ActorNet`` (``fifthave.train.policy_agent.ActorNet`` builds one from a MaskablePPO policy).
        ``meta``: an agent file's metadata, or ``{"config": training config}`` in training; it gives the
        observation layout, the player count and board the network was trained for and, unless
        ``advisers`` is given, the scripted advisers whose choices it reads after the observation.
        ``other_games``: ``"error"`` or ``"warn"`` (``check_trained_for``)."""
        if not isinstance(policy, ActorNet):
            raise TypeError(f"PolicyAgent plays an ActorNet, got {type(policy).__name__} (fifthave.train.policy_agent."
                            "ActorNet(policy) converts a MaskablePPO policy)")
        if other_games not in OTHER_GAMES:
            raise ValueError(f"other_games must be one of {OTHER_GAMES}, got {other_games!r}")
        self.net = policy
        self.deterministic = deterministic
        self.name = name
        self.meta = meta or {}
        self.other_games = other_games
        self.trained_for = _trained_for(self.meta)
        self.rng = np.random.default_rng()
        if advisers is None:
            advisers = self.meta.get("advisers", self.meta.get("config", {}).get("advisers", []))
        self.advisers = Advisers(advisers) if advisers else None

    @property
    def observation_layout(self) -> int:
        """The layout the network reads (``agent_protocol``)."""
        if "observation_layout" in self.meta:
            return self.meta["observation_layout"]
        config = self.meta.get("config", {})  # a checkpoint's config; before the schema's names: observation_version
        return config.get("observation_layout", config.get("observation_version", 0))

    def reset(self, config: GameConfig, seat: int, rng: np.random.Generator) -> None:
        check_trained_for(self, config)
        self.rng = rng
        if self.advisers is not None:
            self.advisers.reset(config, seat, rng)

    def _features(self, observation, action_mask):
        if self.advisers is None:
            return observation
        return self.advisers.features(observation, action_mask)

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's probability of every action id (zero for illegal ones)."""
        legal = np.flatnonzero(action_mask)
        logits = self.net.logits(self._features(observation, action_mask))[legal].astype(np.float64)
        weights = np.exp(logits - logits.max())
        probs = np.zeros(len(action_mask))
        probs[legal] = weights / weights.sum()
        return probs

    @property
    def batch_net(self) -> "ActorNet | None":
        """The network whose logits ``choose`` reads: ``fifthave.train.vec_env`` stacks the observations of all
        games waiting on the same network, runs it once, and hands each agent its row. None with advisers
        (their advice is per seat, so such an agent acts alone)."""
        return self.net if self.advisers is None else None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.choose(self.net.logits(self._features(observation, action_mask)), np.flatnonzero(action_mask))

    def choose(self, logits: np.ndarray, legal: np.ndarray) -> int:
        """The action for these logits of the network among the legal ids ``legal`` (ascending, as
        ``Game.legal_actions`` lists them; a batch caller passes that list and builds no mask): the most
        likely one, or a sample with this agent's generator (one draw per decision, whether acting alone
        or in a batch)."""
        logits = logits[legal]
        self._last_choice = (legal, logits)  # for explain()
        if self.deterministic:
            action = int(legal[np.argmax(logits)])
        else:
            cumulative = np.cumsum(np.exp(logits.astype(np.float64) - logits.max()))
            index = np.searchsorted(cumulative, self.rng.random() * cumulative[-1], side="right")
            action = int(legal[min(index, len(legal) - 1)])
        if self.advisers is not None:
            self.advisers.record(action)
        return action

    EXPLAINED_ACTIONS = 8

    def explain(self) -> dict[str, Any] | None:
        """The policy's probabilities of the most likely legal actions at the latest decision (agent protocol)."""
        last = getattr(self, "_last_choice", None)
        if last is None:
            return None
        legal, logits = last
        weights = np.exp(logits.astype(np.float64) - logits.max())
        probs = weights / weights.sum()
        top = np.argsort(-probs, kind="stable")[:self.EXPLAINED_ACTIONS]
        return {"kind": "policy", "value": "probability", "greedy": self.deterministic,
                "candidates": [{"actions": [int(legal[i])], "value": round(float(probs[i]), 4)} for i in top]}


# ---- action values (Deep Monte-Carlo) ----------------------------------------------------------------

class ActionValueAgent:
    """Plays the legal action its network values most: one MLP from the observation to a value per action id
    (the expected win share after taking it), trained on Monte-Carlo returns of self-play games
    (``fifthave.train.generations``, after DouZero: Zha et al. 2021). It plays *every* decision - bids card by card,
    board moves, A/B/C/D, commissioners, draws, placements - with no scripted agent and no search.

    ``epsilon``: the share of decisions played uniformly at random among the legal actions (exploration in
    training; 0 to play). ``trained_for``: (players, board) of its training games, checked at ``reset``
    (``check_trained_for``)."""

    def __init__(self, net: ActorNet, observation_layout: int = 1, name: str = "action-values",
                 trained_for: tuple[int, int] | None = None, other_games: str = "error",
                 epsilon: float = 0.0) -> None:
        if not isinstance(net, ActorNet):
            raise TypeError(f"ActionValueAgent plays an ActorNet, got {type(net).__name__}")
        if other_games not in OTHER_GAMES:
            raise ValueError(f"other_games must be one of {OTHER_GAMES}, got {other_games!r}")
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.net = net
        self.observation_layout = observation_layout  # the runners build this layout for it
        self.name = name
        self.trained_for, self.other_games = trained_for, other_games
        self.epsilon = epsilon
        self.rng = np.random.default_rng()
        self._last_choice: tuple[np.ndarray, np.ndarray] | None = None

    def reset(self, config: GameConfig, seat: int, rng: np.random.Generator) -> None:
        check_trained_for(self, config)
        self.rng = rng

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        check_observation_layout(self, observation)
        legal = np.flatnonzero(action_mask)
        if not len(legal):
            raise ValueError(f"{self.name} was asked to act with no legal action (all-zero action mask)")
        if len(legal) == 1:
            self._last_choice = None
            return int(legal[0])
        values = self.net.logits(observation)[legal]
        self._last_choice = (legal, values)
        if self.epsilon and self.rng.random() < self.epsilon:
            return int(legal[self.rng.integers(len(legal))])
        return int(legal[np.argmax(values)])

    EXPLAINED_ACTIONS = 8

    def explain(self) -> dict[str, Any] | None:
        """The network's values of the best legal actions at the latest decision (agent protocol)."""
        if self._last_choice is None:
            return None
        legal, values = self._last_choice
        top = np.argsort(-values, kind="stable")[:self.EXPLAINED_ACTIONS]
        return {"kind": "values", "value": "expected win share after the action",
                "candidates": [{"actions": [int(legal[i])], "value": round(float(values[i]), 4)} for i in top]}


# ---- candidate values ------------------------------------------------------------------------------

_BID = NUM_ACTIONS + NUM_KINDS  # offset of the bid summary in the candidate features
VALUE_SCALE = 10.0  # value differences are a few hundredths: scaled up for the fit


def candidate_features(view: Any, macro: Sequence[int], default: Sequence[int] | None) -> np.ndarray:
    """Features of one candidate (a tuple of action ids) at ``view``'s decision: its first action one-hot; for
    a bid the cards it adds (counts per kind) and what the bid is afterwards (total, raise over the high bid,
    building limit); and whether it is the heuristic's candidate."""
    x = np.zeros(CANDIDATE_FEATURES, dtype=np.float32)
    x[macro[0]] = 1.0
    x[_BID + 8] = macro == default
    if BID_ADD <= macro[0] <= BID_PASS:
        x[_BID] = macro[0] == BID_PASS
        added = [a - BID_ADD for a in macro if BID_ADD <= a < BID_CONFIRM]
        cards = list(view.my_table_cards)
        for kind in added:
            x[NUM_ACTIONS + kind] += 1.0 / 3
            cards[kind] += 1
        total = table_total(cards)
        x[_BID + 1] = len(added) / 5
        x[_BID + 2] = total / 30
        if macro[0] != BID_PASS:
            x[_BID + 3] = (total - view.high_bid) / 10
            x[_BID + 3 + table_limit(cards)] = 1.0  # limits 1..3 at _BID + 4 .. _BID + 6
        x[_BID + 7] = table_total(view.my_table_cards) / 30
    return x


def effect_features(root: Any, seat: int, candidates: Sequence[Sequence[int]]) -> np.ndarray:
    """``EFFECT_FEATURES`` columns per candidate (rows): what it does for ``seat`` on ``root``, a determinization
    the seat's sampler drew (not modified). The search's evaluator right after the candidate (``projected_value``
    x10, no rollout) minus the candidates' mean and minus their best; the change of the seat's projected margin
    over the best other seat, of its projected VP and of its scored VP (/10); whether the seat still acts after
    it. Issue 35's probe (``scripts/candidate_effects.py``): the old features cannot tell which shop plot or
    starting plot is worth most (held-out agreement with the search 0.55 and 0.59); these can (0.97 and 1.0)."""
    before = projected_scores(root)
    margin_before = before[seat] - max(before[q] for q in range(root.n) if q != seat)
    rows = np.empty((len(candidates), 5), dtype=np.float64)
    rng = None
    for i, macro in enumerate(candidates):
        g = root.clone(rng)
        rng = g.rng  # the next copy reuses this one's generator (Game.clone)
        for action in macro:
            g.apply(action)
        after = projected_scores(g)
        margin = after[seat] - max(after[q] for q in range(g.n) if q != seat)
        rows[i] = (projected_value(g, seat, after) * 10.0, (margin - margin_before) / 10.0,
                   (after[seat] - before[seat]) / 10.0, (g.scores[seat] - root.scores[seat]) / 10.0,
                   not g.is_over and g.actor == seat)
    value = rows[:, 0]
    return np.column_stack([value - value.mean(), value - value.max(), rows[:, 1:]]).astype(np.float32)


def destination_features(observation: np.ndarray, candidates: np.ndarray, bids: bool = False) -> np.ndarray:
    """``DESTINATION_FEATURES`` columns per row of ``candidates`` (their features, first action one-hot first) at the
    decision whose observation (layout 1) is ``observation``: for a commissioner move, what the district it goes to
    holds - each seat's ``build_value`` there, this seat's lead and deficit, the skyscrapers of each owner (/5),
    both commissioners' markers, whether it is closed - or a flag for Central Park or City Hall; zeros for every
    other candidate. A move changes no score at once, so its effect features are flat; issue 35's probe
    (``results/training/values_selfplay/probes/destinations.py``) refitted the same labels with these columns:
    +0.049 [+0.008, +0.091] in 3 players against two heuristics, paired by deal.

    ``bids``: a bid candidate's row holds the auctioned location's the same way (the district's build values,
    lead, deficit and skyscrapers, or the Central Park flag), and in the last three columns what the bid is worth
    and what it meets: this seat's build value there (Central Park: its expected value) times the bid's building
    limit (a pass: 0), whether the auction allows a building stop, and how far the seats still in could bid past
    the bid's total in its colour (``_outbid_margin``). A bid, too, changes no score at once, and the auctioned
    location's row is otherwise found only through its one-hot (issue 35: +0.058 [+0.033, +0.083] against three
    heuristics for the same 4-player labels refitted with them, three fit seeds each way; ``bid_destinations``)."""
    x = np.zeros((len(candidates), DESTINATION_FEATURES), np.float32)
    first = candidates[:, :NUM_ACTIONS].argmax(axis=1)
    moves = np.flatnonzero((first >= MOVE) & (first < MOVE + 2 * NUM_LOCATIONS))
    bidding = np.flatnonzero((first >= BID_ADD) & (first <= BID_PASS)) if bids else ()
    if not len(moves) and not len(bidding):
        return x
    v = views(observation)
    for r in moves:
        location = (int(first[r]) - MOVE) % NUM_LOCATIONS
        if location >= NUM_DISTRICTS:
            x[r, location - NUM_DISTRICTS] = 1.0  # Central Park, City Hall
            continue
        _district_columns(x, r, v, location)
        x[r, 13:15] = v["markers"][:, location]
        x[r, 15] = v["district_closed"][location]
    auctioned = np.flatnonzero(v["auction_location"]) if len(bidding) else np.zeros(0, np.int64)
    if len(auctioned):
        location = int(auctioned[0])
        limit = candidates[bidding, _BID + 4:_BID + 7] @ np.arange(1, 4, dtype=np.float32)  # one-hot 1..3; pass 0
        if location >= NUM_DISTRICTS:  # Central Park
            x[bidding, 0] = 1.0
            x[bidding, 13] = v["central_park_value"][0] * limit
        else:
            _district_columns(x, bidding, v, location)
            x[bidding, 13] = v["build_value"][location][0] * limit
        x[bidding, 14] = v["auction_full"][0]
        x[bidding, 15] = [_outbid_margin(v, candidates[r]) for r in bidding]
    return x


def _district_columns(x: np.ndarray, rows: Any, v: Mapping[str, np.ndarray], location: int) -> None:
    """Columns 2-12 of ``x``'s ``rows``: what district ``location`` holds (each seat's build value, this seat's lead
    and deficit, each owner's skyscrapers /5), the part a move's and a bid's rows share."""
    x[rows, 2:6] = v["build_value"][location]
    x[rows, 6] = v["district_lead"][location]
    x[rows, 7] = v["district_deficit"][location]
    x[rows, 8:13] = v["district_skyscrapers"][location] / 5


def _outbid_margin(v: Mapping[str, np.ndarray], candidate: np.ndarray) -> float:
    """How far the other seats still in the auction could bid past this bid candidate's total, at most, in its
    colour (their ``max_bid``: the cards known, 6 points for each unknown card; /50); 0 for a pass."""
    if candidate[BID_PASS]:
        return 0.0
    laid = v["auction_color"][0]
    added = candidate[NUM_ACTIONS:NUM_ACTIONS + 3 * NUM_COLORS].reshape(NUM_COLORS, 3).sum(axis=1)
    if laid.any():
        colour = int(laid.argmax())
    elif added.any():
        colour = int(added.argmax())
    else:
        return 0.0  # no colour laid and none added: not a bid that can stand
    reach = v["max_bid"][1:, colour][v["auction_passed"][1:] == 0]
    total = candidate[_BID + 2] * 30 / 50  # the bid's total after it (/30 in the candidate features)
    return float(reach.max() - total) if len(reach) else float(-total)


def enumerated_bid_candidates(view: Any) -> list[tuple[int, ...]]:
    """Whole bids for a bidding turn that no scripted agent advises (``CandidateValueAgent`` with
    ``advice=False``): pass, and for every colour the bid may have and every building limit 1-3 the cheapest
    raise to just above the high bid, with black cards and without them (the heuristic's bid is nearly always
    one of these: it bids the cheapest raise for the build it values most). The legal ones, in that order."""
    candidates = [(BID_PASS,)]
    hand, table = view.hand, view.my_table_cards
    need = view.high_bid + 1 - table_total(table)
    if view.my_bid_color >= 0:
        colors = [view.my_bid_color]
    elif view.central_park_color >= 0:
        colors = [view.central_park_color]
    else:
        colors = view.allowed_colors
    for color in colors:
        for min_limit in (1, 2, 3):
            for use_black in (True, False):
                kinds = cheapest_raise(hand, table, [color], need, min_limit, use_black)
                if kinds is not None:
                    candidates.append(SearchAgent._bid_macro(kinds))
    return [m for m in dict.fromkeys(candidates) if view.is_legal(m[0])]


NEGLIGIBLE_WEIGHT = 1e-30
"""Weights smaller than this in magnitude count as 0 in a value net's products (``flush_tiny_weights``)."""


def flush_tiny_weights(weights: np.ndarray) -> np.ndarray:
    """``weights`` with every entry under ``NEGLIGIBLE_WEIGHT`` in magnitude set to 0 (a copy if it had any).

    Weight decay drives a third of a trained net's weights (those of inputs that are rarely on) to 1e-30 and
    below, many to subnormal numbers, which a CPU multiplies 10-100 times slower: a product of the value head took
    119 us instead of 7, and a decision of values-selfplay-4p 1.5 ms instead of 1.3. No value changes: such a
    weight's product is over 20 orders of magnitude below the float32 resolution of any sum it enters."""
    negligible = (weights != 0) & (np.abs(weights) < NEGLIGIBLE_WEIGHT)
    if not negligible.any():
        return weights
    flushed = weights.copy()
    flushed[negligible] = 0
    return flushed


class NumpyValueNet:
    """A candidate-value ensemble in numpy, for play (one small decision at a time): the mean value of its
    members, each ``VALUE_PARTS`` of ``fifthave.agents.agentfile`` (weights as inputs x outputs).

    ``flush``: compute with ``flush_tiny_weights`` applied (the default; False multiplies the weights as given)."""

    def __init__(self, members: Sequence[Sequence[np.ndarray]], flush: bool = True) -> None:
        self.members = [tuple(member) for member in members]
        # what values() multiplies; members stay as given, so a file written from them keeps its bytes
        compute = [tuple(flush_tiny_weights(part) if flush else part for part in member) for member in self.members]
        # the members side by side, so that each layer is one product for the whole ensemble, not one per member
        s1, b1, s2, b2, c, bc, h1, bh1, h2, bh2 = zip(*compute)
        self.observation_weights, self.observation_bias = np.concatenate(s1, axis=1), np.concatenate(b1)
        self.state_weights, self.state_bias = np.stack(s2), np.stack(b2)
        self.candidate_weights, self.candidate_bias = np.concatenate(c, axis=1), np.concatenate(bc)
        self.head_weights, self.head_bias = np.stack(h1), np.stack(bh1)[:, None, :]
        self.output_weights, self.output_bias = np.stack(h2), np.stack(bh2)
        # the process's first product pays for faulting the weights in and starting BLAS: loading pays, not a decision
        self.values(np.zeros(len(self.observation_weights), np.float32),
                    np.eye(1, len(self.candidate_weights), dtype=np.float32))

    @classmethod
    def from_arrays(cls, architecture: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> "NumpyValueNet":
        return cls([[arrays[f"member{m}.{part}"] for part in VALUE_PARTS] for m in range(architecture["members"])])

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``(architecture without its input and candidate features, arrays)`` as an agent file stores them."""
        first = self.members[0]
        architecture = {"hidden": int(first[0].shape[1]), "head": int(first[6].shape[1]),
                        "members": len(self.members)}
        arrays = {f"member{m}.{part}": array for m, member in enumerate(self.members)
                  for part, array in zip(VALUE_PARTS, member)}
        return architecture, arrays

    PRODUCT_SIZE = 2**18
    """Most multiply-adds of one matrix product here. OpenBLAS splits a larger product over threads; on a busy
    machine the threads' hand-offs cost far more than the product (a decision of 23 candidates took 70-340 ms
    instead of 1 ms with two cores loaded 3-4 times over), so products of many candidates go a few rows at a time."""

    def values(self, observation: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """The ensemble's value of each candidate: the mean of ``member_values``."""
        return self.member_values(observation, candidates).mean(axis=0)

    def member_values(self, observation: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """Each member's value of each candidate (members x candidates), scaled as the labels."""
        members, hidden_width = self.state_weights.shape[:2]
        count = len(candidates)
        nz = np.flatnonzero(observation)
        state = np.maximum(observation[nz] @ self.observation_weights[nz] + self.observation_bias, 0)
        state = (state.reshape(members, 1, hidden_width) @ self.state_weights)[:, 0] + self.state_bias
        # a candidate's features are sparse (its first action one-hot, a few bid, effect and destination numbers):
        # only the columns some candidate uses enter the product
        used = np.flatnonzero(candidates.any(axis=0))
        features, weights = candidates[:, used], self.candidate_weights[used]  # gathered once for every chunk
        rows = max(1, self.PRODUCT_SIZE // weights.size)
        embedding = np.concatenate([features[i:i + rows] @ weights for i in range(0, count, rows)])
        hidden = np.maximum(embedding + (self.candidate_bias + state.reshape(-1)), 0)
        hidden = hidden.reshape(count, members, hidden_width).transpose(1, 0, 2)  # members x candidates x width
        head_rows = max(1, self.PRODUCT_SIZE // self.head_weights[0].size)
        head = np.concatenate([np.maximum(hidden[:, i:i + head_rows] @ self.head_weights + self.head_bias, 0)
                               for i in range(0, count, head_rows)], axis=1)
        return (head @ self.output_weights)[:, :, 0] + self.output_bias


class CandidateValueAgent(SearchAgent):
    """Plays the candidate its network values most at the decisions of ``groups``; the HeuristicAgent elsewhere.

    ``trained_for``: (players, board) of its training games, checked at ``reset`` (``check_trained_for``).
    ``advice``: True (the ``values-4p`` kind) lists the search's bid candidates, which include the heuristic's
    planned bid, and tells the network which candidate is the heuristic's; False plays every decision group
    with no scripted agent at all: bids from ``enumerated_bid_candidates``, every legal move elsewhere, and the
    "heuristic's candidate" feature always 0 (no HeuristicAgent is built). ``effects``: each candidate's
    features also hold ``effect_features`` on a determinization drawn from the sampler every fifthave runner
    attaches (what the seat may know only); such an agent refuses to act without one. ``destinations``: they
    end with ``destination_features`` too (read from the observation, layout 1); ``bid_destinations``: theirs with
    ``bids`` (the bid candidates' rows filled too)."""

    reads_view = False  # its network reads the observation: runners call ``act``

    def __init__(self, net: "NumpyValueNet", groups: Sequence[str], observation_layout: int = 0, prior: float = 0.0,
                 name: str = "values", trained_for: tuple[int, int] | None = None,
                 other_games: str = "error", advice: bool = True, effects: bool = False,
                 destinations: bool = False, bid_destinations: bool = False) -> None:
        super().__init__(rollouts=1, depth=0, prior=prior, name=name, groups=groups)
        if other_games not in OTHER_GAMES:
            raise ValueError(f"other_games must be one of {OTHER_GAMES}, got {other_games!r}")
        check_advice(list(groups), None, advice)
        self.net = net
        self.observation_layout = observation_layout  # the tournament builds this layout for it
        self.trained_for, self.other_games = trained_for, other_games
        self.advice, self.effects = advice, effects
        self.destinations = check_destinations(destinations, observation_layout)
        self.bid_destinations = check_bid_destinations(bid_destinations, self.destinations)
        self.needs_sampler = effects  # a rollout of the search attaches one too (fifthave.agents.search.Rollout)
        self.decided = self.deviated = 0  # decisions its network chose, and those not the heuristic's choice

    def reset(self, config: GameConfig, seat: int, rng: np.random.Generator) -> None:
        check_trained_for(self, config)
        if self.advice:
            super().reset(config, seat, rng)
            return
        self.config, self.seat, self.rng = config, seat, rng  # no scripted agent: neither ``default`` nor rollouts
        self.plan = []

    def act_view(self, view: Any) -> int:
        if self.advice:
            return super().act_view(view)
        self.explanation = None
        while self.plan:  # the rest of a bid chosen earlier this bidding turn
            action = self.plan.pop(0)
            if view.is_legal(action):
                return action
            self.plan = []
        legal = view.legal
        if not legal:
            raise ValueError(f"{self.name} was asked to act with no legal action (all-zero action mask)")
        candidates = [(a,) for a in legal]
        if view.decision == BID_DECISION:
            candidates = enumerated_bid_candidates(view) or candidates
        chosen = self._choose(view, candidates, ()) if len(candidates) > 1 else candidates[0]  # (): no default
        self.plan = list(chosen[1:])
        return chosen[0]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        check_observation_layout(self, observation)
        self._observation = observation
        return super().act(observation, action_mask)

    def _choose(self, view, candidates, default):
        values = self.candidate_values(self._observation, view, candidates, default)
        chosen = candidates[int(values.argmax())]
        self.explanation = {"kind": "values", "value": "the network's value of the candidate", "default": list(default),
                            "candidates": [{"actions": list(m), "value": round(float(v), 3)}
                                           for m, v in zip(candidates, values)]}
        self.decided += 1
        self.deviated += chosen != default
        return chosen

    def candidate_values(self, observation: np.ndarray, view: Any, candidates: Sequence[Sequence[int]],
                         default: Sequence[int]) -> np.ndarray:
        """The network's value of each candidate at the decision of ``view`` (whose observation is
        ``observation``), in the search's units (a value difference; ``prior`` added to ``default``'s)."""
        features = np.stack([candidate_features(view, m, default) for m in candidates])
        if self.effects:
            if self.sampler is None:
                raise ValueError(f"{self.name} reads what each candidate does on a determinization of its seat's "
                                 "view: play it through a fifthave runner (tournament, fifthave_env.runner.play, "
                                 "an environment's opponents), which attaches its sampler")
            features = np.concatenate([features, effect_features(self.sampler(self.rng), self.seat, candidates)],
                                      axis=1)
        observation = np.asarray(observation, dtype=np.float32)
        if self.destinations:
            features = np.concatenate([features, destination_features(observation, features, self.bid_destinations)],
                                      axis=1)
        values = self.net.values(observation, features) / VALUE_SCALE
        return values + self.prior * features[:, _BID + 8]


# ---- agents from agent files -----------------------------------------------------------------------

def network_from_file(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> "ActorNet | NumpyValueNet":
    """The network of an agent file's checked ``(meta, arrays)`` (``fifthave.agents.agentfile.read_agent_file``)."""
    if meta["kind"] in MLP_KINDS:
        return ActorNet.from_arrays(meta["architecture"], arrays)
    return NumpyValueNet.from_arrays(meta["architecture"], arrays)


def agent_from_file(meta: Mapping[str, Any], network: Any, deterministic: bool = False,
                    name: str | None = None, other_games: str = "error") -> Agent:
    """An agent playing ``network`` (``network_from_file``; agents built from one network share it, so that
    ``fifthave.train.vec_env`` batches them)."""
    name = name or meta["name"]
    if meta["kind"] == "action-values":
        return ActionValueAgent(network, meta["observation_layout"], name, (meta["num_players"], meta["board"]),
                                other_games)
    if meta["kind"] in POLICY_KINDS:
        return PolicyAgent(network, deterministic, name, meta, other_games=other_games)
    return CandidateValueAgent(network, groups_played(meta["groups"], meta.get("played_groups")),
                               meta["observation_layout"], name=name, trained_for=(meta["num_players"], meta["board"]),
                               other_games=other_games, advice=meta.get("advice", True),
                               effects=meta.get("effects", False), destinations=meta.get("destinations", False),
                               bid_destinations=meta.get("bid_destinations", False))


def checkpoint_agent_file(directory: str | os.PathLike[str]) -> str:
    """The agent file of a ``fifthave.train.rllib`` checkpoint directory (``DIRECTORY/agent.npz``); a clear error if it
    has none."""
    path = os.path.join(directory, AGENT_FILE)
    if os.path.isfile(path):
        return path
    if os.path.isfile(os.path.join(directory, "actor.pt")):
        raise AgentFileError(f"{directory!r} is a fifthave.train.rllib checkpoint written before agent files: "
                             f"convert it once with: python -m fifthave.train.export {directory}")
    raise AgentFileError(f"{directory!r} is not a fifthave.train.rllib checkpoint: it has no {AGENT_FILE} (written by "
                         "fifthave.train.rllib into RUN_DIR/checkpoints/iter_NNNNNN)")


KIND_PREFIXES = {"policy": POLICY_KINDS, "rllib": POLICY_KINDS, "values": ("candidate-values",),
                 "dmc": ("action-values",)}
"""The agent-file kinds each ``PREFIX:PATH`` agent name accepts."""

_LOADED: dict[tuple, tuple] = {}  # (path, modification time, size) -> (meta, network), per process


class AgentFileFactory:
    """A fresh agent of the agent file at ``path`` per call (picklable; the file is read once per process).

    ``kinds``: the kinds of agent file accepted (all by default); ``deterministic``: a policy plays its most
    likely legal move instead of sampling; ``other_games``: ``check_trained_for``."""

    def __init__(self, path: str | os.PathLike[str], deterministic: bool = False, name: str | None = None,
                 kinds: Sequence[str] | None = None, other_games: str = "error") -> None:
        self.path = os.fspath(path)
        self.deterministic = deterministic
        self.name = name
        self.kinds = kinds
        self.other_games = other_games
        self.meta()  # a bad file fails here, in the caller's process, not in a worker

    def meta(self) -> dict[str, Any]:
        """The file's checked metadata."""
        return self._load()[0]

    def _load(self):
        try:
            stat = os.stat(self.path)
        except OSError as error:
            raise AgentFileError(f"cannot read the agent file {self.path}: {error.strerror or error}") from None
        key = (self.path, stat.st_mtime_ns, stat.st_size)  # a rewritten file is read again
        if key not in _LOADED:
            meta, arrays = read_agent_file(self.path)
            _LOADED[key] = meta, network_from_file(meta, arrays)
        meta = _LOADED[key][0]
        if self.kinds is not None and meta["kind"] not in self.kinds:
            raise AgentFileError(f"{self.path} holds a {meta['kind']} agent; this name takes "
                                 f"{' or '.join(self.kinds)}")
        return _LOADED[key]

    def __call__(self):
        meta, network = self._load()
        return agent_from_file(meta, network, self.deterministic, self.name, self.other_games)
