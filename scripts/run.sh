#!/usr/bin/env bash
# Sets up .venv and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/fifthave-train "$@"
