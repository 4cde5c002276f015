"""The robustness panel (fifthave.agents.panel): truncation is a loss, every field at every player count, the minimum
is the minimum, same seed same JSON. Small budgets: the search field is played by RandomAgents here."""

import json

import pytest

from fifthave.agents import panel
from fifthave.agents.base import RandomAgent
from fifthave.agents.tournament import agent_factory, run_tournament


def record(deal, rotation, entries, winners, truncated, scores=(10, 10)):
    return {"deal": deal, "rotation": rotation, "entries": entries, "winners": winners, "truncated": truncated,
            "scores": list(scores)}


def test_a_truncated_game_is_a_loss_for_the_agent_under_test_and_counted_apart():
    """R29: the tournament names the leaders of a truncated game its winners; the panel counts a loss."""
    records = [
        record(0, 0, [0, 1], [0], truncated=False),     # a win
        record(0, 1, [1, 0], [1], truncated=True),      # the agent (seat 1) leads a truncated game: a loss
        record(1, 0, [0, 1], [0, 1], truncated=True),   # a shared lead at truncation: a loss, not 1/2
        record(1, 1, [1, 0], [0, 1], truncated=False),  # a shared win: 1/2
    ]
    row = panel.score_field(records, num_players=2)
    assert row["truncated"] == 2
    assert row["games"] == 4
    assert row["win_rate"] == pytest.approx(1.5 / 4)  # not 3 / 4 (wins) nor 1.5 / 2 (truncation ignored)


def test_the_panel_scores_truncated_games_as_losses_where_the_tournament_scores_the_leaders():
    lineup = [("agent", RandomAgent), ("random", RandomAgent)]
    tournament = run_tournament(lineup, num_players=2, games=4, seed=3, max_turns=2)
    assert all(r["truncated"] for r in tournament.records)
    assert tournament.row("agent")["win_rate"] > 0  # the env's rule: the R28 leaders win a truncated game
    result = panel.run_panel("random", num_players=2, games=4, seed=3, max_turns=2, fields=["random"])
    (row,) = result["rows"]
    assert (row["win_rate"], row["truncated"], row["games"]) == (0.0, 4, 4)
    assert result["headline"]["most_truncated"] == 1.0


@pytest.fixture
def cheap_search(monkeypatch):
    """The search agent is slow (about 2 s a game with three of them): its seats are RandomAgents here."""
    def factory(name):
        return RandomAgent if name.startswith("search") else agent_factory(name)

    monkeypatch.setattr(panel, "agent_factory", factory)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_field_is_played_at_every_player_count(players, cheap_search):
    expected = [f for f in panel.PANEL_FIELDS if players > 2 or f not in panel.MIXED_FIELDS]
    assert len(expected) == (9 if players == 2 else 11)
    result = panel.run_panel("heuristic", num_players=players, games=players, seed=1)
    assert [r["field"] for r in result["rows"]] == expected
    for row in result["rows"]:
        assert len(row["opponents"]) == players - 1
        assert row["games"] == players and row["fair_share"] == pytest.approx(1 / players)
        assert set(row) == set(panel.PANEL_COLUMNS)
    strategies = {f.removeprefix("heuristic-") for f in expected if f.startswith("heuristic-")}
    assert strategies == {"conservative", "aggressive", "hoarder", "reach", "majority"}
    assert result["headline"]["search"]["field"] == "search"


def test_the_mixed_tables_are_seeded_lineups_of_registry_names():
    assert panel.field_opponents("mixed-strong", 4) == ["heuristic", "greedy", "search:32:2"]
    assert panel.field_opponents("search", 3) == ["search:32:2"] * 2  # fixed, whatever the default search is
    assert panel.field_opponents("mixed-styles", 3) == ["heuristic-reach", "heuristic-majority"]
    assert panel.field_opponents("mixed-strong", 2) is None
    for players in (2, 3, 4):
        for name in panel.fields_for(players):
            for opponent in panel.field_opponents(name, players):
                agent_factory(opponent)  # raises on a name the registry does not know


def test_the_headline_is_the_lowest_row_except_search():
    rows = [{"field": f, "win_rate": w, "win_ci_low": w - 0.05, "win_ci_high": w + 0.05, "truncated": t, "games": 100}
            for f, w, t in [("heuristic", 0.45, 0), ("greedy", 0.30, 12), ("search", 0.10, 0), ("random", 0.9, 0),
                            ("mixed-strong", 0.31, 1)]]
    h = panel.headline(rows)
    assert h["minimum"] == {"field": "greedy", "win_rate": 0.30, "win_ci_low": 0.25, "win_ci_high": 0.35}
    assert h["search"]["win_rate"] == 0.10
    assert h["most_truncated"] == 0.12


def test_same_seed_same_panel_json(tmp_path, cheap_search):
    def run(seed, workers):
        return panel.run_panel("heuristic", num_players=3, games=6, seed=seed, workers=workers,
                               fields=["heuristic-aggressive", "greedy", "mixed-styles"])

    first, again, other = run(5, 1), run(5, 2), run(6, 1)
    for result in (first, again):
        del result["timing"]
    panel.save(first, str(tmp_path / "a"))
    panel.save(again, str(tmp_path / "b"))
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()
    assert json.loads((tmp_path / "a.json").read_text())["rows"] != other["rows"]


def test_bad_arguments_are_refused_with_one_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        panel.main(["heuristic", "--players", "2", "--fields", "mixed-strong", "--games", "2"])
    assert exit_info.value.code == 2
    assert "field 'mixed-strong' is not in the 2-player panel" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        panel.main(["nonsense", "--games", "4"])
    assert "unknown agent 'nonsense'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="multiple of num_players"):
        panel.run_panel("random", num_players=3, games=4, fields=["random"])
