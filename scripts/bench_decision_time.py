"""CPU time of one decision of an agent, seated against HeuristicAgents (5-plot board, 4 players unless
``--players``).

Run: ``PYTHONPATH=. .venv/bin/python scripts/bench_decision_time.py values-all-4p values-4p heuristic [--games 20]
[--players 4]``

Each agent named (any name ``fifthave tournament`` takes) plays seat ``game % players`` of the same games; the
figure is this process's CPU time inside its ``act`` / ``act_view`` per call, mean and 99th percentile, the observation
built outside the clock (the runner builds it for every agent); a network with effect features draws its
determinizations inside the clock. The agents run one after another in one process,
so a shared machine slows all alike: compare the ratios.
"""

import argparse
import time

import numpy as np

from fifthave.agents.tournament import agent_factory
from fifthave.agents.view import StateView
from fifthave_env.agent_protocol import give_sampler, observation_layout, reads_view
from fifthave_env.engine import Game, GameConfig
from fifthave_env.observation import Observer


def decision_seconds(name, games, players=4):
    """CPU seconds of each ``act`` call of agent ``name`` in ``games`` games against heuristics."""
    config = GameConfig(num_players=players)
    factory, heuristic = agent_factory(name), agent_factory("heuristic")
    times = []
    for seed in range(games):
        game = Game(config, seed=seed)
        seat = seed % players
        agents = [factory() if s == seat else heuristic() for s in range(players)]
        observers = [None if reads_view(a) else Observer(config, version=observation_layout(a)) for a in agents]
        for s, agent in enumerate(agents):
            agent.reset(config, s, np.random.default_rng([seed, s]))
            give_sampler(agent, game, s)  # as every runner does: a network with effect features draws from it
        while not game.is_over:
            s = game.actor
            agent = agents[s]
            if observers[s] is None:
                view = StateView(game, s)
                start = time.process_time()
                action = agent.act_view(view)
            else:
                observation, mask = observers[s].observe(game, s), game.action_mask()
                start = time.process_time()
                action = agent.act(observation, mask)
            if s == seat:
                times.append(time.process_time() - start)
            game.apply(int(action))
    return np.asarray(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("agents", nargs="+")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    args = parser.parse_args(argv)
    for name in args.agents:
        times = decision_seconds(name, args.games, args.players)
        print(f"{name:30} {len(times):6} decisions: mean {times.mean() * 1e3:.3f} ms, "
              f"99th percentile {np.percentile(times, 99) * 1e3:.3f} ms, max {times.max() * 1e3:.3f} ms CPU "
              f"({times[1:].max(initial=0) * 1e3:.3f} ms after the first, whose cold start is often the max)",
              flush=True)


if __name__ == "__main__":
    main()
