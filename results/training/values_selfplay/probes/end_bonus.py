"""Probe (issue 35, 28 Nov, night): does a larger ``end_bonus`` stop the 3-player network's stalled games?

`values-selfplay-3p` (destination features, ``end_bonus`` 0.05) lets 64 of 999 games against two GreedyAgents run
into truncation. This refits the run's final labels with another ``end_bonus`` (a fit setting: the labels stay as
searched), every other setting as the run's (``destinations.fit_run``), and writes a regular agent file; with two
more arguments it sets ``stall_bonus`` and ``stall_turn`` too. Run from the repository root:

    PYTHONPATH=. python P/end_bonus.py RUN_DIR OUT 0.1     # OUT/values.npz
    PYTHONPATH=. python P/end_bonus.py RUN_DIR OUT 0.05 0.5 60     # end_bonus 0.05, stall_bonus 0.5 from turn 60
    python -m fifthave.agents.panel values:OUT/values.npz --players 3 --games 999 --seed 2026 --fields greedy --out T/g
    PYTHONPATH=. python P/destinations.py play OUT/values.npz 999 T/h 3
"""
import os
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from destinations import fit_run  # noqa: E402

if __name__ == "__main__":
    stall = dict(stall_bonus=float(sys.argv[4]), stall_turn=int(sys.argv[5])) if len(sys.argv) > 4 else {}
    fit_run(sys.argv[1], sys.argv[2], end_bonus=float(sys.argv[3]), **stall)
