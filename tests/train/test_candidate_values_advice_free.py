"""The advice-free candidate-value agent (``advice: false``): every decision group played by the network, no
scripted agent at play time, and the labelling that teaches it, advice-free or advised by the heuristic
(``teacher_advice``: the search weighs the heuristic's choice and its prior as ``SearchAgent`` does, the labels stay
those of the network's own candidates) (issue 35)."""

import dataclasses
import functools
import json
import zipfile

import numpy as np
import pytest
import torch

from fifthave.agents import heuristic
from fifthave.agents.learned import _BID, CandidateValueAgent, enumerated_bid_candidates
from fifthave.agents.search import DECISION_GROUPS, DEFAULT_PRIOR, SearchAgent
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.agents.view import StateView
from fifthave.train import candidate_values as cv
from fifthave.train.candidate_values import CandidateValueConfig, play_labelled, train_values
from fifthave.train.values_agent import (AdviceFreeSearchAgent, CandidateValueEnsemble, LabellingValueAgent,
                                         advised_search, load_values, numpy_net, save_values)
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.actions import BID_PASS
from fifthave_env.engine.game import BID_DECISION, CHOOSE_ACTION_DECISION, MOVE_DECISION
from fifthave_env.observation import OBS_SIZES
from fifthave_env.random_agent import RandomAgent

ALL_GROUPS = list(DECISION_GROUPS)
TINY = dict(samples=1, observation_layout=0, games=2, held_out_games=1, workers=1, embedding_width=16, epochs=1,
            ensemble=1, eval_games=0, groups=ALL_GROUPS, advice=False)


def random_network(layout=0, seed=0):
    """A candidate-value network of random weights (numpy), enough to check what the agent may play."""
    torch.manual_seed(seed)
    return numpy_net(CandidateValueEnsemble(OBS_SIZES[layout], 16, 1))


def saved_network(tmp_path, **fields):
    config = CandidateValueConfig(**{**TINY, **fields})
    path = tmp_path / "values.npz"
    save_values(path, CandidateValueEnsemble(OBS_SIZES[config.observation_layout], 16, 1),
                dataclasses.asdict(config), {})
    return path


def bid_positions(games=6):
    """(game, view) at the first bid of each bidding turn in random 4-player games."""
    for seed in range(games):
        game = Game(GameConfig(num_players=4), seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            if game.decision == BID_DECISION and not any(StateView(game, game.actor).my_table_cards):
                yield game, StateView(game, game.actor)
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])


def test_enumerated_bids_are_legal_whole_bids_and_cover_the_searchs_raises():
    seen = 0
    for game, view in bid_positions():
        candidates = enumerated_bid_candidates(view)
        assert candidates and len(set(candidates)) == len(candidates)
        assert ((BID_PASS,) in candidates) == view.is_legal(BID_PASS)
        for macro in candidates:  # every candidate plays out as a whole, legal bid
            g = game.clone()
            for action in macro:
                g.apply(action)
        search = SearchAgent()
        search.reset(game.config, game.actor, np.random.default_rng(0))
        listed, planned = search._bid_candidates(view)
        assert set(listed) - {planned} <= set(candidates)  # all but the heuristic's own plan
        seen += len(candidates) > 2
    assert seen > 10


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("board", [5, 6])
def test_the_advice_free_agent_plays_only_legal_moves_and_builds_no_scripted_agent(num_players, board, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("an advice-free agent consulted the HeuristicAgent")

    for name in ("__init__", "_plan_bid", "act_view"):  # any use of the heuristic fails the game
        monkeypatch.setattr(heuristic.HeuristicAgent, name, refuse)
    agent = functools.partial(CandidateValueAgent, random_network(), ALL_GROUPS, 0, advice=False)
    result = run_tournament([agent] + [RandomAgent] * (num_players - 1), num_players=num_players, board=board,
                            games=num_players, seed=1)  # an illegal action would raise (IllegalActionError)
    assert result.table[0]["seat_games"] == num_players
    assert not any(record["truncated"] for record in result.records)


def test_the_advice_free_agent_decides_every_group_with_its_network():
    decided = {}

    class Recording(CandidateValueAgent):
        def _choose(self, view, candidates, default):
            assert default == () and all(len(m) == 1 for m in candidates) or view.decision == BID_DECISION
            decided[view.decision] = decided.get(view.decision, 0) + 1
            return super()._choose(view, candidates, default)

    net = random_network()
    run_tournament([functools.partial(Recording, net, ALL_GROUPS, 0, advice=False)] + [RandomAgent] * 3,
                   num_players=4, games=4, seed=2)
    assert {BID_DECISION, CHOOSE_ACTION_DECISION, MOVE_DECISION} <= set(decided)


def test_a_saved_advice_free_network_records_it_and_refuses_other_player_counts(tmp_path):
    path = saved_network(tmp_path)
    with zipfile.ZipFile(path) as z:
        assert json.loads(z.read("meta.json"))["advice"] is False
    agent = agent_factory(str(path))()
    assert agent.advice is False and agent.decisions == SearchAgent().decisions
    agent.reset(GameConfig(num_players=4), 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="trained for 4 players on the 5-plot board, not 3 players"):
        agent.reset(GameConfig(num_players=3), 0, np.random.default_rng(0))


def test_advice_false_needs_every_group_and_a_bool():
    with pytest.raises(ValueError, match=r"advice false\) plays every decision group"):
        CandidateValueConfig(**{**TINY, "groups": ["bid", "board"]})
    with pytest.raises(ValueError, match=r"advice false\) plays every decision group"):
        CandidateValueConfig(**{**TINY, "played_groups": ["bid", "board", "choose"]})
    with pytest.raises(ValueError, match="advice must be true or false, got 'no'"):
        CandidateValueConfig(**{**TINY, "advice": "no"})
    with pytest.raises(ValueError, match="plays every decision group"):
        CandidateValueAgent(random_network(), ["bid"], advice=False)


def test_a_file_that_claims_advice_free_play_for_some_groups_is_refused(tmp_path):
    path = saved_network(tmp_path)
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    meta = json.loads(members["meta.json"])
    meta["groups"] = ["bid", "board"]
    members["meta.json"] = json.dumps(meta).encode()
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(ValueError, match="plays every decision group"):
        load_values(bad)


def test_advice_free_labels_cover_every_group_without_the_heuristics_candidate(tmp_path):
    config = CandidateValueConfig(**TINY)
    observations, features, owners, targets = (np.asarray(a) for a in play_labelled(config, 5)[:4])
    assert np.array_equal(np.asarray(play_labelled(config, 5)[3]), targets)  # reproducible
    assert len(observations) > 0 and np.all(features[:, _BID + 8] == 0)  # no "heuristic's choice" feature
    sums = np.bincount(owners, weights=targets)
    assert np.allclose(sums, 0, atol=1e-9)  # each decision's values relative to their mean
    # a student (DAgger) plays the seat advice-free, and the search labels its decisions
    path = saved_network(tmp_path)
    taught = play_labelled(config, 5, student=str(path))
    assert len(taught[0]) > 0 and np.all(np.asarray(taught[1])[:, _BID + 8] == 0)


def test_dagger_rounds_each_label_the_latest_networks_games(tmp_path):
    config = CandidateValueConfig(**{**TINY, "dagger_games": 1, "dagger_rounds": 2, "run_dir": str(tmp_path)})
    train_values(config)
    labels = sorted(p.name for p in (tmp_path / "labels").iterdir() if p.name.startswith("dagger_"))
    assert len(labels) == 2  # two students, each named by its weights
    assert (tmp_path / "values_first.npz").exists() and (tmp_path / "values_round1.npz").exists()
    assert load_values(tmp_path / "values.npz")[3]["advice"] is False


# ---- the advised teacher (teacher_advice) ----

ADVISED = {**TINY, "teacher_advice": True}


class View:
    """The two things ``advised_search`` asks of a view besides what the stubs answer."""

    decision = -1

    def __init__(self, legal):
        self.legal = legal

    def is_legal(self, action):
        return action in self.legal


def stub_teacher(values, heuristic):
    """An advised teacher whose search values the candidates ``values`` (by macro) and whose heuristic chooses
    ``heuristic``; records what it searched."""
    agent = AdviceFreeSearchAgent(samples=1, depth=0, teacher_advice=True)
    agent.searched_with = []

    def search(candidates, default):
        agent.searched_with.append((list(candidates), default))
        agent.last_search = (list(candidates), np.array([values[m] for m in candidates]), default)
        return None

    agent._search, agent._heuristic_choice = search, lambda view: heuristic
    return agent


def test_the_advised_search_adds_the_prior_to_the_heuristics_choice_and_labels_the_networks_candidates_only():
    candidates = [(1,), (2,), (3,)]
    # the heuristic's choice among the candidates: its prior wins a near-tie, and is in its label
    agent = stub_teacher({(1,): 0.50, (2,): 0.51, (3,): 0.40}, (1,))
    assert advised_search(agent, View([1, 2, 3]), candidates) == (1,)
    assert agent.searched_with == [(candidates, ())]  # no prior inside the search: added once, here
    listed, values, default = agent.last_search
    assert listed == candidates and default == ()
    assert np.allclose(values, [0.50 + DEFAULT_PRIOR, 0.51, 0.40])
    # ... but not a clear loss
    agent = stub_teacher({(1,): 0.40, (2,): 0.51, (3,): 0.40}, (1,))
    assert advised_search(agent, View([1, 2, 3]), candidates) == (2,)
    # a heuristic's bid outside the candidates is searched and may be played, but labels none of them
    bid = (4, 9)
    agent = stub_teacher({(1,): 0.50, (2,): 0.51, (3,): 0.40, bid: 0.50}, bid)
    assert advised_search(agent, View([1, 2, 3, 4]), candidates) == bid
    assert agent.searched_with == [([*candidates, bid], ())]
    listed, values, _ = agent.last_search
    assert listed == candidates and np.allclose(values, [0.50, 0.51, 0.40])
    # ... and is not searched when its first action is not legal
    agent = stub_teacher({(1,): 0.50, (2,): 0.51, (3,): 0.40}, bid)
    assert advised_search(agent, View([1, 2, 3]), candidates) == (2,)
    assert agent.searched_with == [(candidates, ())]


def test_the_advised_teacher_builds_the_heuristic_and_plays_legal_games_in_every_configuration():
    plain = AdviceFreeSearchAgent(samples=1, depth=1)
    plain.reset(GameConfig(num_players=3), 0, np.random.default_rng(0))
    assert not hasattr(plain, "default")  # the advice-free teacher consults no scripted agent
    for players in (2, 3, 4):
        for board in (5, 6):
            teacher = ("teacher", functools.partial(AdviceFreeSearchAgent, samples=1, depth=1, teacher_advice=True))
            result = run_tournament([teacher] + [("heuristic", agent_factory("heuristic"))] * (players - 1), num_players=players,
                                    board=board, games=players, seed=players * 10 + board, workers=1)
            assert len(result.records) == players and not any(r["truncated"] for r in result.records)


def test_a_student_with_the_advised_teacher_needs_an_advice_free_network():
    net = random_network()
    with pytest.raises(ValueError, match="teacher_advice is for advice-free networks"):
        LabellingValueAgent(net, ["bid", "board", "choose", "move"], 0, 1, 1, advice=True, teacher_advice=True)
    student = LabellingValueAgent(net, ["bid", "board", "choose", "move"], 0, 1, 1, advice=False, teacher_advice=True)
    student.reset(GameConfig(num_players=4), 1, np.random.default_rng(0))
    assert student.default is not None and student.rollout is not None


def test_advised_labels_are_the_advice_free_networks_candidates_and_differ_from_the_advice_free_ones(tmp_path,
                                                                                                   monkeypatch):
    config = CandidateValueConfig(**ADVISED)
    observations, features, owners, targets = (np.asarray(a) for a in play_labelled(config, 5)[:4])
    assert np.array_equal(np.asarray(play_labelled(config, 5)[3]), targets)  # reproducible
    assert len(observations) > 0 and np.all(features[:, _BID + 8] == 0)  # the network never sees the advice
    assert np.allclose(np.bincount(owners, weights=targets), 0, atol=1e-6)  # relative to the candidates' mean
    plain = play_labelled(CandidateValueConfig(**TINY), 5)
    assert len(plain[3]) != len(targets) or not np.allclose(plain[3], targets)
    # the student (DAgger) is labelled by the advised search too
    taught = play_labelled(config, 5, student=str(saved_network(tmp_path)))
    assert len(taught[0]) > 0 and np.all(np.asarray(taught[1])[:, _BID + 8] == 0)
    # the teacher's labels at a decision are its search's values, the prior on the heuristic's choice included
    teacher = AdviceFreeSearchAgent(config.samples, config.depth, teacher_advice=True)
    seen = []
    real = SearchAgent._search

    def recorded(self, candidates, default):
        chosen = real(self, candidates, default)
        seen.append(self.last_search[1].copy())
        return chosen

    monkeypatch.setattr(SearchAgent, "_search", recorded)
    game = play_labelled(config, 5, searcher=teacher)
    starts = np.flatnonzero(np.diff(np.r_[-1, np.asarray(game.owners)]))
    assert len(seen) == len(starts)
    prior_added = 0
    for raw, start, end in zip(seen, starts, np.r_[starts[1:], len(game.owners)]):
        label = np.asarray(game.targets[start:end])
        differences = (label - (raw[:end - start] - raw[:end - start].mean()))
        prior_added += not np.allclose(differences, differences[0])  # a prior on one candidate, not a shift
    assert prior_added > 0


def test_teacher_advice_is_checked_and_recorded_in_the_run_directory(tmp_path):
    with pytest.raises(ValueError, match="teacher_advice true needs advice false"):
        CandidateValueConfig(**{**ADVISED, "advice": True, "groups": ["bid"]})
    with pytest.raises(ValueError, match="teacher_advice"):
        CandidateValueConfig(**{**ADVISED, "teacher_advice": "yes"})
    free, advised = tmp_path / "free", tmp_path / "advised"
    free.mkdir()
    advised.mkdir()
    cv._check_store(str(advised), CandidateValueConfig(**ADVISED))
    saved = json.loads((advised / "config.json").read_text())
    assert saved["teacher_advice"] is True
    cv._check_store(str(free), CandidateValueConfig(**TINY))
    assert "teacher_advice" not in json.loads((free / "config.json").read_text())  # stores made before it match
    for store, other in ((free, ADVISED), (advised, TINY)):  # neither run reuses the other's labels
        with pytest.raises(ValueError, match="holds labels of another config"):
            cv._check_store(str(store), CandidateValueConfig(**other))

