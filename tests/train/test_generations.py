"""The iterated self-play learner (fifthave.train.generations) and its agent (fifthave.agents.learned.ActionValueAgent):
every decision legal in every configuration, the wrong game refused, a generation step end to end, and a
resumed run equal bit for bit to an uninterrupted one."""

import dataclasses
import json
import os
import warnings

import numpy as np
import pytest

from fifthave.agents.agentfile import read_agent_file
from fifthave.agents.learned import ActionValueAgent
from fifthave.agents.tournament import TournamentResult, agent_factory, run_tournament
from fifthave_env.engine.game import Game
from fifthave_env.env_common import game_config
from fifthave_env.observation import Observer
from fifthave.train import generations as G

TINY = dict(seed=3, net_arch=[16], generations=2, games_per_generation=4, anchors=["heuristic", "random"],
            eval_games=8, panel_fields=["heuristic"], panel_games=4, workers=1, epochs=1, max_turns=40)


def network_file(tmp_path, num_players=4, board=5, **fields):
    config = G.GenerationsConfig(**{**TINY, "num_players": num_players, "board": board, "eval_games": 24,
                                    "panel_games": 12, **fields})
    path = str(tmp_path / f"net_{num_players}_{board}.npz")
    G._write_initial(config, path)
    return path


@pytest.mark.parametrize("num_players,board", [(2, 5), (3, 6), (4, 5), (4, 6)])
def test_action_value_agent_plays_every_decision_legally(tmp_path, num_players, board):
    path = network_file(tmp_path, num_players, board)
    cfg = game_config("win_loss", None, num_players=num_players, board=board, max_turns=60)
    observer = Observer(cfg, version=1)
    for seed in range(2):
        game = Game(cfg, rng=np.random.default_rng(seed))
        agents = [agent_factory(f"dmc:{path}")() for _ in range(num_players)]
        for seat, agent in enumerate(agents):
            agent.epsilon = 0.3  # the random moves lead it into more kinds of position
            agent.reset(cfg, seat, np.random.default_rng([seed, seat]))
        decisions = set()
        while not game.is_over:
            seat = game.actor
            decisions.add(game.decision)
            mask = game.action_mask()
            action = agents[seat].act(observer.observe(game, seat), mask)
            assert mask[action], (seed, game.turn, action)
            game.apply(action)
        assert len(decisions) >= 5  # bids, board moves, A/B/C/D, ... all played by the network


def test_action_value_agent_refuses_another_game(tmp_path):
    path = network_file(tmp_path, 4, 5)
    cfg3 = game_config("win_loss", None, num_players=3, board=5)
    with pytest.raises(ValueError, match="trained for 4 players on the 5-plot board, not 3 players"):
        agent_factory(f"dmc:{path}")().reset(cfg3, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="trained for 4 players on the 5-plot board, not 4 players on the 6"):
        agent_factory(path)().reset(game_config("win_loss", None, num_players=4, board=6), 0, np.random.default_rng(0))
    lenient = agent_factory(path)()
    lenient.other_games = "warn"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lenient.reset(cfg3, 0, np.random.default_rng(0))
    assert any("never saw" in str(w.message) for w in caught)


def test_action_value_file_is_checked_and_plays_in_tournaments(tmp_path):
    path = network_file(tmp_path)
    meta, _ = read_agent_file(path)
    assert meta["kind"] == "action-values" and (meta["num_players"], meta["board"]) == (4, 5)
    result = run_tournament([agent_factory(path)] + [agent_factory("heuristic")] * 3, games=4, seed=1)
    assert result.act_ms()[result.settings["labels"][0]] < 50  # a few matrix products, not a search
    with pytest.raises(ValueError, match="candidate-value"):
        agent_factory(f"values:{path}")
    with pytest.raises(TypeError, match="ActorNet"):
        ActionValueAgent(object())


def test_game_return_counts_truncation_as_loss():
    class Ended:
        n, winners, scores = 2, [0], [10, 4]
        truncated = False

    ended = Ended()
    assert G.game_return(ended, 0, 0.0) == 1.0 and G.game_return(ended, 1, 0.0) == 0.0
    ended.truncated = True
    assert G.game_return(ended, 0, 0.3) == 0.0


def test_config_refuses_bad_fields():
    with pytest.raises(ValueError, match="eval_games and panel_games must be multiples"):
        G.GenerationsConfig(**{**TINY, "eval_games": 6})
    with pytest.raises(ValueError, match="panel_fields"):
        G.GenerationsConfig(**{**TINY, "num_players": 2, "panel_fields": ["mixed-strong"]})
    with pytest.raises(ValueError, match="epsilon"):
        G.GenerationsConfig(**{**TINY, "epsilon": 2})


def _states(out):
    states = []
    for g in (1, 2):
        with open(os.path.join(G.generation_dir(out, g), G.STATE_FILE)) as f:
            states.append(G.deterministic_view(json.load(f)))
    return states


def test_generations_run_end_to_end_and_resume_bit_for_bit(tmp_path):
    config = G.GenerationsConfig(**TINY)
    whole, split = str(tmp_path / "whole"), str(tmp_path / "split")
    curve = G.run(config, whole, log=lambda *a, **k: None)
    assert [row["generation"] for row in curve["rows"]] == [1, 2]
    assert set(curve["ratings"]) == {"gen0", "gen1", "gen2", "heuristic"}
    assert os.path.exists(os.path.join(whole, "curve.md"))
    G.run(dataclasses.replace(config, generations=1), split, log=lambda *a, **k: None)
    os.makedirs(G.generation_dir(split, 2))  # an interrupted generation: no manifest, redone on resume
    with pytest.raises(ValueError, match="resume"):
        G.run(config, split, log=lambda *a, **k: None)
    G.run(config, split, resume=True, log=lambda *a, **k: None)
    for g in (0, 1, 2):
        assert (read_agent_file(os.path.join(G.generation_dir(whole, g), G.AGENT_FILE))[0]["weights_sha256"]
                == read_agent_file(os.path.join(G.generation_dir(split, g), G.AGENT_FILE))[0]["weights_sha256"])
    assert _states(whole) == _states(split)
    # a changed file of a finished generation is refused before it is read
    with open(os.path.join(G.generation_dir(split, 1), G.STATE_FILE), "a") as f:
        f.write(" ")
    with pytest.raises(ValueError, match="SHA-256"):
        G.run(dataclasses.replace(config, generations=3), split, resume=True, log=lambda *a, **k: None)


def test_guided_search_plays_with_the_network_as_prior_and_rollout_policy(tmp_path):
    from fifthave.agents.guided_search import guided_factory

    path = network_file(tmp_path)
    for network_rollouts in (False, True):
        factory = guided_factory(path, rollouts=2, depth=1, prior_weight=0.5, network_rollouts=network_rollouts)
        result = run_tournament([factory] + [agent_factory("heuristic")] * 3, games=4, seed=2, max_turns=30)
        assert result.records and all(r["act_calls"] for r in result.records)  # every act legal, else AgentError
    agent = guided_factory(path)()
    assert agent.searched == 0
    with pytest.raises(ValueError, match="trained for 4 players"):
        agent.reset(game_config("win_loss", None, num_players=2, board=5), 0, np.random.default_rng(0))


def test_the_guided_search_command_saves_its_games_for_a_paired_comparison(tmp_path, capsys):
    from fifthave.agents.guided_search import main

    path, stem = network_file(tmp_path), str(tmp_path / "guided")
    main([path, "--rollouts", "2", "--games", "4", "--seed", "3", "--prior-weight", "0", "--out", stem])
    assert "prior weight 0.0" in capsys.readouterr().out
    saved = TournamentResult.load(stem)
    assert len(saved.records) == 4 and saved.settings["labels"][0] == "guided"
