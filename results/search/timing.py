"""CPU and wall time per act() call of one agent seated with three HeuristicAgents (4 players, 5-plot board).

    python results/search/timing.py AGENT [GAMES] [SEED]

CPU time is this process's (time.process_time), so it does not grow with the machine's
load the way wall time does; both are printed with the load average.
"""

import json
import os
import sys
import time

import numpy as np

from fifthave.agents.base import LayoutObservations, give_sampler
from fifthave.agents.tournament import agent_factory
from fifthave_env.engine import Game, GameConfig


def time_agent(name, games=4, seed=0):
    config = GameConfig(num_players=4, board=5)
    cpu = wall = 0.0
    calls = 0
    for i in range(games):
        game = Game(config, seed=seed * 1000 + i)
        seat = i % 4
        agents = [agent_factory(name if s == seat else "heuristic")() for s in range(4)]
        for s, agent in enumerate(agents):
            agent.reset(config, s, np.random.default_rng([seed, i, s]))
            give_sampler(agent, game, s)
        observations = LayoutObservations(config, dict(enumerate(agents)), env_layout=None)  # each its layout
        while not game.is_over:
            s = game.actor
            observation, mask = observations.observe(game, s), game.action_mask()
            c0, w0 = time.process_time(), time.perf_counter()
            action = agents[s].act(observation, mask)
            if s == seat:
                cpu += time.process_time() - c0
                wall += time.perf_counter() - w0
                calls += 1
            game.apply(int(action))
    return {"agent": name, "games": games, "calls": calls, "cpu_ms_per_decision": 1000 * cpu / calls,
            "wall_ms_per_decision": 1000 * wall / calls, "load_average": os.getloadavg()[0]}


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(time_agent(args[0], int(args[1]) if len(args) > 1 else 4,
                                int(args[2]) if len(args) > 2 else 0)))
