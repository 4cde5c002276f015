#!/usr/bin/env bash
# Creates .venv (once) and installs fifthave with all extras into it.
# torch is pinned to 2.13.0 before anything else asks for it: on our machines pip
# takes that CPU build from local disk; elsewhere it is the ordinary PyPI release.
#
#   bash scripts/setup.sh              install (again)
#   bash scripts/setup.sh --if-needed  only when .venv is missing or pyproject.toml or this script changed
#                                      since the last setup (run.sh and test.sh: their --help answers at once)
#
# The stamp .venv/.setup-stamp holds the hash of pyproject.toml and this script at the last finished setup.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "" | --if-needed) ;;
  *) echo "setup.sh: unknown option $1 (allowed: --if-needed)" >&2; exit 2 ;;
esac
PY=${PYTHON:-python3}
STAMP=.venv/.setup-stamp
stamp=$(cat pyproject.toml scripts/setup.sh | { sha256sum 2>/dev/null || shasum -a 256; } | cut -d ' ' -f 1)
if [ "${1:-}" = --if-needed ] && [ -x .venv/bin/python ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
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
echo "$stamp" > "$STAMP"
