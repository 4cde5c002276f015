"""Training evaluation keeps its games' moves in the run directory, in the tournament's result format, and the
web app's loader opens them and replays a game of the learner (which it could not play again from seeds)."""

import pytest

from fifthave.agents import models
from fifthave.train.config import TrainConfig
from fifthave.train.evaluate import LEARNER_LABEL, eval_games_path, evaluate


def test_evaluation_games_open_in_the_web_viewer(tmp_path):
    sessions = pytest.importorskip("fifthave.agents.web.sessions", reason="the web app needs starlette")
    config = TrainConfig(seed=1, num_players=4, run_dir=str(tmp_path))
    path = eval_games_path(str(tmp_path), "step_000000100", "search:2:1")
    assert path == str(tmp_path / "eval_games" / "step_000000100_vs_search_2_1.json")
    result = evaluate(models.factory("policy-4p"), "heuristic", 4, config, seed=7, games_path=path)
    data = sessions.parse_json(open(path, "rb").read())
    listed = sessions.tournament_games(data)
    assert [g["game"] for g in listed] == [0, 1, 2, 3] and all(LEARNER_LABEL in g["agents"] for g in listed)
    for game in listed:
        record = sessions.tournament_game_record(data, game["game"])
        assert record.final_game().scores == game["scores"]
        assert record.agents == game["agents"]
        learner = record.agents.index(LEARNER_LABEL)
        assert any(e is not None and e["kind"] == "policy" for e, seat in zip(record.explanations, _actors(record))
                   if seat == learner)  # what the learner reported at its decisions
    assert result.games == 4


def _actors(record):
    game = record.replay()
    _, _, _, state = next(game)
    actors = []
    for action in record.actions:
        actors.append(state.actor)
        _, _, _, state = next(game)
    return actors
