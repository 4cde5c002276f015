"""The exported agent file (fifthave.agents.agentfile): written by training and fifthave.train.export, played with numpy alone,
read without unpickling, every crafted file refused with one clear error; the committed models by name."""

import base64
import io
import json
import os
import pickle
import subprocess
import sys
import time
import warnings
import zipfile

import numpy as np
import pytest

from fifthave.agents import models
from fifthave.agents.agentfile import AgentFileError, MAX_PARAMETERS, VALUE_PARTS, read_agent_file, write_agent_file
from fifthave.agents.learned import AgentFileFactory
from fifthave.agents.registry import agent_names_help
from fifthave.agents.tournament import agent_factory
from fifthave_env.engine import GameConfig
from fifthave_env.replay import record_game

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAINING = os.path.join(ROOT, "results", "training")


class Payload:
    """Unpickled, it writes its marker file: proof that loading ran code from the file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('code from an agent file ran')",)


def actions(make_agent, seeds, num_players=4):
    """The actions of whole games, ``make_agent()`` in seat 0 against HeuristicAgents."""
    return [record_game([make_agent()] + [agent_factory("heuristic")() for _ in range(num_players - 1)],
                        GameConfig(num_players=num_players), seed=seed).actions for seed in seeds]


def tiny_policy(num_players=2, advisers=(), layout=1):
    """An untrained MaskablePPO policy (random initial weights) and its training config."""
    import torch

    from fifthave_env.gym_env import FifthAvenueEnv
    from fifthave.train.config import config_from_dict
    from fifthave.train.hints import advised_observation_space
    from fifthave.train.policy_agent import policy_spec

    config = config_from_dict({"num_players": num_players, "net_arch": [32, 16], "advisers": list(advisers),
                               "observation_version": layout})
    env = FifthAvenueEnv(**config.env_kwargs())
    policy_class, kwargs = policy_spec(config)
    torch.manual_seed(0)
    policy = policy_class(advised_observation_space(env.observation_space, config.advisers), env.action_space,
                          lambda _: 0.0, **kwargs)
    return policy, config


def written_policy(path, **options):
    """Write an untrained policy to ``path``; returns a factory of agents playing it read by torch (``greedy``:
    its most likely moves) and its config."""
    from fifthave.train.export import write_policy
    from fifthave.train.policy_agent import ActorNet, PolicyAgent

    policy, config = tiny_policy(**options)
    write_policy(path, ActorNet(policy), config.to_dict(), "tiny")
    return (lambda greedy=False: PolicyAgent(policy, greedy, meta={"config": config.to_dict()})), config


NO_TORCH = """
import json, sys
class NoTrainingLibraries:  # what a user who installed the package without the training extra has
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "stable_baselines3", "sb3_contrib", "ray", "train"):
            raise ImportError(f"{name} is blocked: playing must not need it")
sys.meta_path.insert(0, NoTrainingLibraries())
from fifthave.agents.tournament import agent_factory
from fifthave_env.engine import GameConfig
from fifthave_env.replay import record_game
names, num_players, seeds = json.loads(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
played = [[record_game([agent_factory(name)()] + [agent_factory("heuristic")() for _ in range(num_players - 1)],
                       GameConfig(num_players=num_players), seed=seed).actions for seed in seeds] for name in names]
assert not {"torch", "stable_baselines3", "ray"} & set(sys.modules)
print(json.dumps(played))
"""


def actions_without_torch(names, num_players, seeds):
    """``actions`` of each agent name in ``names``, in a process where torch, sb3, Ray and train cannot be
    imported."""
    result = subprocess.run([sys.executable, "-c", NO_TORCH, json.dumps(names), str(num_players), json.dumps(seeds)],
                            capture_output=True, text=True, timeout=120, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=ROOT))
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def test_an_exported_policy_plays_the_same_moves_in_a_process_without_torch(tmp_path):
    path = tmp_path / "tiny.npz"
    make_reference, _ = written_policy(path)
    seeds = [0, 1]
    expected = actions(make_reference, seeds, num_players=2)  # sampled: the same generator draws
    greedy = actions(lambda: make_reference(greedy=True), seeds, num_players=2)
    assert greedy != expected
    assert actions_without_torch([str(path), f"{path}:greedy"], 2, seeds) == [expected, greedy]
    assert actions(AgentFileFactory(path), seeds, num_players=2) == expected
    assert actions(agent_factory(f"policy:{path}:greedy"), seeds, num_players=2) == greedy


def test_a_candidate_value_network_round_trips_and_plays_without_torch(tmp_path):
    import dataclasses

    import torch

    from fifthave.train.candidate_values import CandidateValueConfig
    from fifthave.train.values_agent import CandidateValueAgent, CandidateValueEnsemble, numpy_net, save_values

    config = CandidateValueConfig(num_players=2, observation_layout=0, embedding_width=16, ensemble=2)
    torch.manual_seed(1)
    net = CandidateValueEnsemble(1176, 16, 2)
    path = tmp_path / "values.npz"
    save_values(path, net, dataclasses.asdict(config), {"decisions": 0})
    seeds = [3]
    expected = actions(lambda: CandidateValueAgent(numpy_net(net), config.groups), seeds, num_players=2)
    assert actions_without_torch([f"values:{path}"], 2, seeds) == [expected]
    assert read_agent_file(path)[0]["training"]["report"] == {"decisions": 0}


def test_the_committed_models_play_exactly_as_their_original_files():
    """policy-4p and values-4p are conversions of results/training/policy.zip and values/values.pt (kept to
    continue training from): the same moves on the same seeds as those files read by torch."""
    import torch

    from fifthave.train.policy_agent import PolicyAgent
    from fifthave.train.values_agent import CandidateValueAgent, CandidateValueEnsemble, numpy_net

    seeds = [0, 1]
    original = PolicyAgent.load(os.path.join(TRAINING, "policy.zip"))
    assert actions(lambda: models.load("policy-4p"), seeds) == actions(
        lambda: PolicyAgent(original.net, meta=original.meta), seeds)
    assert actions(lambda: models.load("policy-4p", deterministic=True), seeds) == actions(
        lambda: PolicyAgent(original.net, deterministic=True, meta=original.meta), seeds)
    blob = torch.load(os.path.join(TRAINING, "values", "values.pt"), weights_only=True)
    config = json.loads(blob["meta"])["config"]
    ensemble = CandidateValueEnsemble(1409, config["hidden"], config["ensemble"])
    ensemble.load_state_dict(torch.load(io.BytesIO(blob["weights"]), weights_only=True))  # torch's own names
    net = numpy_net(ensemble)
    assert actions(lambda: models.load("values-4p"), seeds) == actions(
        lambda: CandidateValueAgent(net, config["groups"], config["observation_layout"]), seeds)


def test_the_committed_models_are_listed_with_their_games_and_refuse_other_games():
    listed = {m.name: (m.num_players, m.board, m.kind) for m in models.available()}
    assert listed == {"policy-4p": (4, 5, "policy"), "values-4p": (4, 5, "candidate-values"),
                      "values-all-4p": (4, 5, "candidate-values"), "values-effects-4p": (4, 5, "candidate-values"),
                      "values-league-4p": (4, 5, "candidate-values"),
                      "values-selfplay-4p": (4, 5, "candidate-values"),
                      "values-selfplay-3p": (3, 5, "candidate-values"),
                      "values-selfplay-2p": (2, 5, "candidate-values"), "dmc-4p": (4, 5, "action-values")}
    assert all(name in agent_names_help() for name in listed)
    for name in listed:
        meta = AgentFileFactory(models.MODELS[name].file).meta()
        assert (meta["num_players"], meta["board"], meta["kind"]) == listed[name]
        players = listed[name][0]
        other = 2 if players != 2 else 4
        agent = agent_factory(name)()
        with pytest.raises(ValueError, match=f"{name} was trained for {players} players on the 5-plot board, not "
                                             f"{other} players"):
            agent.reset(GameConfig(num_players=other), 0, np.random.default_rng(0))
        with pytest.raises(ValueError, match=f"not {players} players on the 6-plot board"):
            agent.reset(GameConfig(num_players=players, board=6), 0, np.random.default_rng(0))
        with pytest.warns(UserWarning, match="plays a game it never saw"):
            actions(lambda: models.load(name, other_games="warn"), [0], num_players=3 if players != 3 else 4)
    with pytest.raises(ValueError, match="unknown model 'values-9p'; available: policy-4p \\(4 players, board 5\\)"):
        models.load("values-9p")


# ---- crafted files: refused with one clear error, nothing run ---------------------------------------

def rewritten(path, target, replace=None, meta_change=None, add=None):
    """A copy of the agent file at ``path`` with members replaced (``{name: bytes}``), its metadata changed
    (a function of the dict, or bytes) and members added."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members.update(replace or {})
    if callable(meta_change):
        meta = json.loads(members["meta.json"])
        meta_change(meta)
        members["meta.json"] = json.dumps(meta).encode()
    elif meta_change is not None:
        members["meta.json"] = meta_change
    members.update(add or {})
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return target


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = tmp_path_factory.mktemp("good") / "tiny.npz"
    written_policy(path)
    return path


def refused(path, match):
    """``read_agent_file``, the factory and the tournament's agent name all refuse ``path`` with ``match``."""
    for load in (read_agent_file, lambda p: AgentFileFactory(p)(), lambda p: agent_factory(str(p))()):
        with pytest.raises(AgentFileError, match=match) as error:
            load(path)
        assert str(path) in str(error.value) and "\n" not in str(error.value)


def npy(array, allow_pickle=False):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def test_an_object_array_carrying_a_pickle_is_refused_without_running_it(good, tmp_path):
    marker = tmp_path / "PWNED"
    evil = np.empty(1, dtype=object)
    evil[0] = Payload(marker)
    for name in ("layer0.bias.npy", "layer2.weight.npy"):
        crafted = rewritten(good, tmp_path / "evil.npz", replace={name: npy(evil, allow_pickle=True)})
        refused(crafted, f"{name} must be a float32 C-order array of shape .*, got object")
    crafted = rewritten(good, tmp_path / "extra.npz", add={"payload.npy": npy(evil, allow_pickle=True),
                                                           "data.pkl": pickle.dumps(Payload(marker))})
    refused(crafted, r"unexpected \['data.pkl', 'payload.npy'\]")
    payload = base64.b64encode(pickle.dumps(Payload(marker))).decode()  # in the metadata: only ever JSON text
    crafted = rewritten(good, tmp_path / "meta.npz", meta_change=lambda meta: meta.update(name=payload[:150]))
    assert read_agent_file(crafted)[0]["name"] == payload[:150]
    crafted = rewritten(good, tmp_path / "meta2.npz", meta_change=pickle.dumps(Payload(marker)))
    refused(crafted, "meta.json is not valid JSON")
    assert not marker.exists()


def test_oversized_networks_are_refused_before_anything_is_allocated(good, tmp_path):
    def widen(meta):
        meta["architecture"]["hidden"] = [20000, 20000]
    started = time.perf_counter()
    refused(rewritten(good, tmp_path / "wide.npz", meta_change=widen), "architecture.hidden must be a list of at "
            "most 16 layer widths from 1 to 4096, got \\[20000, 20000\\]")

    def deep(meta):
        meta["architecture"].update(hidden=[4096] * 16, activations=["tanh"] * 16)
    refused(rewritten(good, tmp_path / "deep.npz", meta_change=deep),
            f"the architecture has [0-9,]+ weights; at most {MAX_PARAMETERS:,} are allowed")

    def many_members(meta):
        meta.update(kind="candidate-values", groups=["bid"], architecture={
            "input": 1409, "candidate_features": 174, "hidden": 4096, "head": 4096, "members": 64})
    refused(rewritten(good, tmp_path / "members.npz", meta_change=many_members), "weights; at most")
    header = io.BytesIO()  # a .npy header declaring 4 GB, and no data
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10**9,)})
    huge = header.getvalue()
    refused(rewritten(good, tmp_path / "huge.npz", replace={"layer0.bias.npy": huge}),
            r"layer0.bias.npy must be a float32 C-order array of shape \(32,\), got float32 of shape \(1000000000,\)")
    refused(rewritten(good, tmp_path / "big_meta.npz", meta_change=b" " * (2 << 20)), "meta.json is 2,097,152 bytes")
    refused(rewritten(good, tmp_path / "nested.npz", meta_change=b"[" * 100000 + b"]" * 100000),
            "meta.json is not valid JSON within limits")
    assert time.perf_counter() - started < 10  # all of them: nothing was allocated for the declared sizes


def test_damaged_and_mislabelled_files_are_refused(good, tmp_path):
    with zipfile.ZipFile(good) as archive:
        bias = np.load(io.BytesIO(archive.read("layer1.bias.npy")))
    refused(rewritten(good, tmp_path / "altered.npz", replace={"layer1.bias.npy": npy(bias + 1)}),
            "the weights do not match their weights_sha256")
    refused(rewritten(good, tmp_path / "nan.npz", replace={"layer1.bias.npy": npy(bias * np.nan)}), "not finite")
    refused(rewritten(good, tmp_path / "players.npz", meta_change=lambda m: m.update(num_players=7)),
            "num_players must be one of")
    refused(rewritten(good, tmp_path / "advisers.npz", meta_change=lambda m: m.update(advisers=["os.system"])),
            "advisers must be a list of at most 8 scripted agent names")
    refused(rewritten(good, tmp_path / "version.npz", meta_change=lambda m: m.update(format_version=2)),
            "format must be 'fifthave-agent' version 1")
    (tmp_path / "text.npz").write_text("hello")
    refused(tmp_path / "text.npz", "is not an agent file")
    refused(os.path.join(TRAINING, "policy.zip"), "python -m fifthave.train.export .*policy.zip")
    with pytest.raises(AgentFileError, match="holds a policy agent; this name takes candidate-values"):
        agent_factory(f"values:{good}")


def test_written_files_are_reproducible_and_checked_as_they_are_written(good, tmp_path):
    meta, arrays = read_agent_file(good)
    fields = {k: v for k, v in meta.items() if k not in ("format", "format_version", "weights_sha256")}
    again = tmp_path / "again.npz"
    assert write_agent_file(again, fields, arrays) == meta["weights_sha256"]
    assert again.read_bytes() == good.read_bytes()
    with pytest.raises(ValueError, match="do not match the architecture"):
        write_agent_file(tmp_path / "bad.npz", fields, {**arrays, "layer0.bias": np.zeros(5)})
    with np.load(good, allow_pickle=False) as loaded:  # numpy's own reader sees the arrays too
        assert np.array_equal(loaded["layer0.weight"], arrays["layer0.weight"])


def test_old_formats_are_refused_fast_when_their_metadata_declares_a_huge_network(tmp_path):
    from fifthave.train.checkpoint import CheckpointError, read_meta
    from fifthave.train.export import export

    checkpoint = tmp_path / "wide.zip"
    with zipfile.ZipFile(os.path.join(TRAINING, "policy.zip")) as source, zipfile.ZipFile(checkpoint, "w") as target:
        for name in source.namelist():
            content = source.read(name)
            if name == "fifthave.json":
                meta = json.loads(content)
                meta["config"]["net_arch"] = [20000, 20000]
                content = json.dumps(meta)
            target.writestr(name, content)
    started = time.perf_counter()
    with pytest.raises(CheckpointError, match=r"net_arch\[0\] must be an int from 1 to 4096, got 20000"):
        read_meta(checkpoint)
    rllib = tmp_path / "iter_000001"
    rllib.mkdir()
    (rllib / "actor.pt").write_bytes(b"")
    (rllib / "meta.json").write_text(json.dumps({"obs_size": 1176, "hidden": [20000, 20000], "activation": "tanh"}))
    with pytest.raises(ValueError, match="hidden \\(at most 16 widths from 1 to 4096\\)"):
        export(str(rllib))
    assert time.perf_counter() - started < 5


def test_a_search_agent_rolls_out_with_a_trained_agent_named_in_its_rollout_policy():
    agent = agent_factory("search:2:1:policy-4p:greedy")()
    assert isinstance(agent.rollout_factory, AgentFileFactory) and agent.rollout_factory.deterministic
    assert agent_factory("search:1:1:values-4p")().rollout_factory.meta()["kind"] == "candidate-values"
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        agent_factory("search:2:1:nobody")


def test_damaged_bytes_anywhere_are_refused_with_an_agent_file_error(good, tmp_path):
    from hypothesis import given, settings, strategies as st

    data = good.read_bytes()

    @settings(max_examples=80, deadline=None, derandomize=True)
    @given(st.lists(st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)), min_size=1, max_size=4))
    def flipped(changes):
        damaged = bytearray(data)
        for position, value in changes:
            damaged[position] = value
        path = tmp_path / "damaged.npz"
        path.write_bytes(bytes(damaged))
        try:
            meta, arrays = read_agent_file(path)
        except AgentFileError as error:
            assert str(path) in str(error)
        else:  # a change the zip format does not check (e.g. a timestamp) left the weights intact
            assert meta["weights_sha256"] == read_agent_file(good)[0]["weights_sha256"]

    flipped()


def test_negligible_weights_are_set_to_zero_and_no_value_changes():
    """Weight decay leaves a third of values-selfplay-4p's weights under 1e-30, many of them subnormal (slow to
    multiply): the agent's net multiplies 0 instead and keeps the weights as they are (a file written from it keeps
    its bytes), and every value it computes in a game is bit for bit the value of the file's own weights."""
    from fifthave.agents.learned import NEGLIGIBLE_WEIGHT, NumpyValueNet

    model = models.MODELS["values-selfplay-4p"]
    meta, arrays = read_agent_file(model.file)
    raw = NumpyValueNet(NumpyValueNet.from_arrays(meta["architecture"], arrays).members, flush=False)  # as they are
    tiny = sum(int(((w != 0) & (np.abs(w) < NEGLIGIBLE_WEIGHT)).sum()) for member in raw.members for w in member)
    assert tiny > 100_000  # the file has them
    agent = models.load("values-selfplay-4p")
    net = agent.net
    multiplied = (net.observation_weights, net.state_weights, net.candidate_weights, net.head_weights,
                  net.output_weights)
    assert all(not ((w != 0) & (np.abs(w) < NEGLIGIBLE_WEIGHT)).any() for w in multiplied)
    assert all(np.array_equal(kept, stored) for kept, stored in zip(
        (w for member in agent.net.members for w in member), (w for member in raw.members for w in member)))
    calls = []
    flushed_values = agent.net.values
    agent.net.values = lambda observation, candidates: calls.append((observation, candidates)) or flushed_values(
        observation, candidates)
    record_game([agent] + [agent_factory("heuristic")() for _ in range(3)], GameConfig(num_players=4), seed=5)
    assert len(calls) > 50
    for observation, candidates in calls:
        assert np.array_equal(flushed_values(observation, candidates), raw.values(observation, candidates))
