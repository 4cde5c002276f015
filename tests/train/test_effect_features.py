"""Candidate-value networks with effect features (``effects: true``, issue 35): what each candidate does on a
determinization of the seat's own view, in labelling, in the agent file and at play time; and with destination
features (``destinations: true``): what a commissioner move's district holds, read from the observation."""

import collections
import dataclasses
import functools
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import torch

from fifthave.agents.agentfile import (CANDIDATE_FEATURES, DESTINATION_FEATURES, EFFECT_FEATURES, AgentFileError,
                                       read_agent_file)
from fifthave.agents.bidding import table_limit, table_total
from fifthave.agents.learned import (NumpyValueNet, candidate_features, destination_features, effect_features,
                                     enumerated_bid_candidates)
from fifthave.agents.search import DECISION_GROUPS, projected_scores, projected_value
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.agents.view import SeatView
from fifthave.train.candidate_values import CandidateValueConfig, play_labelled, train_values, with_destinations
from fifthave.train.values_agent import CandidateValueEnsemble, load_values, save_values
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.actions import BID_ADD, BID_CONFIRM, BID_PASS, MOVE
from fifthave_env.engine.cards import KIND_COLOR, NUM_COLORS
from fifthave_env.engine.board import CENTRAL_PARK, CITY_HALL, NUM_DISTRICTS, NUM_LOCATIONS
from fifthave_env.engine.determinize import SeatSampler
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.observation import OBS_SIZES, Observer, views
from fifthave_env.random_agent import RandomAgent

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY = dict(samples=1, observation_layout=0, games=2, held_out_games=1, workers=1, embedding_width=16, epochs=1,
            ensemble=1, eval_games=0, groups=list(DECISION_GROUPS), advice=False, effects=True)


def saved_network(tmp_path, num_players=4, board=5, seed=0):
    config = CandidateValueConfig(**{**TINY, "num_players": num_players, "board": board})
    torch.manual_seed(seed)
    path = tmp_path / f"values_{num_players}_{board}.npz"
    save_values(path, CandidateValueEnsemble(OBS_SIZES[0], 16, 1, effects=True), dataclasses.asdict(config), {})
    return path


def positions(games=4, num_players=4):
    """(game, seat, legal moves as candidates) at decisions with several legal moves of random games."""
    for seed in range(games):
        game = Game(GameConfig(num_players=num_players), seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            legal = game.legal_actions()
            if len(legal) > 1:
                yield game, game.actor, [(a,) for a in legal]
            game.apply(legal[rng.integers(len(legal))])


def test_effect_features_are_what_each_candidate_does_and_leave_the_game_alone():
    checked = 0
    for game, seat, candidates in positions(games=2):
        before = game.clone()
        x = effect_features(game, seat, candidates)
        assert x.shape == (len(candidates), EFFECT_FEATURES) and x.dtype == np.float32
        assert np.array_equal(game.action_mask(), before.action_mask()) and game.scores == before.scores
        value = np.empty(len(candidates))
        for i, macro in enumerate(candidates):
            g = game.clone()
            g.apply(macro[0])
            value[i] = projected_value(g, seat) * 10
            after, start = projected_scores(g), projected_scores(game)
            others = max(after[q] for q in range(g.n) if q != seat)
            others_before = max(start[q] for q in range(g.n) if q != seat)
            assert x[i, 2] == pytest.approx(((after[seat] - others) - (start[seat] - others_before)) / 10, abs=1e-5)
            assert x[i, 3] == pytest.approx((after[seat] - start[seat]) / 10, abs=1e-5)
            assert x[i, 4] == pytest.approx((g.scores[seat] - game.scores[seat]) / 10, abs=1e-5)
            assert x[i, 5] == (not g.is_over and g.actor == seat)
        assert np.allclose(x[:, 0], value - value.mean(), atol=1e-5)
        assert np.allclose(x[:, 1], value - value.max(), atol=1e-5) and x[:, 1].max() == 0
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("board", [5, 6])
def test_an_effects_agent_plays_only_legal_moves_everywhere(tmp_path, num_players, board):
    path = saved_network(tmp_path, num_players, board)
    assert load_values(path)[3]["effects"] is True
    result = run_tournament([agent_factory(str(path))] + [RandomAgent] * (num_players - 1), num_players=num_players,
                            board=board, games=num_players, seed=3)  # an illegal action raises
    assert result.table[0]["seat_games"] == num_players
    assert not any(record["truncated"] for record in result.records)


def test_an_effects_agent_reads_its_determinization_and_refuses_to_act_without_a_sampler(tmp_path):
    agent = agent_factory(str(saved_network(tmp_path)))()
    assert agent.effects
    game = Game(GameConfig(num_players=4), seed=1)
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    agent.reset(game.config, game.actor, np.random.default_rng(0))
    observation = Observer(game.config, version=0).observe(game, game.actor)
    with pytest.raises(ValueError, match="determinization of its seat's view: play it through a fifthave runner"):
        agent.act(observation, game.action_mask())
    agent.attach_sampler(SeatSampler(game, game.actor))
    assert game.action_mask()[agent.act(observation, game.action_mask())]
    # the network reads the effect columns: zeroing their weights changes the values
    view = SeatView(observation, game.action_mask(), game.config)
    candidates = [(a,) for a in view.legal]

    def values():
        agent.rng = np.random.default_rng(5)
        agent._choose(view, candidates, ())
        return [c["value"] for c in agent.explanation["candidates"]]
    first = values()
    assert values() == first
    agent.net = NumpyValueNet([(*m[:4], np.r_[m[4][:CANDIDATE_FEATURES], 0 * m[4][CANDIDATE_FEATURES:]], *m[5:])
                               for m in agent.net.members])
    assert values() != first


def test_effects_labels_are_the_same_games_and_values_plus_the_effect_columns():
    plain = play_labelled(CandidateValueConfig(**{**TINY, "effects": False}), 7)
    with_effects = play_labelled(CandidateValueConfig(**TINY), 7)
    assert np.array_equal(np.asarray(plain[0]), np.asarray(with_effects[0]))  # the same decisions
    features = np.asarray(with_effects[1])
    assert features.shape[1] == CANDIDATE_FEATURES + EFFECT_FEATURES
    assert np.array_equal(np.asarray(plain[1]), features[:, :CANDIDATE_FEATURES])
    assert np.array_equal(np.asarray(plain[3]), np.asarray(with_effects[3]))  # the same search values
    assert np.any(features[:, CANDIDATE_FEATURES:] != 0)


def test_a_run_with_effects_trains_saves_and_resumes_with_the_same_weights(tmp_path):
    config = CandidateValueConfig(**{**TINY, "dagger_games": 1, "run_dir": str(tmp_path / "a")})
    first = train_values(config)
    again = train_values(config)  # the labels are read back from the store
    assert first["weights_sha256"] == again["weights_sha256"]
    meta = read_agent_file(tmp_path / "a" / "values.npz")[0]
    assert meta["effects"] is True
    assert meta["architecture"]["candidate_features"] == CANDIDATE_FEATURES + EFFECT_FEATURES
    other = dataclasses.replace(config, effects=False)
    with pytest.raises(ValueError, match="holds labels of another config"):
        train_values(other)  # a store labelled with effects is not one without


def _rewritten(path, tmp_path, change):
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    meta = json.loads(members["meta.json"])
    change(meta)
    members["meta.json"] = json.dumps(meta).encode()
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return bad


def test_an_agent_file_must_declare_effects_that_match_its_candidate_layer(tmp_path):
    path = saved_network(tmp_path)
    with pytest.raises(AgentFileError, match="candidate_features must be 174 .*effects false"):
        read_agent_file(_rewritten(path, tmp_path, lambda meta: meta.pop("effects")))
    with pytest.raises(AgentFileError, match="effects must be True or False, got 'yes'"):
        read_agent_file(_rewritten(path, tmp_path, lambda meta: meta.update(effects="yes")))
    config = CandidateValueConfig(**{**TINY, "effects": False})
    old = tmp_path / "old.npz"
    save_values(old, CandidateValueEnsemble(OBS_SIZES[0], 16, 1), dataclasses.asdict(config), {})
    meta = read_agent_file(old)[0]
    assert "effects" not in meta and agent_factory(str(old))().effects is False  # the older files play as before
    with pytest.raises(AgentFileError, match="candidate_features must be 180 .*effects true"):
        read_agent_file(_rewritten(old, tmp_path, lambda meta: meta.update(effects=True)))


def test_effects_must_be_a_bool():
    with pytest.raises(ValueError, match="effects must be True or False, got 1"):
        CandidateValueConfig(**{**TINY, "effects": 1})


def test_seeding_a_run_from_labels_without_effects_gives_the_searchs_labels_bit_for_bit(tmp_path):
    source = {"method": "candidate_values", "run": {"seed": 3, "workers": 1}, "evaluation": {"games": 0},
              "game": {"observation_layout": 0},
              "candidate_values": {**{k: v for k, v in TINY.items() if k not in (
                  "observation_layout", "workers", "eval_games", "effects")}, "games": 3, "dagger_games": 0}}
    (tmp_path / "source.json").write_text(json.dumps(source))
    source["candidate_values"]["effects"] = True
    (tmp_path / "effects.json").write_text(json.dumps(source))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "scripts")]))
    run = functools.partial(subprocess.run, env=env, capture_output=True, text=True, timeout=300)
    made = run([sys.executable, "-m", "fifthave.cli", "train", str(tmp_path / "source.json"), "--out",
                str(tmp_path / "source")])
    assert made.returncode == 0, made.stderr
    seeded = run([sys.executable, os.path.join(ROOT, "scripts", "seed_effect_labels.py"), str(tmp_path / "source"),
                  str(tmp_path / "effects.json"), str(tmp_path / "seeded"), "--workers", "1",
                  "--check-chunk", "held_out"])
    assert seeded.returncode == 0, seeded.stderr
    assert "bit for bit: True" in seeded.stdout
    resumed = run([sys.executable, "-m", "fifthave.cli", "train", "--resume", str(tmp_path / "seeded")])
    assert resumed.returncode == 0, resumed.stderr
    fresh = run([sys.executable, "-m", "fifthave.cli", "train", str(tmp_path / "effects.json"), "--out",
                 str(tmp_path / "fresh")])
    assert fresh.returncode == 0, fresh.stderr
    digests = [read_agent_file(tmp_path / d / "values.npz")[0]["weights_sha256"] for d in ("seeded", "fresh")]
    assert digests[0] == digests[1]


def test_seated_rollouts_roll_each_seat_out_with_the_agent_seated_there():
    from fifthave.agents.greedy import GreedyAgent
    from fifthave.agents.heuristic import HeuristicAgent
    from fifthave.train.values_agent import AdviceFreeSearchAgent

    config = CandidateValueConfig(**{**TINY, "effects": False, "opponents": ["greedy", "random"],
                                     "seated_rollouts": True})
    searcher = AdviceFreeSearchAgent(config.samples, config.depth)
    play_labelled(config, 4, searcher=searcher)
    rng = np.random.default_rng(4)  # play_labelled's draws: the game, the searched seat, then per seat
    rng.integers(2**63)
    seat = int(rng.integers(4))
    expected = []
    for s in range(4):
        if s == seat:
            expected.append(HeuristicAgent)
        else:
            expected.append((GreedyAgent, RandomAgent)[rng.integers(2)])
        rng.integers(2**63)
    assert [type(agent) for agent in searcher.rollout.agents] == expected
    assert len(set(expected)) == 3  # the seed seats both kinds of opponent
    # with the heuristic in every rollout seat instead, the first search values the candidates otherwise
    plain = play_labelled(dataclasses.replace(config, seated_rollouts=False), 4)
    seated = play_labelled(config, 4)
    first = np.flatnonzero(np.asarray(plain[2]) == 0)
    assert not np.array_equal(np.asarray(plain[3])[first], np.asarray(seated[3])[first])


def test_seated_rollouts_must_be_a_bool_and_mark_the_label_store(tmp_path):
    with pytest.raises(ValueError, match="seated_rollouts must be True or False, got 'yes'"):
        CandidateValueConfig(**{**TINY, "seated_rollouts": "yes"})
    config = CandidateValueConfig(**{**TINY, "seated_rollouts": True, "run_dir": str(tmp_path)})
    train_values(config)
    assert json.loads((tmp_path / "labels" / "config.json").read_text())["seated_rollouts"] is True
    with pytest.raises(ValueError, match="holds labels of another config"):
        train_values(dataclasses.replace(config, seated_rollouts=False))


def test_a_search_rolls_out_with_an_effects_network_each_seat_reading_its_own_determinization(tmp_path, monkeypatch):
    from fifthave.agents import learned

    path = saved_network(tmp_path)
    drawn = []
    real = learned.effect_features

    def recording(root, seat, candidates):
        drawn.append(seat)
        return real(root, seat, candidates)
    monkeypatch.setattr(learned, "effect_features", recording)
    result = run_tournament([agent_factory(f"search:2:1:{path}")] + [RandomAgent] * 3, num_players=4, games=4,
                            seed=5)  # without a sampler in the rollouts the network would raise
    assert result.table[0]["seat_games"] == 4
    assert set(drawn) == {0, 1, 2, 3}  # the network played every seat of the rollouts


def test_a_guided_search_takes_an_effects_network_as_its_prior(tmp_path, monkeypatch):
    from fifthave.agents.guided_search import guided_factory
    from fifthave.agents.learned import CandidateValueAgent

    path = saved_network(tmp_path)
    asked = []
    real = CandidateValueAgent.candidate_values

    def recording(self, observation, view, candidates, default):
        asked.append((list(candidates), default))
        return real(self, observation, view, candidates, default)
    monkeypatch.setattr(CandidateValueAgent, "candidate_values", recording)
    for network_rollouts in (False, True):
        factory = guided_factory(path, rollouts=2, depth=1, prior_weight=0.5, network_rollouts=network_rollouts)
        result = run_tournament([factory] + [RandomAgent] * 3, games=4, seed=2, max_turns=30)
        assert all(r["act_calls"] for r in result.records)  # every act legal, else AgentError
    assert asked and all(default == () for _, default in asked)  # no heuristic's candidate for the network
    # with an overwhelming prior the search plays the network's favourite among its candidates (or one it values
    # within what the search's values can add)
    agent = guided_factory(path, rollouts=1, depth=0, prior_weight=100)()
    agent.network.net = NumpyValueNet([(*m[:8], m[8] * 1000, m[9]) for m in agent.network.net.members])  # spread out
    chosen = []
    real_choose = agent._choose

    def choose(view, candidates, default):
        made = real_choose(view, candidates, default)
        values = real(agent.network, agent._observation, view, candidates, ())  # search values and the default's bonus: at most
        chosen.append(values[candidates.index(made)] >= values.max() - 1.02 / 100)  # 1.02, shrunk 100 times
        spread.append(np.ptp(values))
        return made
    agent._choose = choose
    spread = []
    run_tournament([lambda: agent] + [RandomAgent] * 3, games=4, seed=3, max_turns=20, workers=1)
    assert chosen and all(chosen) and np.median(spread) > 0.1  # the network's values differ by more than that


# ---- destination features --------------------------------------------------------------------------

def test_destination_features_hold_what_a_moves_district_holds_and_zeros_elsewhere():
    moves_seen = set()
    for game, seat, candidates in positions(games=3):
        observation = Observer(game.config).observe(game, seat)
        features = np.zeros((len(candidates), CANDIDATE_FEATURES), np.float32)
        features[np.arange(len(candidates)), [m[0] for m in candidates]] = 1.0
        x = destination_features(observation, features)
        assert x.shape == (len(candidates), DESTINATION_FEATURES) and x.dtype == np.float32
        v = views(observation)
        for (action,), row in zip(candidates, x):
            if not MOVE <= action < MOVE + 2 * NUM_LOCATIONS:
                assert not row.any()
                continue
            location = (action - MOVE) % NUM_LOCATIONS
            moves_seen.add(location)
            if location == CENTRAL_PARK or location == CITY_HALL:
                assert row.tolist() == [location == CENTRAL_PARK, location == CITY_HALL] + [0.0] * 14
                continue
            assert row[:2].tolist() == [0.0, 0.0]
            assert np.array_equal(row[2:6], v["build_value"][location])
            assert row[6] == v["district_lead"][location] and row[7] == v["district_deficit"][location]
            assert np.array_equal(row[8:13], v["district_skyscrapers"][location] / 5)
            assert np.array_equal(row[13:15], v["markers"][:, location])
            assert row[15] == v["district_closed"][location]
    assert moves_seen >= set(range(NUM_DISTRICTS)) | {CENTRAL_PARK}  # every district and Central Park checked


def bid_positions(games=12):
    """(observation, view, advice-free bid candidates, their candidate features) at bidding turns of random games."""
    for game, seat, _ in positions(games):
        if game.decision != BID_DECISION:
            continue
        observation = Observer(game.config).observe(game, seat)
        view = SeatView(observation, game.action_mask(), game.config)
        candidates = enumerated_bid_candidates(view)
        if len(candidates) > 1:
            yield observation, view, candidates, np.stack([candidate_features(view, m, ()) for m in candidates])


def test_bid_destination_features_hold_the_auctioned_locations_row_and_what_each_bid_is_worth():
    seen = collections.Counter()
    for observation, view, candidates, features in bid_positions():
        assert not destination_features(observation, features).any()  # without ``bids``: no move, all zero
        x = destination_features(observation, features, bids=True)
        v = views(observation)
        location = int(np.flatnonzero(v["auction_location"])[0])
        for macro, row in zip(candidates, x):
            seen["Central Park" if location == CENTRAL_PARK else "district", macro[0] == BID_PASS] += 1
            cards = list(view.my_table_cards)
            for action in macro:
                if BID_ADD <= action < BID_CONFIRM:
                    cards[action - BID_ADD] += 1
            limit = 0 if macro[0] == BID_PASS else table_limit(cards)
            if location == CENTRAL_PARK:
                assert row[0] == 1.0 and not row[1:13].any()
                assert row[13] == pytest.approx(v["central_park_value"][0] * limit)
            else:
                assert row[:2].tolist() == [0.0, 0.0]
                assert np.array_equal(row[2:6], v["build_value"][location])
                assert row[6] == v["district_lead"][location] and row[7] == v["district_deficit"][location]
                assert np.array_equal(row[8:13], v["district_skyscrapers"][location] / 5)
                assert row[13] == pytest.approx(v["build_value"][location][0] * limit)
            assert row[14] == v["auction_full"][0]
            if macro[0] == BID_PASS:
                assert row[15] == 0.0
                continue
            colour = view.my_bid_color if view.my_bid_color >= 0 else next(
                KIND_COLOR[a - BID_ADD] for a in macro if BID_ADD <= a < BID_ADD + 3 * NUM_COLORS)
            reach = max((v["max_bid"][q, colour] for q in range(1, 4) if not v["auction_passed"][q]), default=0.0)
            assert row[15] == pytest.approx(reach - table_total(cards) / 50, abs=1e-6)
    assert all(seen[place, passing] for place in ("district", "Central Park") for passing in (True, False)), seen


DESTINATIONS = {**TINY, "observation_layout": 1, "destinations": True}


def test_destinations_need_layout_1_and_a_bool():
    with pytest.raises(ValueError, match="destinations need observation layout 1 .*got layout 0"):
        CandidateValueConfig(**{**DESTINATIONS, "observation_layout": 0})
    with pytest.raises(ValueError, match="destinations must be True or False, got 'yes'"):
        CandidateValueConfig(**{**DESTINATIONS, "destinations": "yes"})
    with pytest.raises(ValueError, match="bid_destinations fill the destination columns .* need destinations true"):
        CandidateValueConfig(**{**DESTINATIONS, "destinations": False, "bid_destinations": True})
    with pytest.raises(ValueError, match="bid_destinations must be True or False, got 1"):
        CandidateValueConfig(**{**DESTINATIONS, "bid_destinations": 1})


def test_a_run_with_destinations_reuses_the_first_labels_of_one_without_and_its_agent_plays_them(tmp_path):
    plain = CandidateValueConfig(**{**DESTINATIONS, "destinations": False, "dagger_games": 1,
                                    "run_dir": str(tmp_path / "run")})
    train_values(plain)
    labels = sorted(os.listdir(tmp_path / "run" / "labels"))
    # the same run directory with destinations: the first labels serve it (none made again), the DAgger round's
    # student differs, so its labels are new
    report = train_values(dataclasses.replace(plain, destinations=True))
    again = sorted(os.listdir(tmp_path / "run" / "labels"))
    assert [n for n in again if not n.startswith("dagger_")] == [n for n in labels if not n.startswith("dagger_")]
    assert len([n for n in again if n.startswith("dagger_")]) == 2
    meta = read_agent_file(tmp_path / "run" / "values.npz")[0]
    assert meta["destinations"] is True
    assert meta["architecture"]["candidate_features"] == CANDIDATE_FEATURES + EFFECT_FEATURES + DESTINATION_FEATURES
    assert report["weights_sha256"] == train_values(dataclasses.replace(plain, destinations=True))["weights_sha256"]
    # at play the agent appends the same columns the fit read: its values are the fitted network's
    net = load_values(tmp_path / "run" / "values.npz")[0]
    agent = agent_factory(str(tmp_path / "run" / "values.npz"))()
    assert agent.destinations
    data = play_labelled(dataclasses.replace(plain, destinations=True), 11)
    observations, features = np.asarray(data[0]), np.asarray(data[1]).reshape(-1, CANDIDATE_FEATURES + EFFECT_FEATURES)
    owners = np.asarray(data[2])
    widened = with_destinations(dataclasses.replace(plain, destinations=True),
                                (observations, features, owners, np.asarray(data[3])))[1]
    moved = 0
    for d, observation in enumerate(observations):
        rows = owners == d
        assert np.array_equal(widened[rows][:, :features.shape[1]], features[rows])
        assert np.array_equal(widened[rows][:, features.shape[1]:], destination_features(observation, features[rows]))
        moved += bool(widened[rows][:, features.shape[1]:].any())
        assert np.all(np.isfinite(net.values(observation, widened[rows])))
    assert moved  # some decision had a move with its district's columns


def test_a_bid_destinations_fit_reads_the_same_stored_labels_and_its_agent_file_says_so(tmp_path):
    plain = CandidateValueConfig(**{**DESTINATIONS, "games": 3, "dagger_games": 0, "run_dir": str(tmp_path / "run")})
    first = train_values(plain)
    labels = sorted(os.listdir(tmp_path / "run" / "labels"))
    bids = dataclasses.replace(plain, bid_destinations=True)
    report = train_values(bids)
    assert sorted(os.listdir(tmp_path / "run" / "labels")) == labels  # no game labelled again
    assert report["fit_key"] != first["fit_key"] and report["weights_sha256"] != first["weights_sha256"]
    path = tmp_path / "run" / "values.npz"
    meta = read_agent_file(path)[0]
    assert meta["bid_destinations"] is True and meta["destinations"] is True
    assert "bid_destinations" not in read_agent_file(_write_plain(plain, tmp_path))[0]  # absent while off
    data = play_labelled(plain, 5)
    observations, owners = np.asarray(data[0]), np.asarray(data[2])
    features = np.asarray(data[1]).reshape(len(owners), -1)
    widened = with_destinations(bids, (observations, features, owners, np.asarray(data[3])))[1]
    bid_rows = 0
    for d, observation in enumerate(observations):
        rows = owners == d
        expected = destination_features(observation, features[rows], bids=True)
        assert np.array_equal(widened[rows][:, features.shape[1]:], expected)
        bid_rows += bool(expected.any() and not destination_features(observation, features[rows]).any())
    assert bid_rows  # some decision was a bid with the auction's columns
    agent = agent_factory(str(path))()
    assert agent.bid_destinations
    result = run_tournament([agent_factory(str(path))] + [RandomAgent] * 3, games=4, seed=3)  # an illegal move raises
    assert result.table[0]["seat_games"] == 4
    with pytest.raises(AgentFileError, match="bid_destinations must be True or False, got 'yes'"):
        read_agent_file(_rewritten(path, tmp_path, lambda meta: meta.update(bid_destinations="yes")))


def _write_plain(config, tmp_path):
    path = tmp_path / "plain.npz"
    torch.manual_seed(0)
    save_values(path, CandidateValueEnsemble(OBS_SIZES[1], 16, 1, effects=True, destinations=True),
                dataclasses.asdict(config), {})
    return path


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_destinations_agent_plays_only_legal_moves(tmp_path, num_players):
    config = CandidateValueConfig(**{**DESTINATIONS, "num_players": num_players})
    torch.manual_seed(0)
    path = tmp_path / "values.npz"
    save_values(path, CandidateValueEnsemble(OBS_SIZES[1], 16, 1, effects=True, destinations=True),
                dataclasses.asdict(config), {})
    result = run_tournament([agent_factory(str(path))] + [RandomAgent] * (num_players - 1), num_players=num_players,
                            games=num_players, seed=3)  # an illegal action raises
    assert result.table[0]["seat_games"] == num_players
    with pytest.raises(AgentFileError, match="candidate_features must be 196 .*destinations true"):
        read_agent_file(_rewritten(path, tmp_path, lambda meta: meta["architecture"].update(candidate_features=180)))
    with pytest.raises(AgentFileError, match="destinations need observation layout 1"):
        read_agent_file(_rewritten(path, tmp_path, lambda meta: meta.update(observation_layout=0)))
    with pytest.raises(AgentFileError, match="bid_destinations fill .* need destinations true"):
        read_agent_file(_rewritten(path, tmp_path, lambda meta: meta.update(
            bid_destinations=True, destinations=False, architecture={**meta["architecture"], "candidate_features": 180})))


def test_refit_values_refits_and_judges_a_run_with_destinations(tmp_path, monkeypatch):
    """scripts/refit_values.py reads a destinations run's held-out labels as its network does (it once predicted
    on the stored 180 columns and failed after the fit, losing it)."""
    import runpy

    from fifthave.train.config import translate_legacy
    from fifthave.train.run import main

    config, _ = translate_legacy({**DESTINATIONS, "num_players": 2, "dagger_games": 0})
    (tmp_path / "config.json").write_text(json.dumps(config))
    main([str(tmp_path / "config.json"), "--out", str(tmp_path / "run")])
    run = str(tmp_path / "run")
    for extra, out in (["--set", "epochs=2"], "refit"), (["--evaluate", os.path.join(run, "values.npz")], "judged"):
        monkeypatch.setattr(sys, "argv", ["refit_values.py", run, *extra, "--out", str(tmp_path / out)])
        runpy.run_path(os.path.join(ROOT, "scripts", "refit_values.py"), run_name="__main__")
        report = json.loads((tmp_path / out / "report.json").read_text())
        assert report["stored_labels"]["all"]["decisions"] > 0
    assert read_agent_file(tmp_path / "refit" / "values.npz")[0]["destinations"] is True
