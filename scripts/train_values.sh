#!/usr/bin/env bash
# The candidate-value agent, end to end (train/candidate_values.py, train/configs/candidate_values.json): label
# 2,000 games with the search's values of its candidates (whole bids, board moves), fit three networks, label
# 500 games of their own play (DAgger), fit them again, and evaluate them in 1,000 seat-rotated games against
# three HeuristicAgents and against three RandomAgents (about 30-50 min on 2 cores).
#
#   bash scripts/train_values.sh [--publish] [--run-dir DIR]
#
# Every run writes a new directory runs/values-DATE-TIME (or --run-dir DIR): values.npz (play it as
# values:DIR/values.npz), report.json and the evaluation tables values_vs_*. Nothing in results/ changes
# without --publish, which also copies them and the config into OUT. An interrupted run continues where it
# stopped when started again with the same --run-dir (its labelled games are saved in DIR/labels).
#
# The budget is in the config: CONFIG names a JSON file of CandidateValueConfig fields (train/candidate_values.py),
# and a copy of the default with fewer "games", "dagger_games", "held_out_games" and "eval_games" (say 6, 2,
# 2 and 8) and "epochs": 1 is a trial run of a few minutes.
#
# Environment: PYTHON (default .venv/bin/python), OUT (where --publish writes, default results/training/values),
# CONFIG (default train/configs/candidate_values.json).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
OUT=${OUT:-results/training/values}
CONFIG=${CONFIG:-train/configs/candidate_values.json}

source scripts/publish_options.sh
if ((${#other_args[@]})); then
    echo "train_values.sh: unknown option ${other_args[0]} (--help lists the options)" >&2
    exit 2
fi
run_dir=${run_dir:-runs/values-$(date +%Y%m%d-%H%M%S)}

started=$(date +%s)
"$PYTHON" -m fifthave.train.candidate_values --config "$CONFIG" --run-dir "$run_dir"
finished=$(date +%s)
if $publish; then
    mkdir -p "$OUT"
    cp "$run_dir/values.npz" "$run_dir/report.json" "$OUT/"
    cp "$run_dir"/values_vs_* "$OUT/"
    cp "$CONFIG" "$OUT/config.json"
    echo "published $run_dir into $OUT after $((finished - started)) s; play it as values:$OUT/values.npz"
else
    echo "wrote $run_dir after $((finished - started)) s; play it as values:$run_dir/values.npz" \
         "(results/ is unchanged: --publish publishes)"
fi
