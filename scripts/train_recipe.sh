#!/usr/bin/env bash
# The committed 4-player recipe, end to end (train/configs/recipe.json: one step of expert iteration, a
# network cloned from the search agent search:4:1 with DAgger) through fifthave-experiment, then evaluated
# in EVAL_GAMES seat-rotated tournament games against three HeuristicAgents and against three RandomAgents.
#
#   bash scripts/train_recipe.sh [--publish] [--run-dir DIR] [--scale S]   (other options go to fifthave-experiment)
#
# Every run writes a new directory runs/recipe-DATE-TIME (or --run-dir DIR): the experiment's outputs, the
# evaluation tables (final_vs_heuristic.*, final_vs_random.*) and final_evaluation.md, which says how to
# reproduce them. Nothing in results/ changes without --publish.
# --publish also writes the final policy without its optimizer to OUT/policy.zip (fifthave-experiment
# --publish), the experiment's outputs and the evaluation tables to OUT, and appends final_evaluation.md to
# OUT/README.md (which the experiment has just rewritten). The default OUT holds the committed results.
# A trial run of about a minute: EVAL_GAMES=8 bash scripts/train_recipe.sh --scale 0.01 (19 games of cloning).
#
# Environment: PYTHON (default .venv/bin/python), OUT (where --publish writes, default results/training),
# EVAL_GAMES (default 1000), WORKERS (tournament processes, default 2), CONFIG (default train/configs/recipe.json).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
OUT=${OUT:-results/training}
EVAL_GAMES=${EVAL_GAMES:-1000}
WORKERS=${WORKERS:-2}
CONFIG=${CONFIG:-train/configs/recipe.json}

original_args=$*
source scripts/publish_options.sh
# Chosen here rather than by the experiment: the evaluation below needs to know it.
run_dir=${run_dir:-runs/recipe-$(date +%Y%m%d-%H%M%S)}

# --out also names the published run when not publishing: its run.json gives the experiment's time estimate.
publish_flag=()
if $publish; then publish_flag=(--publish); fi
started=$(date +%s)
"$PYTHON" -m fifthave.train.experiment --config "$CONFIG" --run-dir "$run_dir" --out "$OUT" ${publish_flag[@]+"${publish_flag[@]}"} \
    --no-progress ${other_args[@]+"${other_args[@]}"}
if $publish; then
    policy=$OUT/policy.npz
    tables=$OUT
    recipe_notes="[RECIPE.md](RECIPE.md)"
else
    # Agent files are named ckpt_<10-digit steps>.npz (beside each checkpoint .zip), so the last in sort order is the final one.
    policy=$(ls "$run_dir"/checkpoints/ckpt_*.npz | sort | tail -n 1)
    tables=$run_dir
    recipe_notes=results/training/RECIPE.md
fi
trained=$(date +%s)

for opponent in heuristic random; do
    "$PYTHON" -m fifthave.agents.tournament --agents "policy:$policy:greedy" "$opponent*3" --games "$EVAL_GAMES" \
        --seed 2026 --workers "$WORKERS" --quiet --out "$tables/final_vs_$opponent" > "$tables/final_vs_$opponent.txt"
    cat "$tables/final_vs_$opponent.txt"
done
finished=$(date +%s)
{
    echo
    echo "## Final evaluation of $(basename "$policy") ($EVAL_GAMES seat-rotated games per table)"
    echo
    echo "Training (cloning, PPO if any, and the evaluations above) took $((trained - started)) s, this evaluation" \
         "$((finished - trained)) s. Reproduce without retraining:"
    echo
    for opponent in heuristic random; do
        echo "    fifthave-tournament --agents policy:$policy:greedy $opponent*3 --games $EVAL_GAMES --seed 2026" \
             "--out $tables/final_vs_$opponent"
    done
    echo
    echo "Retrain: \`bash scripts/train_recipe.sh ${original_args}\`."
    echo
    echo "What the recipe is, what each part gave and what limits it: $recipe_notes."
    for opponent in heuristic random; do
        echo
        echo '```'
        grep -v "^wrote " "$tables/final_vs_$opponent.txt"
        echo '```'
    done
} > "$run_dir/final_evaluation.md"
if $publish; then
    cat "$run_dir/final_evaluation.md" >> "$OUT/README.md"
    echo "published into $OUT; the evaluation is appended to $OUT/README.md"
else
    echo "wrote $run_dir (evaluation: $run_dir/final_evaluation.md); results/ is unchanged (--publish publishes)"
fi
