#!/usr/bin/env bash
# Creates .venv (once) and installs fifthave with all extras into it.
# torch is pinned to 2.13.0 before anything else asks for it: on our machines pip
# takes that CPU build from local disk; elsewhere it is the ordinary PyPI release.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
quiet=--quiet
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $PY; the first install takes a few minutes (pip shows its progress)"
  "$PY" -m venv .venv
  quiet=
fi
VPY=.venv/bin/python
if ! "$VPY" -c "import torch" >/dev/null 2>&1; then
  echo "setup: installing torch==2.13.0 into .venv"
  "$VPY" -m pip install $quiet "torch==2.13.0"
fi
echo "setup: pip install -e \".[train,analysis,notebooks,research,dev,docs,distributed,web]\" into .venv"
"$VPY" -m pip install $quiet -e ".[train,analysis,notebooks,research,dev,docs,distributed,web]"
