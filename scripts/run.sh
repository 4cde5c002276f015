#!/usr/bin/env bash
# Sets up .venv and trains a small agent (fifthave-train; --help lists the flags).
# Every run writes a new directory runs/run-DATE-TIME unless --run-dir names one;
# --resume without --run-dir continues the newest runs/run-* directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
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
exec .venv/bin/fifthave-train "${args[@]}"
