"""``fifthave bidlab`` (or ``python -m fifthave.agents.bidlab_cli``): paired comparisons and the committed study.

    fifthave bidlab compare --candidate reach --players 3 --deals 100 [--json out.json]
    fifthave bidlab study [--out results/bidding] [--quick]
"""

import argparse
import os
import time
from collections.abc import Sequence

from fifthave_env.engine import checks
from fifthave_env.runtime import OutputError, check_writable, check_writable_directory, exit_on_interrupt

from .bidding import BIDDING_STRATEGIES
from .bidlab import compare, format_comparison, write_json
from .bidlab_study import run_study
from .tournament import SEAT_ORDERS


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Paired, variance-reduced comparisons of bidding strategies.")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compare", help="baseline vs candidate on the same deals, seats and generators")
    c.add_argument("--baseline", default="heuristic", help="agent name or strategy name (default heuristic)")
    c.add_argument("--candidate", required=True,
                   help=f"agent name (e.g. heuristic-reach) or a bidding strategy: {', '.join(BIDDING_STRATEGIES)}")
    c.add_argument("--opponents", nargs="+", default=None, help="one agent per other seat (default heuristic)")
    c.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    c.add_argument("--deals", type=checks.cli_int(1), default=100)
    c.add_argument("--seed", type=checks.cli_seed, default=0)
    c.add_argument("--board", type=int, default=5, choices=(5, 6))
    c.add_argument("--seat-orders", choices=SEAT_ORDERS, default="cyclic")
    c.add_argument("--orders-per-deal", type=checks.cli_int(1), default=None)
    c.add_argument("--workers", type=checks.cli_workers, default=os.cpu_count() or 1)
    c.add_argument("--json", help="write the result to this path")
    s = sub.add_parser("study", help="the committed study of all strategies (results/bidding)")
    s.add_argument("--out", default="results/bidding")
    s.add_argument("--workers", type=checks.cli_workers, default=os.cpu_count() or 1)
    s.add_argument("--quick", action="store_true", help="a tiny run (a smoke test)")
    args = parser.parse_args(argv)
    try:  # the outputs before the games, which may take hours
        if args.command == "study":
            check_writable_directory("--out", args.out)
        elif args.json:
            check_writable("--json", args.json)
    except OutputError as error:
        parser.error(str(error))
    if args.command == "study":
        with exit_on_interrupt(parser.prog, f"the player counts finished are in {args.out}/study.json"):
            run_study(args.out, workers=args.workers, quick=args.quick)
        return
    try:
        spec = lambda name: f"heuristic-{name}" if name in BIDDING_STRATEGIES else name  # noqa: E731
        start = time.perf_counter()
        with exit_on_interrupt(parser.prog, "nothing written"):
            result = compare(spec(args.baseline), spec(args.candidate), opponents=args.opponents,
                             num_players=args.players, deals=args.deals, seed=args.seed, board=args.board,
                             seat_orders=args.seat_orders, orders_per_deal=args.orders_per_deal, workers=args.workers)
    except ValueError as error:
        parser.error(str(error))
    if args.json:  # first: the result is kept whatever happens below
        write_json(args.json, result)
    print(format_comparison(result))
    print(f"({time.perf_counter() - start:.0f} s)")
    if args.json:
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
