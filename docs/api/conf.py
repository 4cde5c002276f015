"""Sphinx configuration of the API reference (docs/api): autodoc reads the docstrings (reST prose with
``literals`` and :func:`roles`). Built by scripts/test.sh (what CI runs) with warnings as errors:

    .venv/bin/python -m sphinx -W --keep-going -b html docs/api build/api
"""

import dataclasses
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
# The type hints (checked by mypy, pyproject.toml) show in the signatures, linked to their classes' entries; a
# signature longer than a line puts one parameter per line. No autodoc_type_aliases: Sphinx 9 prints an alias
# nested in another type as "TypeAliasForwardRef('...')", so the aliases (AgentFactory, ...) show expanded.
autodoc_typehints = "signature"
maximum_signature_line_length = 100
autodoc_preserve_defaults = True  # defaults as written (projected_value, DEFAULT_ROLLOUTS), not their repr
python_use_unqualified_type_names = True
# Gymnasium / PettingZoo base classes: their inherited members are documented upstream, not here.
autodoc_inherit_docstrings = False

html_theme = "alabaster"
html_title = "fifthave API reference"
html_show_sourcelink = False
exclude_patterns = ["_build"]


def _show_default_factories(app, what, name, obj, options, signature, return_annotation):
    """A dataclass field's ``default_factory`` prints as ``<factory>``, which is no Python: the whole signature
    then fails to parse and shows as raw text (``~typing.Any``). Show the factory's call instead (``list()``),
    or ``...`` for one without a plain name (a lambda)."""
    if not signature or "<factory>" not in signature or not dataclasses.is_dataclass(obj):
        return None
    for field in dataclasses.fields(obj):
        if field.init and field.default_factory is not dataclasses.MISSING:
            factory_name = getattr(field.default_factory, "__qualname__", "")
            shown = f"{factory_name}()" if factory_name.isidentifier() else "..."
            signature = signature.replace("<factory>", shown, 1)
    return signature, return_annotation


def setup(app):
    app.connect("autodoc-process-signature", _show_default_factories)
