"""The default search's 1,000-game confirmation, with its games on disk as they finish.

The same games as ``python -m fifthave.agents.tournament --agents AGENT heuristic heuristic heuristic
--games 1000 --seed 2026`` (``fifthave.agents.tournament.play_game`` on the same setup: every game depends
on the seed and its index only), but each record is appended to ``OUT.jsonl`` when it arrives, in
game order, so that a run stopped early (a shared machine, a deadline) still gives the table of
its complete deals: ``--summarize`` writes ``OUT.json/.csv/.png`` from them without playing.

    PYTHONPATH=$PWD python results/search/confirm.py --agent search --workers 2 --out results/search/search_1000
    PYTHONPATH=$PWD python results/search/confirm.py --agent search --out results/search/search_1000 --summarize \
        --against results/search/search_32_2_1000.json

``--against`` adds the paired difference of the searcher's win share over the deals both records hold
(the same deals: same seed), from ``fifthave.agents.stats.paired_difference``.
"""

import argparse
import json
import os
import time

from fifthave.agents.stats import paired_difference
from fifthave.agents.tournament import (
    TournamentResult,
    _init_worker,
    _labelled,
    _play_in_worker,
    _Setup,
    agent_factory,
    deal_win_shares,
    fork_pool,
    summarize,
)

PLAYERS = 4


def setup_for(agent, seed):
    labels, factories = _labelled([(name, agent_factory(name)) for name in [agent] + ["heuristic"] * 3])
    return _Setup(labels, factories, PLAYERS, 5, 300, seed)


def result_of(setup, records, seconds):
    """The table of the complete deals among ``records`` (a deal is its ``PLAYERS`` seat rotations)."""
    records = records[:len(records) - len(records) % PLAYERS]
    settings = {"labels": setup.labels, "num_players": PLAYERS, "board": setup.board, "games": len(records),
                "seed": setup.seed, "max_turns": setup.max_turns, "seat_orders": setup.seat_orders}
    return TournamentResult(settings, summarize(records, setup.labels, PLAYERS), records, seconds)


def read_records(out):
    """The complete game records in ``OUT.jsonl`` (not a line being written)."""
    with open(out + ".jsonl") as source:
        return [json.loads(line) for line in source if line.endswith("\n")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="search")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", required=True, help="writes OUT.jsonl (games) and OUT.json/.csv/.png (table)")
    parser.add_argument("--summarize", action="store_true", help="only the table of the games in OUT.jsonl")
    parser.add_argument("--resume", action="store_true",
                        help="keep the complete games in OUT.jsonl and play the rest (a game depends on its index only)")
    parser.add_argument("--against", help="a tournament record (STEM.json) of another searcher on the same seed")
    args = parser.parse_args(argv)
    setup = setup_for(args.agent, args.seed)
    start = time.perf_counter()
    if not args.summarize:
        done = 0
        if args.resume and os.path.exists(args.out + ".jsonl"):
            done = len(read_records(args.out))
            with open(args.out + ".jsonl", "r+") as sink:  # drop a line cut off by the interruption
                sink.truncate(sum(len(line) for line in sink.readlines()[:done]))
        with open(args.out + ".jsonl", "a" if args.resume else "w") as sink, \
                fork_pool(args.workers, _init_worker, (setup,)) as pool:
            for record in pool.map(_play_in_worker, range(done, args.games), chunksize=PLAYERS):
                sink.write(json.dumps(record) + "\n")
                sink.flush()
    records = read_records(args.out)
    seconds = time.perf_counter() - start
    if args.summarize and os.path.exists(args.out + ".json"):  # the playing run's wall time, not this reading's
        with open(args.out + ".json") as source:
            seconds = json.load(source)["seconds"]
    result = result_of(setup, records, seconds)
    result.save(args.out)
    print(f"{len(result.records)} games ({len(result.records) // PLAYERS} deals), seed {args.seed}, "
          f"{os.path.basename(args.out)}")
    print(result.format_table())
    print("act() ms per call:", ", ".join(f"{k} {v:.3f}" for k, v in result.act_ms().items()))
    if args.against:
        with open(args.against) as source:
            other = json.load(source)
        mine, theirs = deal_win_shares(result.records), deal_win_shares(other["games"])
        deals = sorted(set(mine) & set(theirs))
        if len(deals) < 2:
            parser.exit(1, f"--against: {len(deals)} deal(s) in both records; a paired difference needs 2\n")
        diff = paired_difference([theirs[d] for d in deals], [mine[d] for d in deals])
        print(f"paired by deal against {other['settings']['labels'][0]} ({os.path.basename(args.against)}), "
              f"{diff['deals']} deals: {diff['candidate']:.3f} vs {diff['baseline']:.3f}, difference "
              f"{diff['difference']:+.3f} [{diff['ci_low']:+.3f}, {diff['ci_high']:+.3f}]")


if __name__ == "__main__":
    main()
