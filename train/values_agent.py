"""The candidate-value network in torch (to fit it), its labelling agent, and its agent file.

``fifthave.train.candidate_values`` trains the network; ``fifthave.agents.learned.CandidateValueAgent`` plays it with numpy alone
(``values:PATH``, or the path of its agent file). The network values
each *candidate* of a decision - a whole bid in an auction (pass, the heuristic's bid, the cheapest raise per
colour and building limit, as ``fifthave.agents.search`` lists them), or a legal move of a board decision - from the
seat's observation and the candidate's features; ``CandidateValueAgent`` plays the candidate valued most. The
saved network is an ensemble: the mean of a few networks fitted with different seeds, whose choices vary
less than any one's.

Saved file: the agent file (``fifthave.agents.agentfile``, kind ``candidate-values``), written by ``save_values``.
The older ``values.pt`` is converted once with ``python -m fifthave.train.export values.pt``.
"""

import numpy as np
import torch
from torch import nn

from fifthave.agents.agentfile import VALUE_PARTS, AgentFileError, candidate_width, groups_played, read_agent_file
from fifthave.agents.learned import (CANDIDATE_FEATURES, VALUE_SCALE, CandidateValueAgent, NumpyValueNet,  # noqa: F401
                            candidate_features)
from fifthave.agents.search import DECISION_GROUPS, DEFAULT_PRIOR, Rollout

from .export import write_values


class CandidateValueNet(nn.Module):
    """Value of a candidate: an embedding of the observation plus one of the candidate, then an MLP."""

    def __init__(self, obs_size, hidden=256, head=128, effects=False, destinations=False):
        super().__init__()
        self.state = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.candidate = nn.Linear(candidate_width(effects, destinations), hidden)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(hidden, head), nn.ReLU(), nn.Linear(head, 1))

    def forward(self, observations, candidates, owner):
        """Values of ``candidates`` [N, F]; ``owner`` [N] indexes their decision's row of ``observations``."""
        return self.head(self.state(observations)[owner] + self.candidate(candidates)).squeeze(-1)


class CandidateValueEnsemble(nn.Module):
    """The mean value of ``members`` networks (fitted with different seeds)."""

    def __init__(self, obs_size, hidden=256, members=1, head=128, effects=False, destinations=False):
        super().__init__()
        self.members = nn.ModuleList(CandidateValueNet(obs_size, hidden, head, effects, destinations)
                                     for _ in range(members))

    def forward(self, observations, candidates, owner):
        return torch.stack([m(observations, candidates, owner) for m in self.members]).mean(dim=0)


def numpy_net(ensemble):
    """``fifthave.agents.learned.NumpyValueNet`` of a torch ensemble (weights transposed to inputs x outputs)."""
    members = []
    for member in ensemble.members:
        p = {k: v.detach().numpy().astype(np.float32) for k, v in member.state_dict().items()}
        members.append([p[k].T.copy() if k.endswith("weight") else p[k] for k in VALUE_PARTS])
    return NumpyValueNet(members)


def advised_search(agent, view, candidates):
    """The labelling search with the heuristic's advice (``teacher_advice``) at ``view``'s decision: it values the
    advice-free ``candidates`` and the HeuristicAgent's choice (among them, or one more candidate if legal) on the
    same samples, adds ``SearchAgent``'s prior to the heuristic's choice, and returns the best, as ``SearchAgent``
    plays. ``agent.last_search`` then holds ``candidates`` alone, with those values (the prior included) and no
    default: labels of the advice-free network's own candidates, in the form of the advice-free search's. Issue
    35's probe: it wins 0.245 against three search:32:2 where the advice-free search wins 0.148."""
    default = agent._heuristic_choice(view)
    searched = list(candidates)
    if default not in searched and view.is_legal(default[0]):
        searched.append(default)
    agent._search(searched, ())  # (): no prior inside; added below, to the labels too
    values = agent.last_search[1]
    if default in searched:
        values[searched.index(default)] += DEFAULT_PRIOR
    agent.last_search = (list(candidates), values[:len(candidates)], ())
    return searched[int(values.argmax())]


class _SearchingValueAgent(CandidateValueAgent):
    """What both labelling agents share: rollouts (and, with ``teacher_advice``, the HeuristicAgent) for a search
    that the advice-free player does not build, and the search ``teacher_advice`` chooses."""

    def _prepare_search(self, config):
        self.rollout = Rollout(self.rollout_factory, config)
        if self.teacher_advice:
            self._advised_by_heuristic()

    def _labelling_search(self, view, candidates, default):
        """The search's choice; it sets ``last_search``, whose values label the decision."""
        if self.teacher_advice:
            return advised_search(self, view, candidates)
        return self._search(candidates, default)


class LabellingValueAgent(_SearchingValueAgent):
    """Plays as ``CandidateValueAgent`` and searches every decision it decides, so that the search's values
    label the positions the network's own play reaches (DAgger: Ross, Gordon and Bagnell, 2011). With
    ``teacher_advice`` (advice-free networks only), the search is ``advised_search``."""

    def __init__(self, net, groups, observation_layout, samples, depth, advice=True, effects=False,
                 destinations=False, teacher_advice=False, bid_destinations=False):
        super().__init__(net, groups, observation_layout, advice=advice, effects=effects, destinations=destinations,
                         bid_destinations=bid_destinations)
        if teacher_advice and advice:
            raise ValueError("teacher_advice is for advice-free networks (advice=False): an advised network's "
                             "search already weighs the heuristic's choice")
        self.samples, self.depth, self.teacher_advice = samples, depth, teacher_advice

    def reset(self, config, seat, rng):
        super().reset(config, seat, rng)
        if not self.advice:  # the advice-free player builds no rollouts; the labelling search needs them
            self._prepare_search(config)

    def _choose(self, view, candidates, default):
        self._labelling_search(view, candidates, default)  # its choice is not played
        return super()._choose(view, candidates, default)


class AdviceFreeSearchAgent(_SearchingValueAgent):
    """The labelling search of an advice-free run: it searches every decision over the candidates an
    advice-free ``CandidateValueAgent`` weighs (``enumerated_bid_candidates``, every legal move) and plays the
    best on its samples, with no bonus for the heuristic's choice (there is none); its rollouts play the
    heuristic. With ``teacher_advice``, it plays ``advised_search`` instead. Needs the sampler a runner attaches."""

    reads_view = True  # the runner hands it a state view (the search needs no observation)

    def __init__(self, samples, depth, teacher_advice=False):
        super().__init__(None, list(DECISION_GROUPS), advice=False, name="search")
        self.samples, self.depth, self.teacher_advice = samples, depth, teacher_advice

    def reset(self, config, seat, rng):
        super().reset(config, seat, rng)
        self._prepare_search(config)

    def _choose(self, view, candidates, default):
        if self.sampler is None:
            raise ValueError(f"{self.name} searches: seat it with a runner that attaches a sampler")
        return self._labelling_search(view, candidates, default)


def save_values(path, net, config, report):
    """Write the ensemble ``net`` with its training ``config`` (a dict) and ``report`` as an agent file
    (``fifthave.train.export.write_values``); returns the weights' sha256."""
    return write_values(path, numpy_net(net), config, report)


def load_values(path):
    """(numpy network, decision groups it plays, observation layout, metadata) of the agent file at ``path``
    (numpy alone, nothing unpickled); ``AgentFileError`` (a ``ValueError``) for anything else."""
    meta, arrays = read_agent_file(path)
    if meta["kind"] != "candidate-values":
        raise AgentFileError(f"{path} holds a {meta['kind']} agent, not a candidate-value network")
    return (NumpyValueNet.from_arrays(meta["architecture"], arrays), groups_played(meta["groups"], meta.get(
        "played_groups")), meta["observation_layout"], meta)
