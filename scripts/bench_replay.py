"""Time and peak memory of ``fifthave replay``'s GIF writer on a seeded game (each case in a fresh process).

    PYTHONPATH=. .venv/bin/python scripts/bench_replay.py --actions 150 --scales 1 4

The game: four heuristic agents, seed 5, its first ``--actions`` actions, one frame per action. The frames are
streamed (issue 40), so the peak stays near one picture plus the renderer; before, every frame was kept:
150 frames at scale 1 peaked at 940 MB (103 MB streamed) on 2026-11-26.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

CASE = """
import json, resource, sys, time
from fifthave_env import replay
record = replay.GameRecord.load(sys.argv[1])
start = time.perf_counter()
frames = replay.save_gif(record, sys.argv[2], every="action", scale=float(sys.argv[3]))
print(json.dumps({"frames": frames, "seconds": time.perf_counter() - start,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=150)
    parser.add_argument("--scales", type=float, nargs="+", default=[1.0])
    args = parser.parse_args()
    from fifthave.agents.registry import AGENT_FACTORIES
    from fifthave_env.replay import record_game

    record = record_game([AGENT_FACTORIES["heuristic"]() for _ in range(4)], seed=5)
    record.actions = record.actions[:args.actions]
    with tempfile.TemporaryDirectory() as directory:
        source = os.path.join(directory, "game.json")
        record.save(source)
        for scale in args.scales:
            out = subprocess.run([sys.executable, "-c", CASE, source, os.path.join(directory, "game.gif"), str(scale)],
                                 capture_output=True, text=True, check=True)
            result = json.loads(out.stdout)
            print(f"scale {scale:g}: {result['frames']} frames in {result['seconds']:.1f} s, "
                  f"peak RSS {result['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
