"""The candidate-value run's league (issue 35): the search and the run's own past generations as opponents of the
labelled games, each rolled out as itself by the labelling search."""

import dataclasses
import json
import shutil

import numpy as np
import pytest
import torch

from fifthave.agents.agentfile import read_agent_file
from fifthave.agents.heuristic import HeuristicAgent
from fifthave.agents.learned import CandidateValueAgent
from fifthave.agents.search import DECISION_GROUPS, SearchAgent
from fifthave.train.candidate_values import CandidateValueConfig, play_labelled, train_values
from fifthave.train.values_agent import AdviceFreeSearchAgent, CandidateValueEnsemble, save_values
from fifthave_env.observation import OBS_SIZES
from fifthave_env.random_agent import RandomAgent

TINY = dict(samples=1, observation_layout=0, games=2, held_out_games=1, workers=1, embedding_width=16, epochs=1,
            ensemble=1, eval_games=0, groups=list(DECISION_GROUPS), advice=False, effects=True,
            seated_rollouts=True)


def saved_network(tmp_path, seed=0):
    config = CandidateValueConfig(**TINY)
    torch.manual_seed(seed)
    path = tmp_path / f"generation_{seed}.npz"
    save_values(path, CandidateValueEnsemble(OBS_SIZES[0], 16, 1, effects=True), dataclasses.asdict(config), {})
    return str(path)


def seated_entries(seed, league_size):
    """The league entry each seat draws in ``play_labelled``'s game ``seed`` (None: the searched seat)."""
    rng = np.random.default_rng(seed)
    rng.integers(2**63)  # the game's generator
    seat = int(rng.integers(4))
    entries = []
    for s in range(4):
        entries.append(None if s == seat else int(rng.integers(league_size)))
        rng.integers(2**63)  # the agent's generator
    return entries


def test_a_past_generation_takes_opponent_seats_and_the_search_rolls_it_out_as_itself(tmp_path):
    config = CandidateValueConfig(**{**TINY, "opponents": ["random"]})
    generation = saved_network(tmp_path)
    seed = next(s for s in range(20) if sorted(e for e in seated_entries(s, 2) if e is not None) == [0, 0, 1]
                or sorted(e for e in seated_entries(s, 2) if e is not None) == [0, 1, 1])
    searcher = AdviceFreeSearchAgent(config.samples, config.depth)
    play_labelled(config, seed, searcher=searcher, generations=(generation,))
    expected = [HeuristicAgent if e is None else (RandomAgent, CandidateValueAgent)[e] for e in seated_entries(seed, 2)]
    assert [type(agent) for agent in searcher.rollout.agents] == expected
    with_generation = play_labelled(config, seed, generations=(generation,))
    scripted_only = play_labelled(config, seed)
    assert not all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(with_generation, scripted_only))
    assert all(np.array_equal(np.asarray(a), np.asarray(b))  # reproducible
               for a, b in zip(with_generation, play_labelled(config, seed, generations=(generation,))))


def test_a_search_opponent_searches_at_its_seat_and_plays_as_the_heuristic_in_rollouts():
    searched = CandidateValueConfig(**{**TINY, "opponents": ["search:4:1"]})
    searcher = AdviceFreeSearchAgent(searched.samples, searched.depth)
    play_labelled(searched, 3, searcher=searcher)
    kinds = [type(agent) for agent in searcher.rollout.agents]
    assert kinds.count(SearchAgent) == 3
    assert all(agent.sampler is None for agent in searcher.rollout.agents if isinstance(agent, SearchAgent))
    # it searched at its seat (a sampler attached): its games differ from the heuristic's on the same draws
    heuristic = play_labelled(dataclasses.replace(searched, opponents=["heuristic"]), 3)
    assert not all(np.array_equal(np.asarray(a), np.asarray(b))
                   for a, b in zip(play_labelled(searched, 3), heuristic))


def test_each_dagger_round_adds_the_latest_generations_to_the_league(tmp_path, monkeypatch):
    import fifthave.train.candidate_values as cv

    leagues = []
    original = cv.collect

    def recording(config, games, rng, log=print, store=None, tag="labels", student=None, generations=(),
                  weights=None):
        leagues.append((tag.split("_")[0], [p.rsplit("/", 1)[-1] for p in generations], student, weights))
        return original(config, games, rng, log, store, tag, student, generations, weights)

    monkeypatch.setattr(cv, "collect", recording)
    config = CandidateValueConfig(**{**TINY, "opponents": ["random"], "dagger_games": 1, "dagger_rounds": 3,
                                     "past_generations": 2, "run_dir": str(tmp_path / "run")})
    first = train_values(config)["weights_sha256"]
    assert all(weights is None for *_, weights in leagues)  # without pfsp_power, every seat draws uniformly
    assert [(tag, names) for tag, names, _, _ in leagues] == [
        ("held", []), ("train", []), ("dagger", ["values_first.npz"]),
        ("dagger", ["values_first.npz", "values_round1.npz"]), ("dagger", ["values_round1.npz", "values_round2.npz"])]
    assert all(student.endswith(names[-1]) for tag, names, student, _ in leagues if tag == "dagger")
    store = tmp_path / "run" / "labels"
    assert json.loads((store / "config.json").read_text())["past_generations"] == 2
    with pytest.raises(ValueError, match="holds labels of another config"):
        train_values(dataclasses.replace(config, past_generations=1))
    # an interrupted run resumes bit for bit: the last round's labels lost, then made again; of the generations
    # the first run fitted it keeps those on disk and fits the damaged one again
    shutil.copytree(tmp_path / "run", tmp_path / "resumed")
    last = sorted((tmp_path / "resumed" / "labels").glob("dagger_*"), key=lambda p: p.stat().st_mtime)[-1]
    last.unlink()
    (tmp_path / "resumed" / "values_round1.npz").write_bytes(b"not an agent file")
    fitted = []
    original_fit = cv.fit
    monkeypatch.setattr(cv, "fit", lambda config, data, *rest: fitted.append(len(data[0])) or original_fit(
        config, data, *rest))
    assert train_values(dataclasses.replace(config, run_dir=str(tmp_path / "resumed")))["weights_sha256"] == first
    assert len(fitted) == 2  # values_round1.npz and the final network
    for name in ("values_first.npz", "values_round1.npz", "values_round2.npz"):
        assert (read_agent_file(tmp_path / "resumed" / name)[0]["weights_sha256"]
                == read_agent_file(tmp_path / "run" / name)[0]["weights_sha256"])
    # resumed with one round more, it plays that round with the network the run ended with, fitted only once
    shutil.copytree(tmp_path / "run", tmp_path / "more")
    fitted.clear()
    more = train_values(dataclasses.replace(config, run_dir=str(tmp_path / "more"), dagger_rounds=4))
    assert len(fitted) == 1
    assert read_agent_file(tmp_path / "more" / "values_round3.npz")[0]["weights_sha256"] == first
    # its clock continues the first run's: the kept generations at their first times, then later
    shorter = json.loads((tmp_path / "run" / "report.json").read_text())
    assert more["generations"][:3] == shorter["generations"][:3]
    assert more["generations"][3] == {**shorter["generations"][3], "file": "values_round3.npz"}
    assert more["seconds"] > shorter["seconds"] and more["cpu_seconds"] > shorter["cpu_seconds"]


def test_a_replay_window_fits_the_latest_label_sets_and_a_resume_keeps_the_fits_it_does_not_change(tmp_path,
                                                                                                   monkeypatch):
    import fifthave.train.candidate_values as cv

    config = CandidateValueConfig(**{**TINY, "opponents": ["random"], "dagger_games": 1, "dagger_rounds": 2,
                                     "run_dir": str(tmp_path / "run")})
    sizes = []  # decisions of each label set collected, in order
    original_collect = cv.collect

    def recording(*args, **kwargs):
        labels = original_collect(*args, **kwargs)
        sizes.append(len(labels[0]))
        return labels

    monkeypatch.setattr(cv, "collect", recording)
    everything = train_values(config)
    held_out, first, round1, round2 = sizes
    assert everything["decisions"] == first + round1 + round2
    fitted = []
    original_fit = cv.fit
    monkeypatch.setattr(cv, "fit", lambda config, data, *rest: fitted.append(len(data[0])) or original_fit(
        config, data, *rest))
    # a window of 2: the fits of the first labels and of those and round 1's read what they read before (kept, not
    # fitted again); the last reads the two rounds' labels alone
    shutil.copytree(tmp_path / "run", tmp_path / "window")
    windowed = train_values(dataclasses.replace(config, run_dir=str(tmp_path / "window"), replay_rounds=2))
    assert fitted == [round1 + round2] and windowed["decisions"] == round1 + round2
    assert windowed["weights_sha256"] != everything["weights_sha256"]
    for name in ("values_first.npz", "values_round1.npz"):
        assert (read_agent_file(tmp_path / "window" / name)[0]["weights_sha256"]
                == read_agent_file(tmp_path / "run" / name)[0]["weights_sha256"])
    # a window of 1 from the start: round 2 is played by a network fitted on round 1's labels alone
    fitted.clear()
    train_values(dataclasses.replace(config, run_dir=str(tmp_path / "one"), replay_rounds=1))
    assert fitted == [first, round1, sizes[-1]]


def test_the_fit_key_holds_the_labels_and_the_fit_settings_but_not_the_run_directory_or_the_rounds():
    from fifthave.train.candidate_values import fit_key

    config = CandidateValueConfig(**TINY)
    data = (np.ones((2, 3), np.float32), np.zeros(4, np.int64))
    key = fit_key(config, data)
    assert fit_key(dataclasses.replace(config, run_dir="elsewhere", workers=2, dagger_rounds=7, eval_games=8,
                                       replay_rounds=3), data) == key
    assert fit_key(dataclasses.replace(config, epochs=2), data) != key
    assert fit_key(config, (data[0], np.zeros(4, np.int32))) != key
    assert fit_key(config, (data[0] * 2, data[1])) != key
    # a setting added later leaves the keys of earlier runs as they were while it is off (a resume of a committed
    # run refits nothing): this is the key every version before ``stall_bonus`` (and ``teacher_advice``) gave
    assert key == "0c8c12ee79196114ac1fedc72d1ca9734c4e7470d31cf2b874908b3f458b2c90"
    assert fit_key(dataclasses.replace(config, stall_turn=90), data) == key
    assert fit_key(dataclasses.replace(config, stall_bonus=0.5), data) != key
    assert fit_key(dataclasses.replace(config, stall_bonus=0.5, stall_turn=90), data) != fit_key(
        dataclasses.replace(config, stall_bonus=0.5), data)
    assert fit_key(dataclasses.replace(config, teacher_advice=True), data) != key  # and as before it while off
    moves_only = dataclasses.replace(config, observation_layout=1, destinations=True)
    assert fit_key(dataclasses.replace(moves_only, bid_destinations=True), data) != fit_key(moves_only, data)


def test_league_names_and_past_generations_are_checked():
    with pytest.raises(ValueError, match=r"unknown agent 'nobody' in opponents; choose from .* or search\[:ROLLOUTS"):
        CandidateValueConfig(**{**TINY, "opponents": ["heuristic", "nobody"]})
    with pytest.raises(ValueError, match="ROLLOUTS and DEPTH must be integers in 'search:many'"):
        CandidateValueConfig(**{**TINY, "opponents": ["search:many"]})
    with pytest.raises(ValueError, match="opponents must be a non-empty list"):
        CandidateValueConfig(**{**TINY, "opponents": []})
    with pytest.raises(ValueError, match="past_generations"):
        CandidateValueConfig(**{**TINY, "past_generations": -1})
    with pytest.raises(ValueError, match="replay_rounds"):
        CandidateValueConfig(**{**TINY, "replay_rounds": -1})
    assert CandidateValueConfig(**{**TINY, "opponents": ["search", "greedy"]}).opponents == ["search", "greedy"]


def test_pfsp_draws_each_round_after_the_first_by_the_previous_rounds_results_and_resumes_bit_for_bit(tmp_path,
                                                                                                     monkeypatch):
    import fifthave.train.candidate_values as cv

    drawn = []  # (tag, weights) of each collect
    original = cv.collect

    def recording(config, games, rng, log=print, store=None, tag="labels", student=None, generations=(),
                  weights=None):
        drawn.append((tag.split("_")[0], None if weights is None else np.asarray(weights).tolist()))
        return original(config, games, rng, log, store, tag, student, generations, weights)

    monkeypatch.setattr(cv, "collect", recording)
    config = CandidateValueConfig(**{**TINY, "opponents": ["random", "greedy", "random"], "dagger_games": 2,
                                     "dagger_rounds": 2, "past_generations": 1, "pfsp_power": 1.0,
                                     "run_dir": str(tmp_path / "run")})
    report = train_values(config)
    assert [tag for tag, _ in drawn] == ["held", "train", "dagger", "dagger"]
    assert drawn[2][1] is None  # the first round: uniform, as without PFSP
    store = tmp_path / "run" / "labels"
    rounds = sorted(store.glob("dagger_*.npz"), key=lambda p: p.stat().st_mtime)
    (entry,) = report["pfsp"]  # the second round's draws, from the first round's games
    results = cv.league_results([str(rounds[0])])
    assert sum(seats for _, seats in results.values()) == 2 * 3  # two games, three other seats each
    assert set(results) <= {"random", "greedy", f"values:{tmp_path}/run/values_first.npz"}
    weights = cv.league_weights(config, results, 1)
    assert drawn[3][1] == weights.tolist() and weights[3] == pytest.approx(0.25)  # the generation keeps its share
    assert entry["round"] == 2 and entry["drawn"] == {
        name: round(float(weights[:3][np.array(config.opponents) == name].sum()), 4) for name in ("random", "greedy")}
    assert entry["win_shares"] == {name: [round(results[name][0] / results[name][1], 4), results[name][1]]
                                   for name in ("random", "greedy") if name in results}  # no generation's path
    assert json.loads((store / "config.json").read_text())["pfsp_power"] == 1.0
    with pytest.raises(ValueError, match="holds labels of another config"):
        train_values(dataclasses.replace(config, pfsp_power=2.0))
    # resumed after losing the last round's labels, it draws the same and ends with the same weights
    shutil.copytree(tmp_path / "run", tmp_path / "resumed")
    (tmp_path / "resumed" / "labels" / rounds[-1].name).unlink()
    drawn.clear()
    again = train_values(dataclasses.replace(config, run_dir=str(tmp_path / "resumed")))
    assert drawn[3][1] == weights.tolist()
    assert again["weights_sha256"] == report["weights_sha256"] and again["pfsp"] == report["pfsp"]


def test_a_generation_share_seats_the_generations_that_often_from_the_first_round(tmp_path, monkeypatch):
    import fifthave.train.candidate_values as cv

    drawn = []  # the weights of each DAgger round's draws
    original = cv.collect

    def recording(config, games, rng, log=print, store=None, tag="labels", student=None, generations=(),
                  weights=None):
        if tag.startswith("dagger"):
            drawn.append(np.asarray(weights).tolist())
        return original(config, games, rng, log, store, tag, student, generations, weights)

    monkeypatch.setattr(cv, "collect", recording)
    # the whole share: every other seat of the DAgger games is one of the run's generations
    config = CandidateValueConfig(**{**TINY, "opponents": ["random", "greedy"], "dagger_games": 2,
                                     "dagger_rounds": 2, "past_generations": 2, "generation_share": 1.0,
                                     "run_dir": str(tmp_path / "run")})
    train_values(config)
    assert drawn == [[0.0, 0.0, 1.0], [0.0, 0.0, 0.5, 0.5]]
    store = tmp_path / "run" / "labels"
    results = cv.league_results([str(path) for path in store.glob("dagger_*.npz")])
    assert sum(seats for _, seats in results.values()) == 2 * 2 * 3  # two rounds of two games, three seats each
    assert set(results) == {f"values:{tmp_path}/run/values_first.npz", f"values:{tmp_path}/run/values_round1.npz"}
    assert json.loads((store / "config.json").read_text())["generation_share"] == 1.0
    with pytest.raises(ValueError, match="holds labels of another config"):
        train_values(dataclasses.replace(config, generation_share=0.5))


def test_a_pfsp_window_draws_each_round_by_the_latest_rounds_games(tmp_path, monkeypatch):
    import fifthave.train.candidate_values as cv

    read = []  # the label files each round's PFSP read
    original = cv.pfsp_draws

    def recording(config, paths, generations):
        read.append(list(paths))
        return original(config, paths, generations)

    monkeypatch.setattr(cv, "pfsp_draws", recording)
    config = CandidateValueConfig(**{**TINY, "opponents": ["random", "greedy"], "dagger_games": 2,
                                     "dagger_rounds": 3, "pfsp_power": 1.0, "pfsp_window": 2,
                                     "run_dir": str(tmp_path / "run")})
    report = train_values(config)
    store = tmp_path / "run" / "labels"
    rounds = [str(p) for p in sorted(store.glob("dagger_*.npz"), key=lambda p: p.stat().st_mtime)]
    assert len(rounds) == 3  # one file of 2 games a round
    assert read == [rounds[:1], rounds[:2]]  # round 2 reads round 1's games; round 3 rounds 1 and 2
    # the third round's win shares count the seats of both rounds' games: 2 rounds x 2 games x 3 other seats
    assert [sum(seats for _, seats in entry["win_shares"].values()) for entry in report["pfsp"]] == [6, 12]
    assert json.loads((store / "config.json").read_text())["pfsp_window"] == 2
    with pytest.raises(ValueError, match="holds labels of another config"):
        train_values(dataclasses.replace(config, pfsp_window=1))
    with pytest.raises(ValueError, match="pfsp_window must be an int >= 1, got 0"):
        CandidateValueConfig(**{**TINY, "pfsp_window": 0})
