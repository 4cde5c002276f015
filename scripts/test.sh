#!/usr/bin/env bash
# Sets up .venv and runs the test suite (pass pytest options, e.g. -m slow).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -q -n 2 "$@"
