"""The leaderboard: every entrant's panel on the same deals, ranked by the panel minimum, files reused."""

import os

from fifthave.agents import leaderboard


def test_entrants_are_the_scripted_agents_and_the_models_of_that_game():
    four = leaderboard.entrants(4)
    assert four[:3] == ["random", "greedy", "heuristic"] and "search" in four
    assert "values-4p" in four and "policy-4p" in four
    assert "values-4p" not in leaderboard.entrants(2) and "values-4p" not in leaderboard.entrants(4, board=6)


def test_the_page_ranks_by_panel_minimum_and_reuses_matching_panels(tmp_path):
    out = str(tmp_path)
    said = []
    panels = leaderboard.build(out, num_players=2, games=2, seed=3, agents=["random", "greedy"], progress=said.append)
    minima = [p["headline"]["minimum"]["win_rate"] for p in panels]
    assert minima == sorted(minima, reverse=True)
    page = open(os.path.join(out, "README.md")).read()
    lines = [line for line in page.splitlines() if line.startswith("| `")]
    assert [line.split("`")[1] for line in lines] == [p["settings"]["agent"] for p in panels]
    header = next(line for line in page.splitlines() if line.startswith("| entrant"))
    assert header.split(" | ")[2:] == [r["field"] for r in panels[0]["rows"]][:-1] + ["search |"]  # a column each
    assert not any("reused" in s for s in said)

    stem = leaderboard.panel_stem(out, "random", 2)
    before = os.stat(stem + ".json").st_mtime_ns
    said.clear()
    again = leaderboard.build(out, num_players=2, games=2, seed=3, agents=["random", "greedy"], progress=said.append)
    assert all("reused" in s for s in said) and again == panels
    assert os.stat(stem + ".json").st_mtime_ns == before

    said.clear()
    leaderboard.build(out, num_players=2, games=2, seed=4, agents=["random"], progress=said.append)
    assert not any("reused" in s for s in said)  # another seed: played again
