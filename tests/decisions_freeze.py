"""Frozen decisions of the scripted agents: whole games, to check that a rewritten agent decides the same.

``python tests/decisions_freeze.py`` plays seeded games of scripted agents in every configuration
(2/3/4 players, 5- and 6-plot boards) and records every action into ``tests/data/decisions.npz``;
``tests/env/test_seat_view.py`` replays the same games with today's agents, through the seat view of
the engine's state (``act_view``) and through the observation (``act``), and compares action by
action. Recorded with the observation-based agents (``fifthave.agents.view.SeatView`` parsing every
observation), before the agents could decide from the engine's state (issue 36). Seat ``s`` of
game ``g`` is ``LINEUP[(g + s) % len(LINEUP)]`` with the generator ``default_rng([seed, g, s])``,
so every bidding strategy and the GreedyAgent play every seat.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fifthave_env.engine import Game, GameConfig  # noqa: E402

LINEUP = ("value", "conservative", "aggressive", "hoarder", "reach", "majority", "greedy")
CONFIGS = [(n, board) for n in (2, 3, 4) for board in (5, 6)]
MIN_DECISIONS = 10_000  # per configuration
SEED = 36


def fixture():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "decisions.npz")


def make_agent(name):
    from fifthave.agents.greedy import GreedyAgent
    from fifthave.agents.heuristic import HeuristicAgent

    return GreedyAgent() if name == "greedy" else HeuristicAgent(bidding=name)


def game_agents(config, g):
    agents = []
    for s in range(config.num_players):
        agent = make_agent(LINEUP[(g + s) % len(LINEUP)])
        agent.reset(config, s, np.random.default_rng([SEED, g, s]))
        agents.append(agent)
    return agents


def record():
    from fifthave_env.observation import Observer

    data = {}
    for n, board in CONFIGS:
        config = GameConfig(num_players=n, board=board)
        observer = Observer(config)
        games = []
        total = 0
        while total < MIN_DECISIONS:
            g = len(games)
            game = Game(config, seed=SEED * 1000 + g)
            agents = game_agents(config, g)
            actions = []
            while not game.is_over:
                seat = game.actor
                action = int(agents[seat].act(observer.observe(game, seat), game.action_mask()))
                game.apply(action)
                actions.append(action)
            games.append(np.asarray(actions, dtype=np.uint8))
            total += len(actions)
        data[f"{n}x{board}_lengths"] = np.asarray([len(a) for a in games], dtype=np.int32)
        data[f"{n}x{board}_actions"] = np.concatenate(games)
        print(f"{n}x{board}: {len(games)} games, {total} decisions")
    np.savez_compressed(fixture(), **data)


if __name__ == "__main__":
    record()
