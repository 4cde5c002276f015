"""The candidate-value network: labels from the search, the fit, the agent, saving and loading."""

import dataclasses
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from fifthave.agents.search import SearchAgent, decision_kinds
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.agents.view import SeatView
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.actions import BID_ADD, BID_CONFIRM, BID_PASS
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.observation import OBS_SIZES, Observer
from fifthave.train.candidate_values import CandidateValueConfig, collect, fit, play_labelled
from fifthave.agents.learned import _BID, CandidateValueAgent, candidate_features
from fifthave.train.values_agent import CandidateValueNet, load_values, numpy_net, save_values

TINY = dict(samples=1, observation_layout=0, games=2, held_out_games=1, workers=1, embedding_width=16, epochs=2, ensemble=2,
            eval_games=0)


def bid_position(seed=3):
    """A 4-player game at a bid of seat 0 with more than one candidate."""
    game = Game(GameConfig(num_players=4), seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        if game.decision == BID_DECISION and game.actor == 0:
            view = SeatView(Observer(game.config).observe(game, 0), game.action_mask().astype(bool), game.config)
            agent = SearchAgent()
            agent.reset(game.config, 0, np.random.default_rng(0))
            candidates, default = agent._bid_candidates(view)
            if len(candidates) > 2:
                return game, view, candidates, default
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def test_candidate_features_describe_the_whole_bid():
    _, view, candidates, default = bid_position()
    passing = candidate_features(view, (BID_PASS,), default)
    assert passing[BID_PASS] == 1 and passing[_BID] == 1 and passing[_BID + 2] == passing[_BID + 7]
    bid = next(m for m in candidates if m[0] != BID_PASS)
    x = candidate_features(view, bid, default)
    added = [a - BID_ADD for a in bid if BID_ADD <= a < BID_CONFIRM]
    assert x[bid[0]] == 1 and x[_BID] == 0
    assert x[_BID + 1] == pytest.approx(len(added) / 5)
    assert x[_BID + 3] > 0  # a raise over the high bid
    assert x[_BID + 4:_BID + 7].sum() == 1  # one building limit
    assert x[_BID + 8] == (bid == default)


def test_labels_reproduce_and_are_differences_to_the_heuristic():
    config = CandidateValueConfig(**TINY, groups=["bid"])
    a, b = play_labelled(config, 5), play_labelled(config, 5)
    assert len(a[0]) > 0 and len(a[1]) == len(a[2]) == len(a[3]) > len(a[0])
    for x, y in zip(a, b):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    features, targets = np.asarray(a[1]), np.asarray(a[3])
    is_default = features[:, _BID + 8] == 1
    assert np.all(targets[is_default] == 0) and np.any(targets[~is_default] != 0)
    assert np.all(features[:, BID_ADD:BID_PASS + 1].sum(axis=1) == 1)  # bids only: groups=["bid"]


def test_fit_is_seeded_and_the_numpy_copy_matches_torch(tmp_path):
    config = CandidateValueConfig(**TINY)
    rng = np.random.default_rng(0)
    held_out, data = collect(config, 1, rng, log=print), collect(config, 2, rng)
    nets = [fit(config, data, held_out, log=lambda *a, **k: None) for _ in range(2)]
    digests = [save_values(tmp_path / f"{i}.npz", net, dataclasses.asdict(config), {}) for i, net in enumerate(nets)]
    assert digests[0] == digests[1]
    observations, features, owners, _ = data
    with torch.no_grad():
        expected = nets[0](torch.as_tensor(observations), torch.as_tensor(features), torch.as_tensor(owners))
    first = owners == 0
    got = numpy_net(nets[0]).values(observations[0], features[first])
    assert np.allclose(got, expected.numpy()[first], atol=1e-5)
    # every candidate row at one decision: more rows than one product takes (numpy goes a few rows at a time)
    assert len(features) > 2 * numpy_net(nets[0]).PRODUCT_SIZE // nets[0].members[0].head[1].weight.numel()
    with torch.no_grad():
        at_one = nets[0](torch.as_tensor(observations[:1]), torch.as_tensor(features),
                         torch.zeros(len(features), dtype=torch.int64))
    assert np.allclose(numpy_net(nets[0]).values(observations[0], features), at_one.numpy(), atol=1e-5)
    with torch.no_grad():  # the ensemble's value is its members' mean, and each member has its own seed
        each = [m(torch.as_tensor(observations), torch.as_tensor(features), torch.as_tensor(owners))
                for m in nets[0].members]
    assert len(each) == 2 and not torch.allclose(each[0], each[1])
    assert torch.allclose((each[0] + each[1]) / 2, expected, atol=1e-6)


def test_fitting_in_worker_processes_gives_the_same_weights(tmp_path):
    config = CandidateValueConfig(**{**TINY, "ensemble": 3, "run_dir": str(tmp_path)})
    rng = np.random.default_rng(0)
    held_out, data = collect(config, 1, rng), collect(config, 2, rng)
    lines = {1: [], 2: []}
    digests = {}
    for workers in (1, 2):
        net = fit(dataclasses.replace(config, workers=workers), data, held_out,
                  log=lambda line, **_: lines[workers].append(line))
        digests[workers] = save_values(tmp_path / f"{workers}.npz", net, dataclasses.asdict(config), {})
    assert digests[1] == digests[2]
    assert lines[1] == lines[2] and len(lines[1]) == 3 * (1 + config.epochs)  # every member's lines, in order
    assert sorted(os.listdir(tmp_path)) == ["1.npz", "2.npz"]  # the workers' scratch files are gone


class FixedValues:
    """A stand-in network: prefers passing, or the candidate with the most cards."""

    def __init__(self, prefer_pass):
        self.prefer_pass = prefer_pass

    def values(self, observation, candidates):
        return candidates[:, _BID] if self.prefer_pass else candidates[:, _BID + 1]


@pytest.mark.parametrize("prefer_pass", [True, False])
def test_agent_plays_the_candidate_its_network_values_most(prefer_pass):
    game, view, candidates, default = bid_position()
    agent = CandidateValueAgent(FixedValues(prefer_pass), ["bid"], prior=0.0)
    agent.reset(game.config, 0, np.random.default_rng(0))
    observation, mask = Observer(game.config, version=0).observe(game, 0), game.action_mask().astype(bool)
    action = agent.act(observation, mask)
    longest = max(candidates, key=lambda m: len(m))
    assert action == (BID_PASS if prefer_pass else longest[0])
    while agent.plan:  # the rest of the whole bid is laid card by card
        game.apply(action)
        action = agent.act(Observer(game.config, version=0).observe(game, 0), game.action_mask().astype(bool))
    assert action in (BID_PASS, BID_CONFIRM)


def test_saved_network_plays_by_name_and_bad_files_are_refused(tmp_path):
    config = CandidateValueConfig(**TINY)
    rng = np.random.default_rng(1)
    net = fit(config, collect(config, 1, rng), collect(config, 1, rng), log=lambda *a, **k: None)
    path = tmp_path / "values.npz"
    save_values(path, net, dataclasses.asdict(config), {"decisions": 1})
    lineup = [agent_factory(f"values:{path}")] + [agent_factory("heuristic")] * 3
    tables = [run_tournament(lineup, num_players=4, games=4, seed=2).table for _ in range(2)]
    assert tables[0] == tables[1] and tables[0][0]["seat_games"] == 4
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a network")
    with pytest.raises(ValueError, match="is not an agent file"):
        agent_factory(f"values:{bad}")()


def test_played_groups_limit_the_decisions_the_saved_network_takes(tmp_path):
    config = CandidateValueConfig(**TINY, played_groups=["bid"])
    rng = np.random.default_rng(1)
    net = fit(config, collect(config, 1, rng), collect(config, 1, rng), log=lambda *a, **k: None)
    path = tmp_path / "values.npz"
    save_values(path, net, dataclasses.asdict(config), {})
    agent = agent_factory(f"values:{path}")()
    assert agent.decisions == decision_kinds(["bid"]) != decision_kinds(config.groups)
    refused = r"played_groups must be None or a non-empty list from groups \['bid', 'board'\], got \['move'\]"
    with pytest.raises(ValueError, match=refused):  # the writer checks what a reader checks
        save_values(path, net, {**dataclasses.asdict(config), "played_groups": ["move"]}, {})
    assert load_values(path)[1] == ["bid"]


def test_a_student_network_plays_the_searched_seat_and_the_search_labels_its_positions(tmp_path):
    config = CandidateValueConfig(**TINY)
    rng = np.random.default_rng(3)
    net = fit(config, collect(config, 1, rng), collect(config, 1, rng), log=lambda *a, **k: None)
    path = tmp_path / "student.npz"
    save_values(path, net, dataclasses.asdict(config), {})
    searched = play_labelled(config, 8)
    taught, again = play_labelled(config, 8, student=str(path)), play_labelled(config, 8, student=str(path))
    for x, y in zip(taught, again):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    features, targets = np.asarray(taught[1]), np.asarray(taught[3])
    assert len(taught[0]) > 0 and np.all(targets[features[:, _BID + 8] == 1] == 0)
    assert not np.array_equal(np.asarray(searched[0]), np.asarray(taught[0]))  # other moves, other positions


def test_config_refuses_bad_fields():
    with pytest.raises(ValueError, match="unknown decision groups \\['bids'\\]"):
        CandidateValueConfig(groups=["bids"])
    with pytest.raises(ValueError, match="played_groups must be None or a non-empty list from groups"):
        CandidateValueConfig(groups=["bid", "board"], played_groups=["move"])
    with pytest.raises(ValueError, match="opponents"):
        CandidateValueConfig(opponents=["nobody"])
    with pytest.raises(ValueError, match="samples must be an int >= 1"):
        CandidateValueConfig(samples=0)
    with pytest.raises(ValueError, match="eval_games must be a multiple of num_players"):
        CandidateValueConfig(num_players=3, eval_games=1000)
    with pytest.raises(ValueError, match="num_players must be one of 2, 3, 4"):
        CandidateValueConfig(num_players=5)
    with pytest.raises(ValueError, match="ensemble must be an int >= 1"):
        CandidateValueConfig(ensemble=0)
    assert CandidateValueNet(OBS_SIZES[0]).candidate.in_features == _BID + 9


def test_labels_do_not_depend_on_workers_and_an_interrupted_collection_resumes(tmp_path, monkeypatch):
    import fifthave.train.candidate_values as cv

    monkeypatch.setattr(cv, "CHUNK_GAMES", 1)
    config = CandidateValueConfig(**{**TINY, "workers": 2})
    one = collect(CandidateValueConfig(**TINY), 3, np.random.default_rng(4))
    stored = collect(config, 3, np.random.default_rng(4), store=str(tmp_path), tag="t")
    (tmp_path / "t_0001.npz").unlink()  # the run stopped before the second game's labels were saved
    resumed = collect(config, 3, np.random.default_rng(4), store=str(tmp_path), tag="t")
    for a, b, c in zip(one, stored, resumed):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    np.savez(tmp_path / "t_0002.npz", np.zeros((1, 5)), np.zeros((1, 3)), np.zeros(1), np.zeros(1))
    with pytest.raises(ValueError, match="does not hold labels of this config"):
        collect(config, 3, np.random.default_rng(4), store=str(tmp_path), tag="t")


def test_a_longer_run_reuses_the_labels_of_a_shorter_one(tmp_path, monkeypatch):
    # the first N game seeds do not depend on the number of games: more games only add labels
    import fifthave.train.candidate_values as cv

    monkeypatch.setattr(cv, "CHUNK_GAMES", 1)
    config = CandidateValueConfig(**TINY)
    (tmp_path / "short").mkdir()
    (tmp_path / "long").mkdir()
    collect(config, 2, np.random.default_rng(4), store=str(tmp_path / "short"), tag="t")
    longer = collect(config, 3, np.random.default_rng(4), store=str(tmp_path / "long"), tag="t")
    for k in range(2):
        with np.load(tmp_path / "short" / f"t_{k:04d}.npz") as a, np.load(tmp_path / "long" / f"t_{k:04d}.npz") as b:
            assert all(np.array_equal(a[name], b[name]) for name in a.files)
    extended = collect(config, 3, np.random.default_rng(4), store=str(tmp_path / "short"), tag="t")
    assert all(np.array_equal(a, b) for a, b in zip(longer, extended))


def test_a_run_directory_refuses_labels_of_another_config(tmp_path):
    import fifthave.train.candidate_values as cv

    cv._check_store(str(tmp_path), CandidateValueConfig(**TINY))
    cv._check_store(str(tmp_path), CandidateValueConfig(**{**TINY, "epochs": 9}))  # fit settings may change
    with pytest.raises(ValueError, match="holds labels of another config"):
        cv._check_store(str(tmp_path), CandidateValueConfig(**{**TINY, "samples": 2}))


def test_the_command_trains_evaluates_and_reproduces_its_weights(tmp_path):
    """Two runs of the same config give the same weights; a run resumed from its saved labels too (DAgger's
    included: their files are found again under the hash of the first fit's weights)."""
    import json

    from fifthave.train.config import translate_legacy
    from fifthave.train.run import main

    config, _ = translate_legacy({**TINY, "games": 2, "dagger_games": 1, "eval_games": 4})
    (tmp_path / "config.json").write_text(json.dumps(config))
    reports = []
    for name, resume in (("a", False), ("b", False), ("a", True)):  # the resumed "a" finds its labels saved
        out = str(tmp_path / name)
        main(["--resume", out] if resume else [str(tmp_path / "config.json"), "--out", out])
        reports.append(json.loads((tmp_path / name / "report.json").read_text()))
    assert reports[0]["weights_sha256"] == reports[1]["weights_sha256"] == reports[2]["weights_sha256"]
    assert reports[0]["vs_heuristic"]["seat_games"] == 4 and (tmp_path / "a" / "values_vs_random.csv").exists()
    assert len(list((tmp_path / "a" / "labels").glob("dagger_*.npz"))) == 1


def test_a_layout_1_network_plays_the_terminal_game_and_refuses_a_layout_0_observation(tmp_path):
    from fifthave.agents.play import play

    config = CandidateValueConfig(**{**TINY, "observation_layout": 1})
    rng = np.random.default_rng(2)
    net = fit(config, collect(config, 1, rng), collect(config, 1, rng), log=lambda *a, **k: None)
    path = tmp_path / "values.npz"
    save_values(path, net, dataclasses.asdict(config), {})
    answers = iter(["1"] * 10000)  # the human seat always plays its first legal action
    scores = play(seat=0, opponents=(f"values:{path}", "heuristic", "heuristic"), seed=5,
                  read=lambda prompt="": next(answers), write=lambda *a: None)
    assert scores is not None and len(scores) == 4
    agent = agent_factory(f"values:{path}")()
    game = Game(GameConfig(num_players=4), seed=1)
    agent.reset(game.config, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="reads observation layout 1 \\(1409 values\\), got 1176"):
        agent.act(Observer(game.config, version=0).observe(game, 0), game.action_mask())


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs process groups (POSIX)")
def test_ctrl_c_stops_a_collection_with_workers_at_once():
    # multiprocessing.Pool's close and join waited forever for the pieces its interrupted workers lost
    code = ("import numpy as np\n"
            "from fifthave.train.candidate_values import CandidateValueConfig, collect\n"
            "if __name__ == '__main__':\n"
            f"    config = CandidateValueConfig(**{ {**TINY, 'workers': 2}!r})\n"
            "    print('collecting', flush=True)\n"
            "    collect(config, 200, np.random.default_rng(0), log=lambda *args, **kwargs: None)\n"
            "    print('finished', flush=True)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout.readline() == "collecting\n"
        time.sleep(3)  # the workers are playing games
        os.killpg(child.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends: to the whole process group
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
    assert "finished" not in out and "KeyboardInterrupt" in err
