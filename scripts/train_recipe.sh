#!/usr/bin/env bash
# The committed 4-player recipe, end to end (train/configs/recipe.json: one step of expert iteration, a
# network cloned from the search agent search:4:1 with DAgger) through fifthave-experiment --publish (the final policy without its
# optimizer as results/training/policy.zip, train.checkpoint.export_policy), then evaluated in 1,000 seat-rotated tournament games against three
# HeuristicAgents and against three RandomAgents; the tables are appended to results/training/README.md.
#
#   bash scripts/train_recipe.sh [--scale S] [--run-dir DIR]     (extra options go to fifthave-experiment)
#
# Environment: PYTHON (default .venv/bin/python), OUT (default results/training), EVAL_GAMES (default 1000),
# WORKERS (tournament processes, default 2), CONFIG (default train/configs/recipe.json).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
OUT=${OUT:-results/training}
EVAL_GAMES=${EVAL_GAMES:-1000}
WORKERS=${WORKERS:-2}
CONFIG=${CONFIG:-train/configs/recipe.json}

started=$(date +%s)
"$PYTHON" -m train.experiment --config "$CONFIG" --out "$OUT" --publish --no-progress "$@"
trained=$(date +%s)

for opponent in heuristic random; do
    "$PYTHON" -m agents.tournament --agents "policy:$OUT/policy.zip:greedy" "$opponent*3" --games "$EVAL_GAMES" \
        --seed 2026 --workers "$WORKERS" --quiet --out "$OUT/final_vs_$opponent" > "$OUT/final_vs_$opponent.txt"
    cat "$OUT/final_vs_$opponent.txt"
done
finished=$(date +%s)
{
    echo
    echo "## Final evaluation of policy.zip ($EVAL_GAMES seat-rotated games per table)"
    echo
    echo "Training (cloning, PPO if any, and the evaluations above) took $((trained - started)) s, this evaluation" \
         "$((finished - trained)) s. Reproduce without retraining:"
    echo
    for opponent in heuristic random; do
        echo "    fifthave-tournament --agents policy:$OUT/policy.zip:greedy $opponent*3 --games $EVAL_GAMES --seed 2026" \
             "--out $OUT/final_vs_$opponent"
    done
    echo
    echo "Retrain: \`bash scripts/train_recipe.sh $*\`."
    echo
    echo "What the recipe is, what each part gave and what limits it: [RECIPE.md](RECIPE.md)."
    for opponent in heuristic random; do
        echo
        echo '```'
        grep -v "^wrote " "$OUT/final_vs_$opponent.txt"
        echo '```'
    done
} >> "$OUT/README.md"
