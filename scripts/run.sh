#!/usr/bin/env bash
# Sets up .venv when needed (scripts/setup.sh --if-needed: only when .venv is missing or pyproject.toml
# changed since the last setup) and trains a small agent (python -m fifthave.train.train; --help lists the flags).
# Every run writes a new directory runs/run-DATE-TIME unless --run-dir names one;
# --resume without --run-dir continues the newest runs/run-* directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --if-needed
args=("$@")
case " $* " in
  *" --run-dir "* | *" --run-dir="* | *" -h "* | *" --help "*) ;;
  *" --resume "*)
    newest=$(ls -d runs/run-* 2>/dev/null | sort | tail -n 1 || true)
    if [ -z "$newest" ]; then
      echo "run.sh: --resume: no runs/run-* directory to continue; pass --run-dir DIR" >&2
      exit 2
    fi
    args+=(--run-dir "$newest") ;;
  *) args+=(--run-dir "runs/run-$(date +%Y%m%d-%H%M%S)") ;;
esac
# The training of train/configs/ppo_vs_random.json until `fifthave train CONFIG` (fifthave.train.run) replaces it.
exec .venv/bin/python -m fifthave.train.train "${args[@]}"
