"""Sphinx configuration of the API reference (docs/api): autodoc reads the docstrings (reST prose with
``literals`` and :func:`roles`). Built by scripts/test.sh (what CI runs) with warnings as errors:

    .venv/bin/python -m sphinx -W --keep-going -b html docs/api build/api
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the checkout's code, also when the install points elsewhere

project = "fifthave"
author = "the fifthave developers"
copyright = "2026, the fifthave developers (MIT)"

extensions = [
    "sphinx.ext.autodoc",
    # no napoleon: our docstrings have no Google/NumPy sections, and napoleon reads an attribute docstring
    # that opens with "words: ..." (GameConfig.board's "Plots per district: 5, or 6 ...") as a type
    "sphinx.ext.viewcode",
]

autodoc_default_options = {
    "members": True,
    "show-inheritance": True,
    "member-order": "bysource",
    # a package page documents what the package defines, not what its __all__ re-exports (each has its own page)
    "ignore-module-all": True,
}
autodoc_typehints = "signature"
# Gymnasium / PettingZoo base classes: their inherited members are documented upstream, not here.
autodoc_inherit_docstrings = False

html_theme = "alabaster"
html_title = "fifthave API reference"
html_show_sourcelink = False
exclude_patterns = ["_build"]
