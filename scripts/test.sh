#!/usr/bin/env bash
# Sets up .venv and runs the test suite (pass pytest options, e.g. -m slow).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --if-needed
# The web app's browser tests drive Debian's headless chromium: install it once where it is missing
# (as root; elsewhere those tests skip and say why).
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test: installing chromium and chromium-driver (apt-get) for the browser tests"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null \
      || echo "test: could not install chromium; the browser tests will skip"
  else
    echo "test: /usr/bin/chromium is missing and cannot be installed here (needs root and apt-get); the browser tests will skip"
  fi
fi
# The API reference builds from the docstrings with warnings as errors (output in build/api, gitignored).
echo "test: building the API reference (docs/api -> build/api)"
.venv/bin/python -m sphinx -q -W --keep-going -b html docs/api build/api
echo "test: type-checking the public API (mypy; the files it checks are listed in pyproject.toml)"
.venv/bin/python -m mypy
exec .venv/bin/python -m pytest -q -n 2 "$@"
