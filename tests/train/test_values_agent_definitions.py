"""train/values_agent.py at its edges, without training: the default architecture is the committed model's,
the numpy copy is float32 like every agent file, a saved file keeps its report, a labelling agent plays its
groups in its layout, and a file of another kind is refused in full. Written against mutmut's survivors of
issue 38 (docs/mutation.md)."""

import dataclasses
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from fifthave.agents.agentfile import read_agent_file  # noqa: E402
from fifthave.agents.learned import ACTIVATION_FUNCTIONS, ActorNet  # noqa: E402
from fifthave.agents.models import MODELS  # noqa: E402
from fifthave.agents.search import DECISION_GROUPS, decision_kinds  # noqa: E402
from fifthave.train.config import CandidateValueConfig  # noqa: E402
from fifthave.train.export import write_policy  # noqa: E402
from fifthave.train.values_agent import (  # noqa: E402
    AdviceFreeSearchAgent,
    CandidateValueEnsemble,
    CandidateValueNet,
    LabellingValueAgent,
    load_values,
    numpy_net,
    save_values,
)
from fifthave_env.engine import GameConfig  # noqa: E402
from fifthave_env.engine.actions import NUM_ACTIONS  # noqa: E402
from fifthave_env.observation import OBS_SIZES  # noqa: E402


def test_the_default_network_has_the_committed_models_shapes():
    net = CandidateValueEnsemble(OBS_SIZES[1])  # defaults: one member, hidden 256, head 128 (values-4p's)
    single = CandidateValueNet(OBS_SIZES[1])  # its own defaults too: hidden 256, head 128
    assert len(net.members) == 1 and single.state[0].out_features == 256 and single.head[1].out_features == 128
    exported = {k: v.shape for k, v in numpy_net(net).to_arrays()[1].items()}
    assert exported["member0.head.1.weight"] == (256, 128) and exported["member0.state.0.weight"] == (OBS_SIZES[1], 256)
    if os.path.exists(MODELS["values-4p"].file):  # not in mutmut's scratch copy
        meta, arrays = read_agent_file(MODELS["values-4p"].file)
        assert exported == {k: v.shape for k, v in arrays.items() if k.startswith("member0.")}


def test_the_numpy_copy_is_float32_and_computes_what_the_torch_network_does():
    torch.manual_seed(0)
    net = CandidateValueEnsemble(OBS_SIZES[1], hidden=8, members=2)
    copy = numpy_net(net)
    assert all(part.dtype == np.float32 for member in copy.members for part in member)
    assert all(member[1].ndim == 1 and member[0].shape == (OBS_SIZES[1], 8) for member in copy.members)


def test_a_saved_file_keeps_its_report_and_a_file_of_another_kind_is_refused_in_full(tmp_path):
    config = dataclasses.asdict(CandidateValueConfig(embedding_width=8, ensemble=1))
    path = tmp_path / "values.npz"
    save_values(path, CandidateValueEnsemble(OBS_SIZES[1], hidden=8), config, {"decisions": 7})
    assert load_values(path)[3]["training"]["report"] == {"decisions": 7}
    other = str(tmp_path / "policy.npz")
    hidden = [np.zeros((OBS_SIZES[1], 4), np.float32), np.zeros(4, np.float32), ACTIVATION_FUNCTIONS["tanh"]]
    output = [np.zeros((4, NUM_ACTIONS), np.float32), np.zeros(NUM_ACTIONS, np.float32), None]
    write_policy(other, ActorNet([hidden, output]), {"num_players": 4, "board": 5, "observation_layout": 1}, "tiny")
    with pytest.raises(ValueError) as error:
        load_values(other)
    kind = read_agent_file(other)[0]["kind"]
    assert str(error.value) == f"{other} holds a {kind} agent, not a candidate-value network"


def test_a_labelling_agent_plays_its_groups_in_its_layout():
    net = numpy_net(CandidateValueEnsemble(OBS_SIZES[1], hidden=8))
    agent = LabellingValueAgent(net, ["bid"], 1, samples=2, depth=1)
    assert agent.observation_layout == 1 and agent.decisions == decision_kinds(["bid"])
    assert (agent.samples, agent.depth) == (2, 1)


def test_an_advice_free_search_searches_every_group_and_refuses_to_play_without_a_sampler():
    agent = AdviceFreeSearchAgent(samples=3, depth=2)
    assert (agent.samples, agent.depth, agent.name, agent.advice, agent.net) == (3, 2, "search", False, None)
    assert agent.reads_view is True and agent.decisions == decision_kinds(list(DECISION_GROUPS))
    config = GameConfig(num_players=3)
    agent.reset(config, 1, np.random.default_rng(0))
    assert agent.config is agent.rollout.config is config and (agent.seat, agent.plan) == (1, [])
    with pytest.raises(ValueError) as error:
        agent._choose(None, [(1,), (2,)], ())
    assert str(error.value) == "search searches: seat it with a runner that attaches a sampler"
    agent.attach_sampler(lambda rng: None)
    agent._search = lambda candidates, default: candidates[1]  # what the search chose is played
    assert agent._choose(None, [(1,), (2,)], ()) == (2,)


@pytest.mark.parametrize("advice", [True, False])
def test_a_labelling_agent_has_rollouts_for_its_search_with_or_without_advice(advice):
    net = numpy_net(CandidateValueEnsemble(OBS_SIZES[1], hidden=8))
    agent = LabellingValueAgent(net, list(DECISION_GROUPS), 1, samples=2, depth=1, advice=advice)
    config = GameConfig(num_players=4)
    agent.reset(config, 2, np.random.default_rng(0))
    assert agent.advice is advice and agent.rollout.config is config
