#!/usr/bin/env bash
# Sets up .venv when needed (scripts/setup.sh --if-needed: only when .venv is missing or pyproject.toml
# changed since the last setup) and trains a small agent: `fifthave train` with the committed PPO config
# (train/configs/ppo_vs_random.json) unless the first argument is another config. Every other argument goes
# to `fifthave train` (--set SECTION.KEY=VALUE, --out DIR; --help lists them). Each run writes a new
# runs/DATE-TIME-METHOD directory; --resume alone continues the newest one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --if-needed
args=("$@")
case "${1:-}" in
  *.json | -h | --help) ;;
  --resume)
    if [ $# -eq 1 ]; then
      newest=$(ls -d runs/2*-* 2>/dev/null | sort | tail -n 1 || true)
      if [ -z "$newest" ]; then
        echo "run.sh: --resume: no runs/DATE-TIME-METHOD directory to continue; pass --resume DIR" >&2
        exit 2
      fi
      args=(--resume "$newest")
    fi ;;
  *) args=(train/configs/ppo_vs_random.json "$@") ;;
esac
exec .venv/bin/python -m fifthave.cli train "${args[@]}"
