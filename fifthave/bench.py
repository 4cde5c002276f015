"""``fifthave bench``: the real workloads (tournaments, bidding lab, search, labelling, training), each timed
against the engine's own random-play rate in the same run.

The benchmark is ``scripts/bench_workloads.py`` of a checkout (it measures the checkout it runs in, and times
training through ``scripts/bench_training.py``), so this command runs it from the checkout this package was
installed from; an install without one says so.
"""

import os
import runpy
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "scripts", "bench_workloads.py")


def main(argv: list[str] | None = None) -> None:
    if not os.path.isfile(SCRIPT):
        sys.exit("fifthave bench: the benchmark runs from a checkout of the repository (scripts/bench_workloads.py); "
                 "this install has none")
    runpy.run_path(SCRIPT, run_name="bench_workloads")["main"](argv)
