"""results/search/confirm.py: the tournament's own games, on disk as they finish, and the table of a
stopped run's complete deals."""

import json
import os
import sys

from fifthave.agents.tournament import agent_factory, run_tournament

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "results", "search"))
import confirm  # noqa: E402


def test_confirm_plays_the_tournaments_games_and_a_stopped_run_keeps_its_complete_deals(tmp_path, capsys):
    out = str(tmp_path / "run")
    confirm.main(["--agent", "greedy", "--games", "12", "--workers", "1", "--out", out])
    lineup = ["greedy"] + ["heuristic"] * 3
    expected = run_tournament([(name, agent_factory(name)) for name in lineup], games=12, seed=2026)
    with open(out + ".json") as f:
        saved = json.load(f)
    assert [g["scores"] for g in saved["games"]] == [r["scores"] for r in expected.records]
    assert saved["table"][0]["win_rate"] == expected.table[0]["win_rate"]
    played_seconds = saved["seconds"]

    with open(out + ".jsonl") as f:
        lines = f.readlines()
    with open(out + ".jsonl", "w") as f:  # stopped in the third deal, in the middle of writing a game
        f.writelines(lines[:10] + [lines[10][:20]])
    confirm.main(["--agent", "greedy", "--out", out, "--summarize", "--against", out + ".json"])
    with open(out + ".json") as f:
        summary = json.load(f)
    assert len(summary["games"]) == 8  # the complete deals only
    assert summary["seconds"] == played_seconds  # the playing run's wall time, not the reading's
    assert "2 deals: " in capsys.readouterr().out.splitlines()[-1]

    confirm.main(["--agent", "greedy", "--games", "12", "--workers", "1", "--out", out, "--resume"])
    with open(out + ".json") as f:  # the cut line dropped, games 10 and 11 played: the uninterrupted run's
        assert [g["scores"] for g in json.load(f)["games"]] == [r["scores"] for r in expected.records]
