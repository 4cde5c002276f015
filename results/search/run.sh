#!/usr/bin/env bash
# The search agent's strength ladder (see README.md): about an hour of CPU on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHONPATH="$PWD:$PWD/results/search${PYTHONPATH:+:$PYTHONPATH}" ${PYTHON:-python} results/search/ladder.py "$@"
