"""A candidate-value network as an agent (``values:PATH``): features, network, the agent, saving and loading.

``train.candidate_values`` trains the network; this module is what playing it needs. The network values
each *candidate* of a decision - a whole bid in an auction (pass, the heuristic's bid, the cheapest raise per
colour and building limit, as ``agents.search`` lists them), or a legal move of a board decision - from the
seat's observation and the candidate's features; ``CandidateValueAgent`` plays the candidate valued most. The
saved network is an ensemble: the mean of a few networks fitted with different seeds, whose choices vary
less than any one's.

Saved file: a ``torch.save`` dict of ``meta`` (JSON text: format, the training config, the report,
versions) and ``weights`` (the bytes of the ensemble's ``state_dict``), loaded with ``weights_only=True``
and its fields checked, so a bad or hostile file is refused with a ``ValueError`` and runs no code.
"""

import hashlib
import io
import json

import numpy as np
import torch
from torch import nn

from agents.bidding import table_limit, table_total
from agents.search import SearchAgent, decision_kinds
from fifthave_env.engine.actions import BID_ADD, BID_CONFIRM, BID_PASS, NUM_ACTIONS
from fifthave_env.engine.cards import NUM_KINDS
from fifthave_env.observation import OBS_SIZES

FORMAT = "fifthave-candidate-values/2"  # /2: an ensemble of networks
_BID = NUM_ACTIONS + NUM_KINDS  # offset of the bid summary in the candidate features
CANDIDATE_FEATURES = _BID + 9
VALUE_SCALE = 10.0  # value differences are a few hundredths: scaled up for the fit


def candidate_features(view, macro, default):
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


class CandidateValueNet(nn.Module):
    """Value of a candidate: an embedding of the observation plus one of the candidate, then an MLP."""

    def __init__(self, obs_size, hidden=256, head=128):
        super().__init__()
        self.state = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.candidate = nn.Linear(CANDIDATE_FEATURES, hidden)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden, head), nn.ReLU(), nn.Linear(head, 1))

    def forward(self, observations, candidates, owner):
        """Values of ``candidates`` [N, F]; ``owner`` [N] indexes their decision's row of ``observations``."""
        return self.head(self.state(observations)[owner] + self.candidate(candidates)).squeeze(-1)


class CandidateValueEnsemble(nn.Module):
    """The mean value of ``members`` networks (fitted with different seeds)."""

    def __init__(self, obs_size, hidden=256, members=1):
        super().__init__()
        self.members = nn.ModuleList(CandidateValueNet(obs_size, hidden) for _ in range(members))

    def forward(self, observations, candidates, owner):
        return torch.stack([m(observations, candidates, owner) for m in self.members]).mean(dim=0)


class NumpyValueNet:
    """The same ensemble in numpy, for play (one small decision at a time)."""

    def __init__(self, ensemble):
        self.members = []
        for member in ensemble.members:
            p = {k: v.detach().numpy().astype(np.float32) for k, v in member.state_dict().items()}
            self.members.append(tuple(p[k].T.copy() if k.endswith("weight") else p[k] for k in (
                "state.0.weight", "state.0.bias", "state.2.weight", "state.2.bias", "candidate.weight",
                "candidate.bias", "head.1.weight", "head.1.bias", "head.3.weight", "head.3.bias")))

    def values(self, observation, candidates):
        nz = np.flatnonzero(observation)
        total = 0.0
        for s1, b1, s2, b2, c, bc, h1, bh1, h2, bh2 in self.members:
            state = np.maximum(observation[nz] @ s1[nz] + b1, 0) @ s2 + b2
            hidden = np.maximum(state + candidates @ c + bc, 0)
            total = total + (np.maximum(hidden @ h1 + bh1, 0) @ h2 + bh2)[:, 0]
        return total / len(self.members)


class CandidateValueAgent(SearchAgent):
    """Plays the candidate its network values most at the decisions of ``groups``; the HeuristicAgent elsewhere."""

    reads_view = False  # its network reads the observation: runners call ``act``

    def __init__(self, net, groups, observation_layout=0, prior=0.0, name="values"):
        super().__init__(rollouts=1, depth=0, prior=prior, name=name, groups=groups)
        self.net = net
        self.observation_layout = observation_layout  # the tournament builds this layout for it
        self.decided = self.deviated = 0  # decisions its network chose, and those not the heuristic's choice

    def act(self, observation, action_mask):
        expected = OBS_SIZES[self.observation_layout]
        if observation is None or len(observation) != expected:
            raise ValueError(f"{self.name} reads observation layout {self.observation_layout} ({expected} values), "
                             f"got {None if observation is None else len(observation)} values: give it its layout "
                             "(agents.base.LayoutObservations, as the tournament and the terminal game do)")
        self._observation = observation
        return super().act(observation, action_mask)

    def _choose(self, view, candidates, default):
        features = np.stack([candidate_features(view, m, default) for m in candidates])
        values = self.net.values(np.asarray(self._observation, dtype=np.float32), features) / VALUE_SCALE
        values += self.prior * features[:, _BID + 8]
        chosen = candidates[int(values.argmax())]
        self.decided += 1
        self.deviated += chosen != default
        return chosen


class LabellingValueAgent(CandidateValueAgent):
    """Plays as ``CandidateValueAgent`` and searches every decision it decides, so that the search's values
    label the positions the network's own play reaches (DAgger: Ross, Gordon and Bagnell, 2011)."""

    def __init__(self, net, groups, observation_layout, samples, depth):
        super().__init__(net, groups, observation_layout)
        self.samples, self.depth = samples, depth

    def _choose(self, view, candidates, default):
        self._search(candidates, default)  # sets last_search; its choice is not played
        return super()._choose(view, candidates, default)


def groups_played(groups, played):
    """The decision groups a network trained on ``groups`` plays: ``played`` (a non-empty subset of them), or
    all of them if ``played`` is None."""
    if played is None:
        return groups
    if not isinstance(played, list) or not played or any(g not in groups for g in played):
        raise ValueError(f"played_groups must be None or a non-empty list from groups {groups!r}, got {played!r}")
    return played


def save_values(path, net, config, report):
    """Write ``net`` with its training ``config`` (a dict) and ``report``; returns the weights' sha256."""
    buffer = io.BytesIO()
    torch.save(net.state_dict(), buffer)
    weights = buffer.getvalue()
    payload = {"format": FORMAT, "config": config, "report": report,
               "versions": {"torch": torch.__version__, "numpy": np.__version__}}
    torch.save({"meta": json.dumps(payload), "weights": weights}, path)
    return hashlib.sha256(weights).hexdigest()


def load_values(path):
    """(numpy network, decision groups it plays, observation layout, meta) of a file written by ``save_values``."""
    try:
        blob = torch.load(path, weights_only=True)
        meta = json.loads(blob["meta"])
        config = meta["config"]
        if meta.get("format") != FORMAT:
            raise ValueError(f"format {meta.get('format')!r}, expected {FORMAT!r}")
        groups, layout, hidden, members = (config["groups"], config["observation_layout"], config["hidden"],
                                           config["ensemble"])
        decision_kinds(groups)
        groups = groups_played(groups, config.get("played_groups"))  # absent in files written before it existed
        if (layout not in OBS_SIZES or not isinstance(hidden, int) or not 1 <= hidden <= 4096
                or not isinstance(members, int) or not 1 <= members <= 64):
            raise ValueError(f"observation_layout {layout!r}, hidden {hidden!r} or ensemble {members!r} out of range")
        net = CandidateValueEnsemble(OBS_SIZES[layout], hidden, members)
        net.load_state_dict(torch.load(io.BytesIO(blob["weights"]), weights_only=True))
    except Exception as error:  # untrusted input: say what is wrong, never run its code
        raise ValueError(f"{path} is not a candidate-value network: {type(error).__name__}: {error}") from None
    return NumpyValueNet(net), groups, layout, meta


_LOADED = {}  # path -> load_values(path), per process


class ValuesFactory:
    """A fresh ``CandidateValueAgent`` of the network at ``path`` per call; loaded once per process."""

    def __init__(self, path, name=None):
        self.path = path
        self.name = name or f"values:{path}"

    def __call__(self):
        if self.path not in _LOADED:
            _LOADED[self.path] = load_values(self.path)
        net, groups, layout, _ = _LOADED[self.path]
        return CandidateValueAgent(net, groups, layout, name=self.name)
