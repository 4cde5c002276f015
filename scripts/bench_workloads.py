"""The users' real workloads, each timed as a cost in engine steps (issue 36).

Run: ``PYTHONPATH=$PWD .venv/bin/python scripts/bench_workloads.py [--quick] [--only NAME ...] [--search NAME ...]``

Every figure is printed as a rate and as its **cost in engine steps**: the engine's raw
random-play rate (``Game.legal_actions`` / ``Game.apply``, 4 players, 5-plot board), measured
in the same run, divided by the workload's rate. A cost holds from machine to machine where a
rate does not; measure before/after on the same machine minutes apart. To time another
checkout's code (e.g. main's, for a before/after table), run this file with that checkout
first on ``PYTHONPATH``: it uses only APIs both have.

Workloads (4 players, 5-plot board; one process, CPU time of this process unless said):

- ``tournament``: ``fifthave.agents.tournament.run_tournament`` of four HeuristicAgents, decisions/s
  (after an untimed 8-game tournament of two deals: one-time imports and caches are not a decision's cost), and
  the garbage collector's runs during it;
- ``bidlab``: ``fifthave.agents.bidlab.compare_many`` (value against conservative bidding, three
  HeuristicAgents around), deals/s (a deal is both arms over the seat rotations);
- ``search``: the default ``search`` agent against three HeuristicAgents (seat-rotated),
  its decisions/s (CPU time of its own decisions, its seat's observation included where it
  reads one) and its win rate over these few games (for the strength claim run the 1,000-game tournament of docs/search.md);
- ``labelling``: ``fifthave.train.candidate_values.play_labelled`` with the default
  ``CandidateValueConfig``, games/s;
- ``decision-kinds`` (only when named in ``--only``): where a HeuristicAgent's time goes, per kind
  of decision (bid, move, ...) over 40 four-heuristic games: CPU per call around ``act_view``
  (its ``StateView`` included) and its cost in engine steps, then the agent's mean, its view's
  part and ``Game.apply``'s per decision (each timed with its own clock reads, ~0.3 us apiece;
  the profile behind issue 36's passes);
- ``district-reuse`` (only when named): what valuations kept per district could reuse in a
  four-heuristic tournament: per kind of decision that values the whole board, how many open
  districts a seat finds as it left them at its previous decision of that kind (plots, shops, closed),
  and how many of those also at the same progress and reserves (what the agents' values depend on
  besides the district); prints a table, times nothing (issue 36's fifth pass);
- ``train-default``, ``train-selfplay``, ``train-heuristic``: MaskablePPO env steps/s (wall
  time: the configs run games in worker processes) of ``train/configs/ppo_vs_random.json``, of the
  self-play experiment (``selfplay_experiment.json``, its snapshot pool full: see
  ``scripts/bench_training.py``), and of the default config against three HeuristicAgents.
"""

import argparse
import gc
import os
import sys
import tempfile
import time

import numpy as np  # noqa: E402

WORKLOADS = ("tournament", "bidlab", "search", "labelling", "train-default", "train-selfplay", "train-heuristic",
             "decision-kinds", "district-reuse")


def engine_rate(seconds):
    """Decisions/s of random legal play on the engine alone (CPU time)."""
    from fifthave_env.engine import Game, GameConfig

    config = GameConfig(num_players=4, board=5)
    rng = np.random.default_rng(0)
    decisions, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game = Game(config, seed=seed)
        seed += 1
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            decisions += 1
    return decisions / (time.process_time() - start)


def tournament(games):
    from fifthave.agents.heuristic import HeuristicAgent
    from fifthave.agents.tournament import run_tournament

    # one-time costs (a lazy numpy import in the summary's statistics, ~15 ms, and first-use caches) are
    # not a decision's: a small untimed tournament first (issue 36's fourth pass), of two deals (8 games),
    # since one deal skips the bootstrap whose np.percentile imports numpy.ma on first use (numpy 2.4:
    # ~20 ms, ~8% of the timed 40 games; issue 36's eighth pass)
    run_tournament([HeuristicAgent] * 4, games=8, seed=0, workers=1)
    collections = [generation["collections"] for generation in gc.get_stats()]
    start = time.process_time()
    result = run_tournament([HeuristicAgent] * 4, games=games, seed=1, workers=1)
    seconds = time.process_time() - start
    collections = "/".join(str(generation["collections"] - before)
                           for generation, before in zip(gc.get_stats(), collections))
    decisions = sum(sum(r["act_calls"]) for r in result.records)
    # the garbage collector's runs (a full one, generation 2, costs ~11 ms: issue 36's seventh pass)
    return decisions / seconds, "decisions/s", f"{games} games, garbage collections {collections} (generations 0/1/2)"


def bidlab(deals):
    from fifthave.agents.bidlab import compare_many

    start = time.process_time()
    compare_many("heuristic-value", ["heuristic-conservative"], deals=deals, seed=1, workers=1)
    return deals / (time.process_time() - start), "deals/s", f"{deals} deals"


def search(games, name="search"):
    """The searcher's CPU per decision, measured around its own calls (the tournament times wall clock)."""
    from fifthave.agents.base import LayoutObservations, give_sampler
    from fifthave.agents.tournament import agent_factory
    from fifthave_env.engine import Game, GameConfig

    try:
        from fifthave_env.agent_protocol import act
    except ImportError:  # code without seat views: every agent reads its observation
        def act(agent, game, seat, observations):
            return agent.act(observations.observe(game, seat), game.action_mask())

    config = GameConfig(num_players=4, board=5)
    cpu, decisions, wins = 0.0, 0, 0.0
    for g in range(games):
        game = Game(config, seed=2026 + g)
        searcher = g % 4
        agents = [agent_factory(name if s == searcher else "heuristic")() for s in range(4)]
        for s, agent in enumerate(agents):
            agent.reset(config, s, np.random.default_rng([2026, g, s]))
            give_sampler(agent, game, s)
        observations = LayoutObservations(config, dict(enumerate(agents)), env_layout=None)
        while not game.is_over:
            s = game.actor
            start = time.process_time()
            action = act(agents[s], game, s, observations)
            if s == searcher:
                cpu += time.process_time() - start
                decisions += 1
            game.apply(int(action))
        wins += 1 / len(game.winners) if searcher in game.winners else 0.0
    return (decisions / cpu, "decisions/s",
            f"{name}, {games} games, {1000 * cpu / decisions:.1f} ms CPU per decision, win rate {wins / games:.3f}")


def labelling(games):
    from fifthave.train.candidate_values import CandidateValueConfig, play_labelled

    config = CandidateValueConfig()
    start = time.process_time()
    for seed in range(games):
        play_labelled(config, seed)
    return games / (time.process_time() - start), "games/s", f"{games} games, {config.samples} samples"


def decision_kinds(games, engine):
    """Per kind of decision: HeuristicAgent's CPU per call (``act_view`` on a ``StateView``), printed as a
    table; returns the agent's mean over all decisions."""
    from fifthave.agents.heuristic import HeuristicAgent
    from fifthave_env.engine import Game, GameConfig
    from fifthave_env.engine import game as G
    from fifthave_env.seat_view import StateView

    names = {getattr(G, name): name[:-len("_DECISION")].lower() for name in dir(G) if name.endswith("_DECISION")}
    config = GameConfig(num_players=4, board=5)
    seconds, calls = {}, {}
    viewing = applying = 0.0  # the StateView's construction (part of the agent's time) and Game.apply
    clock = time.process_time
    for g in range(games):
        game = Game(config, rng=np.random.default_rng(g))
        agents = [HeuristicAgent() for _ in range(4)]
        for seat, agent in enumerate(agents):
            agent.reset(config, seat, np.random.default_rng([g, seat]))
        while not game.is_over:
            seat, kind = game.actor, game.decision
            start = clock()
            view = StateView(game, seat)
            viewed = clock()
            action = agents[seat].act_view(view)
            decided = clock()
            game.apply(action)
            applying += clock() - decided
            viewing += viewed - start
            seconds[kind] = seconds.get(kind, 0.0) + decided - start
            calls[kind] = calls.get(kind, 0) + 1
    total = sum(seconds.values())
    for kind in sorted(seconds, key=seconds.get, reverse=True):
        per_call = seconds[kind] / calls[kind]
        print(f"    {names.get(kind, kind):16} {calls[kind]:7,} calls {1e6 * per_call:7.1f} us a call "
              f"= {engine * per_call:5.1f} engine steps   {seconds[kind] / total:4.0%} of the agent's time")
    decisions = sum(calls.values())
    print(f"    per decision: agent {1e6 * total / decisions:.1f} us (its StateView "
          f"{1e6 * viewing / decisions:.1f} us = {engine * viewing / decisions:.2f} engine steps, the legal actions "
          f"computed there included); Game.apply {1e6 * applying / decisions:.1f} us = "
          f"{engine * applying / decisions:.2f} engine steps")
    return decisions / total, "decisions/s (agent only)", f"{games} games, {decisions:,} decisions"


def district_reuse(games):
    """Prints, per kind of decision, the mean of open districts unchanged since the seat's previous
    decision of that kind, and of those at an unchanged progress (and reserves); returns no timing."""
    from fifthave.agents.heuristic import HeuristicAgent
    from fifthave_env.engine import Game, GameConfig
    from fifthave_env.engine import game as G
    from fifthave_env.engine.board import NUM_DISTRICTS, PLOTS_PER_DISTRICT
    from fifthave_env.seat_view import StateView

    kinds = {G.MOVE_DECISION: "move", G.CHOOSE_ACTION_DECISION: "choose_action", G.DRAW_COLOR_DECISION: "draw_color",
             G.SHOP_PLOT_DECISION: "shop_plot"}
    config = GameConfig(num_players=4, board=5)
    totals = {kind: [0, 0, 0, 0, 0] for kind in kinds}  # decisions, open, unchanged, + progress, + reserves
    for g in range(games):
        game = Game(config, rng=np.random.default_rng(g))
        agents = [HeuristicAgent() for _ in range(4)]
        for seat, agent in enumerate(agents):
            agent.reset(config, seat, np.random.default_rng([g, seat]))
        last = {}
        while not game.is_over:
            seat, kind = game.actor, game.decision
            if kind in kinds:
                districts = [repr([(game.plot_owner[p], game.plot_height[p], game.plot_shops[p])
                                   for p in range(d * PLOTS_PER_DISTRICT, (d + 1) * PLOTS_PER_DISTRICT)])
                             for d in range(NUM_DISTRICTS)]
                now = (districts, (game.stops, game.shops_placed), list(game.reserve))
                before = last.get((seat, kind))
                if before is not None:
                    row = totals[kind]
                    row[0] += 1
                    for d in range(NUM_DISTRICTS):
                        if game.closed[d]:
                            continue
                        row[1] += 1
                        if districts[d] == before[0][d]:
                            row[2] += 1
                            if now[1] == before[1]:
                                row[3] += 1
                                row[4] += now[2] == before[2]
                last[seat, kind] = now
            game.apply(agents[seat].act_view(StateView(game, seat)))
    print("    per decision, of the open districts: unchanged since the seat's previous decision of that kind, "
          "and also at the same progress, and also with the same reserves")
    for kind, (decisions, *counts) in totals.items():
        open_, same, progress, reserves = (count / decisions for count in counts)
        print(f"    {kinds[kind]:14} {decisions:6,} decisions  {open_:4.2f} open  {same:4.2f} unchanged  "
              f"{progress:4.2f} + progress  {reserves:4.2f} + reserves")
    return []


def training(name, rollouts):
    import fifthave_env

    # the measured checkout's own bench_training (it puts its checkout first on sys.path)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(fifthave_env.__file__))),
                                    "scripts"))
    import bench_training

    overrides = {"opponents": ["heuristic"]} if name == "train-heuristic" else {}
    setup_name = "default" if name in ("train-default", "train-heuristic") else "selfplay"
    with tempfile.TemporaryDirectory() as directory:
        config, env, model = bench_training.setup(setup_name, directory, overrides)
        steps = bench_training.rate(model, rollouts)
        env.close()
    return steps, "env steps/s (wall)", f"{rollouts} rollouts of {config.n_envs} x {config.n_steps}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer games (a smoke run; noisier)")
    parser.add_argument("--only", nargs="+", choices=WORKLOADS, default=list(WORKLOADS[:-2]))
    parser.add_argument("--search", nargs="+", default=["search"], metavar="NAME",
                        help="the search agents the search workload times (default: the default search)")
    args = parser.parse_args(argv)
    q = args.quick
    runs = {
        "tournament": lambda: tournament(8 if q else 40),
        "bidlab": lambda: bidlab(2 if q else 10),
        "search": lambda: [search(4 if q else 12, name) for name in args.search],
        "labelling": lambda: labelling(1 if q else 4),
        "train-default": lambda: training("train-default", 1 if q else 3),
        "train-selfplay": lambda: training("train-selfplay", 1 if q else 3),
        "train-heuristic": lambda: training("train-heuristic", 1 if q else 3),
        "decision-kinds": lambda: decision_kinds(8 if q else 40, engine),
        "district-reuse": lambda: district_reuse(8 if q else 40),
    }
    import fifthave_env

    try:
        from fifthave_env.observation import ACCELERATED  # main's code before issue 36 had a C extension
    except ImportError:
        ACCELERATED = False
    print(f"code: {os.path.dirname(os.path.dirname(os.path.abspath(fifthave_env.__file__)))}; observations' "
          f"C extension in use: {ACCELERATED}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    engine = engine_rate(1.0 if q else 3.0)
    print(f"{'engine (random play)':22} {engine:12,.0f} decisions/s (CPU)   cost 1 engine step")
    for name in args.only:
        results = runs[name]()
        for rate, unit, detail in results if isinstance(results, list) else [results]:
            print(f"{name:22} {rate:12,.2f} {unit:22} cost {engine / rate:10,.1f} engine steps   ({detail})",
                  flush=True)
    print(f"engine again: {engine_rate(1.0):,.0f} decisions/s; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
