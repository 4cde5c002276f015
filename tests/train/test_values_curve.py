"""The curve of a candidate-value run (``fifthave.train.values_curve``, issue 35): every generation against panel
fields per hour of compute, the final against half the budget paired by deal, and ratings head to head."""

import json

import pytest

from fifthave.agents.search import DECISION_GROUPS
from fifthave.agents.tournament import agent_factory
from fifthave.train import values_curve
from fifthave.train.candidate_values import CandidateValueConfig, train_values

TINY = dict(samples=1, observation_layout=0, games=2, held_out_games=1, workers=1, embedding_width=16, epochs=1,
            ensemble=1, eval_games=0, groups=list(DECISION_GROUPS), advice=False, effects=True, dagger_games=1,
            dagger_rounds=2)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("run")
    train_values(CandidateValueConfig(**{**TINY, "run_dir": str(path)}))
    return path


def test_the_curve_rates_every_generation_the_run_saved_against_its_compute(run_dir, tmp_path):
    report = json.loads((run_dir / "report.json").read_text())
    result = values_curve.curve(str(run_dir), games=8, seed=3, fields=("random", "heuristic"), log=lambda *a, **k: None)
    files = ["values_first.npz", "values_round1.npz", "values.npz"]
    assert [g["file"] for g in result["generations"]] == files
    assert [g["cpu_seconds"] for g in result["generations"]] == [g["cpu_seconds"] for g in report["generations"]]
    for g in result["generations"]:
        assert sorted(g["fields"]) == ["heuristic", "random"]
        assert all(row["games"] == 8 and 0 <= row["win_rate"] <= 1 for row in g["fields"].values())
    assert result["half_budget"] == files[values_curve.half_budget(report["generations"])]
    assert sorted(result["final_against_half"]) == ["heuristic", "random"]
    assert all(d["deals"] == 2 for d in result["final_against_half"].values())  # 8 games: two deals' rotations
    # head to head: each generation against its predecessor, the final against every earlier one
    assert [(d["earlier"], d["later"]) for d in result["generation_pairs"]] == [
        (files[0], files[1]), (files[0], files[2]), (files[1], files[2])]
    assert all(d["deals"] == 2 and d["games"] == 8 for d in result["generation_pairs"])
    # three generations and a heuristic at one table, each rated
    assert list(result["head_to_head"]) == files + ["heuristic"]
    assert "against_references" not in result  # none asked for: the curve's JSON as before they existed
    assert result["head_to_head"]["heuristic"]["win_rate"] is None
    assert all(r["elo_low"] <= r["elo_high"] for r in result["head_to_head"].values())
    # every generation rated by one fit to the pairs' games and the table's
    assert all(g["rating"]["elo_low"] <= g["rating"]["elo_high"] for g in result["generations"])
    assert len({g["rating"]["elo"] for g in result["generations"]}) == 3
    text = values_curve.format_markdown(result)
    assert "| Elo [95% CI] |" in text.splitlines()[2]  # the generations' table
    # the generations' rows, the one table's, and the pairs' (each names two)
    assert text.count("| values") == 3 + 3 + 2 * 3 and "Final against half the budget" in text
    assert "- head to head (the two at the same tables, 8 games" in text
    assert text.count("| values.npz | values_") == 2 and "| values_round1.npz | values_first.npz | 8 |" in text
    # the same seed, the same curve
    again = values_curve.curve(str(run_dir), games=8, seed=3, fields=("random", "heuristic"), log=lambda *a, **k: None)
    assert again == result


def test_every_generation_plays_each_reference_head_to_head(run_dir):
    final = f"values:{run_dir / 'values.npz'}"
    quiet = dict(games=8, seed=3, fields=("random",), log=lambda *a, **k: None)
    result = values_curve.curve(str(run_dir), references=(final,), **quiet)
    files = ["values_first.npz", "values_round1.npz", "values.npz"]
    rows = result["against_references"][final]
    assert [d["generation"] for d in rows] == files
    # each row is that pair's own head to head, the reference as the earlier
    direct = values_curve.paired_head_to_head((final, agent_factory(final)),
                                              values_curve.generation_entry(str(run_dir), files[0]), 4, 5, 8, 3, 1)
    assert rows[0] == {"generation": files[0], **direct}
    assert rows[-1]["difference"] == 0  # the final against itself: equal on every deal
    text = values_curve.format_markdown(result)
    assert f"Each generation head to head against `{final}`" in text
    assert sum(line.startswith("| values_first.npz | 8 |") for line in text.splitlines()) == 1
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        values_curve.curve(str(run_dir), references=("nobody",), **quiet)


def test_head_to_head_seats_two_agents_alike_and_pairs_their_shares_by_deal(run_dir):
    network = ("values.npz", agent_factory(f"values:{run_dir / 'values.npz'}"))
    same = values_curve.paired_head_to_head(network, network, 4, 5, 8, 3, 1)
    assert same["deals"] == 2 and same["games"] == 8
    assert same["difference"] == 0 and same["baseline"] == same["candidate"] == 0.5 - same["truncated"] / 16
    random, heuristic = ("random", agent_factory("random")), ("heuristic", agent_factory("heuristic"))
    for num_players, games in ((2, 20), (3, 15)):
        d = values_curve.paired_head_to_head(random, heuristic, num_players, 5, games, 3, 1)
        # with 3 players the mirror lineup too: each agent holds as many seats as the other
        assert d["games"] == games * (1 if num_players == 2 else 2) and d["deals"] == games // num_players
        assert d["ci_low"] > 0.3 and d["candidate"] > d["baseline"]


def test_every_generation_is_rated_from_the_games_of_all_pairs_even_two_that_never_met():
    def game(deal, winner, loser):  # a 2-player game's record, seats named by their generations
        return {"deal": deal, "entries": [winner, loser], "scores": [60, 40], "winners": [0], "cards_in_hand": [0, 0]}

    # a beats b on 3 of 4 deals, b beats c on 3 of 4; a and c never meet: the chain still orders them
    games = [game(d, "a", "b") if d else game(d, "b", "a") for d in range(4)]
    games += [game(d, "b", "c") if d != 1 else game(d, "c", "b") for d in range(4)]
    rated = values_curve.every_generation_rated(games, ["a", "b", "c"], seed=3)
    assert rated["a"]["elo"] > rated["b"]["elo"] > rated["c"]["elo"]
    assert rated["a"]["elo"] - rated["b"]["elo"] == pytest.approx(rated["b"]["elo"] - rated["c"]["elo"], abs=1)
    assert all(r["elo_low"] <= r["elo_high"] for r in rated.values())
    # a tournament's entry indices become the lineup's labels
    record = {"deal": 0, "entries": [1, 0], "scores": [1, 2]}
    assert values_curve.named_entries([record], ["x", "y"]) == [{**record, "entries": ["y", "x"]}]


def test_half_the_budget_is_the_last_generation_saved_by_half_the_final_cpu_seconds():
    timed = [{"cpu_seconds": c} for c in (10.0, 40.0, 60.0, 100.0)]
    assert values_curve.half_budget(timed) == 1
    assert values_curve.half_budget([{"cpu_seconds": 70.0}, {"cpu_seconds": 100.0}]) == 0
    assert values_curve.half_budget([{"cpu_seconds": None}] * 5) == 2  # no timings: the middle one
    assert values_curve.spread(5, 4) == [0, 1, 3, 4] and values_curve.spread(2, 4) == [0, 1]
    assert values_curve.spread(1, 4) == [0]


def test_a_run_without_timings_or_with_a_generation_missing(run_dir, tmp_path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(run_dir, old)
    report = json.loads((old / "report.json").read_text())
    del report["generations"]  # a run from before the report recorded them: the files, in order
    (old / "report.json").write_text(json.dumps(report))
    assert [g["file"] for g in values_curve.saved_generations(str(old))] == [
        "values_first.npz", "values_round1.npz", "values.npz"]
    (old / "values_round1.npz").rename(old / "values_round7.npz")
    assert [g["file"] for g in values_curve.saved_generations(str(old))][1] == "values_round7.npz"
    (old / "report.json").unlink()
    (old / "values.npz").unlink()
    with pytest.raises(FileNotFoundError, match="has no values.npz: the curve needs every generation"):
        values_curve.saved_generations(str(old))
    with pytest.raises(ValueError, match="field 'nobody' is not in the 4-player panel"):
        values_curve.curve(str(run_dir), games=4, fields=("nobody",))
