#!/usr/bin/env bash
# The candidate-value agent, end to end (train/candidate_values.py, train/configs/candidate_values.json): label
# 2,000 games with the search's values of its candidates (whole bids, board moves), fit three networks, label
# 500 games of their own play (DAgger), fit them again, evaluate them in 1,000 seat-rotated games against three
# HeuristicAgents and against three RandomAgents, and publish the networks, their report and the tables into OUT.
#
#   bash scripts/train_values.sh [--run-dir DIR]
#
# Environment: PYTHON (default .venv/bin/python), OUT (default results/training/values),
# CONFIG (default train/configs/candidate_values.json). An interrupted run continues where it stopped when
# started again with the same --run-dir (its labelled games are saved in DIR/labels).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
OUT=${OUT:-results/training/values}
CONFIG=${CONFIG:-train/configs/candidate_values.json}
RUN_DIR=runs/values-$(date +%Y%m%d-%H%M%S)
if [[ "${1:-}" == "--run-dir" ]]; then RUN_DIR=$2; fi

started=$(date +%s)
"$PYTHON" -m train.candidate_values --config "$CONFIG" --run-dir "$RUN_DIR"
finished=$(date +%s)
mkdir -p "$OUT"
cp "$RUN_DIR/values.pt" "$RUN_DIR/report.json" "$OUT/"
cp "$RUN_DIR"/values_vs_* "$OUT/"
cp "$CONFIG" "$OUT/config.json"
echo "published $RUN_DIR into $OUT after $((finished - started)) s; play it as values:$OUT/values.pt"
