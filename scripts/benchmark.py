"""Decisions per second of random legal play, through ``env()`` and through the engine alone.

Run: ``.venv/bin/python scripts/benchmark.py [--seconds 3] [--repeat 3] [--configs 4x5,2x6] [--clock cpu]``

``env()`` loop: the PettingZoo loop every user writes (``agent_iter`` / ``last()`` with
observation and mask / ``step``), one random legal action per decision, on
``fifth_avenue_v1`` (and ``fifth_avenue_v0``: its smaller observation). Engine loop:
``Game.legal_actions()`` / ``Game.apply()`` only. When PettingZoo's ``connect_four_v3``
imports (it needs pygame, which scripts/setup.sh leaves out: ``.venv/bin/python -m pip install -e ".[bench]"``),
the same env loop runs on it for
scale, back to back with ours, ``--repeat`` times; the ratio is of the medians, so a loaded
machine (the load average is printed) moves both alike; ``--clock cpu`` counts this process's
CPU time instead of wall time, steadier when other jobs share the cores. ``observe()``: mean microseconds to
build the actor's observation along random games, per layout (wall time). Agents: mean time of one
``act`` call of each scripted agent, 4 players (``--agents``). Single process, so one core.
"""

import argparse
import os
import statistics
import time

import numpy as np

from fifthave_env import fifth_avenue_v0, fifth_avenue_v1
from fifthave_env.engine import Game, GameConfig
from fifthave_env.observation import LAYOUTS, Observer


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter


def env_rate(make_env, seconds, seed=0):
    env = make_env()
    rng = np.random.default_rng(seed)
    decisions = 0
    episode = 0
    start = clock()
    while clock() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
    return decisions / (clock() - start), episode


def engine_rate(config, seconds, seed=0):
    rng = np.random.default_rng(seed)
    decisions = 0
    games = 0
    start = clock()
    while clock() - start < seconds:
        game = Game(config, seed=seed + games)
        games += 1
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            decisions += 1
    return decisions / (clock() - start), games


def observe_time(config, version, games=4, seed=0):
    """Mean seconds of one ``Observer.observe`` of the seat asked, decision after decision of random games.

    Always wall time: the CPU clock costs more per reading than one observation takes."""
    seconds, calls = 0.0, 0
    for game_seed in range(seed, seed + games):
        game = Game(config, seed=game_seed)
        observer = Observer(config, version=version)
        rng = np.random.default_rng(game_seed)
        while not game.is_over:
            start = time.perf_counter()
            observer.observe(game, game.actor)
            seconds += time.perf_counter() - start
            calls += 1
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
    return seconds / calls


def agent_act_time(agent_class, games, seed=0):
    """Mean seconds per ``act`` call of ``agent_class`` filling every seat of 4-player games."""
    seconds, calls = 0.0, 0
    for game_seed in range(seed, seed + games):
        env = fifth_avenue_v0.env(num_players=4)
        env.reset(seed=game_seed)
        agents = [agent_class() for _ in range(4)]
        for seat, agent in enumerate(agents):
            agent.reset(env.unwrapped.config, seat, np.random.default_rng(seat))
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            start = clock()
            action = agents[env.unwrapped.game.actor].act(obs["observation"], obs["action_mask"])
            seconds += clock() - start
            calls += 1
            env.step(action)
    return seconds / calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per figure (the median is printed)")
    parser.add_argument("--configs", default="2x5,2x6,3x5,3x6,4x5,4x6", help="PLAYERSxPLOTS, comma separated")
    parser.add_argument("--agents", action="store_true", help="also time the scripted agents' act()")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall time or this process's CPU time")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    print(f"clock: {args.clock}; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as err:
        connect_four_v3 = None
        print(f"connect_four_v3 not measured ({err}): the connect_four columns need pygame, which scripts/setup.sh "
              f"does not install; add it with .venv/bin/python -m pip install -e \".[bench]\"")
    print(f"{'config':8} {'v1 env() dec/s':>15} {'v0 env() dec/s':>15} {'engine dec/s':>13} {'dec/game':>9}"
          + (f" {'connect_four':>13} {'v1/c4':>7} {'v0/c4':>7}" if connect_four_v3 else ""))
    for spec in args.configs.split(","):
        players, plots = (int(x) for x in spec.split("x"))
        rates = {"v1": [], "v0": [], "c4": []}
        for repeat in range(args.repeat):  # back to back, so load changes hit all alike
            seed = 100_000 * repeat  # new games in each repeat: no cache meets a game it saw before
            if connect_four_v3:
                rates["c4"].append(env_rate(connect_four_v3.env, args.seconds, seed)[0])
            for name, module in (("v1", fifth_avenue_v1), ("v0", fifth_avenue_v0)):
                rates[name].append(env_rate(lambda: module.env(num_players=players, board=plots), args.seconds,
                                            seed)[0])
        eng_dps, games = engine_rate(GameConfig(num_players=players, board=plots), args.seconds)
        per_game = eng_dps * args.seconds / max(games, 1)
        v1, v0 = statistics.median(rates["v1"]), statistics.median(rates["v0"])
        line = f"{spec:8} {v1:15,.0f} {v0:15,.0f} {eng_dps:13,.0f} {per_game:9,.0f}"
        if connect_four_v3:
            c4 = statistics.median(rates["c4"])
            line += f" {c4:13,.0f} {v1 / c4:6.2f}x {v0 / c4:6.2f}x"
        print(line, flush=True)
    for spec in args.configs.split(","):
        players, plots = (int(x) for x in spec.split("x"))
        config = GameConfig(num_players=players, board=plots)
        times = "  ".join(f"layout {v}: {observe_time(config, v) * 1e6:6.1f} us" for v in sorted(LAYOUTS))
        print(f"observe() {spec:5} {times}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.agents:
        from fifthave.agents import GreedyAgent, HeuristicAgent, RandomAgent

        for agent_class in (RandomAgent, GreedyAgent, HeuristicAgent):
            print(f"{agent_class.__name__:15} act(): {agent_act_time(agent_class, games=5) * 1e3:.3f} ms per call")


if __name__ == "__main__":
    main()
