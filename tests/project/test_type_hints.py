"""Every public function of the modules mypy checks (``[tool.mypy] files`` in pyproject.toml) annotates each
parameter and its return, so the typed part of the API cannot silently shrink: a new function without hints
fails here, not only in a reviewer's eye (mypy alone accepts an unannotated function and skips its body)."""

import importlib
import inspect
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def checked_modules():
    """The import names of the files in ``[tool.mypy] files`` (fifthave/agents/x.py is fifthave.agents.x)."""
    files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    names = []
    for file in files:
        parts = list(Path(file).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def own_functions(module):
    """(qualified name, function) of every public function, and public method of a public class, that
    ``module`` itself defines (not what it imports or inherits). ``__init__`` counts as public: its
    parameters are the constructor's. Properties are checked through their getter."""
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            yield name, value
        elif inspect.isclass(value):
            for member_name, member in vars(value).items():
                if member_name.startswith("_") and member_name != "__init__":
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                elif isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member) and member.__module__ == module.__name__:
                    yield f"{name}.{member_name}", member


def missing_annotations(function, qualified_name):
    """What ``function`` leaves unannotated: its parameters (but ``self`` and ``cls``) and its return
    (``__init__`` may leave the return out, as mypy allows once a parameter is annotated)."""
    signature = inspect.signature(function)
    missing = [f"parameter {parameter.name!r}" for index, parameter in enumerate(signature.parameters.values())
               if parameter.annotation is inspect.Parameter.empty
               and not (index == 0 and parameter.name in ("self", "cls"))]
    if signature.return_annotation is inspect.Signature.empty and not qualified_name.endswith("__init__"):
        missing.append("the return")
    return missing


def test_every_public_function_of_the_checked_modules_is_annotated():
    gaps = []
    for module_name in checked_modules():
        module = importlib.import_module(module_name)
        for qualified_name, function in own_functions(module):
            missing = missing_annotations(function, qualified_name)
            if missing:
                gaps.append(f"{module_name}.{qualified_name}: {', '.join(missing)}")
    assert not gaps, ("public functions of modules in [tool.mypy] files lack type hints (annotate every "
                      "parameter and the return):\n" + "\n".join(gaps))


def test_the_walk_sees_functions_methods_and_gaps():
    # guards the test above against a walk that finds nothing (and so misses nothing)
    modules = checked_modules()
    assert "fifthave_env.engine.game" in modules and "fifthave.agents.learned" in modules
    found = dict(own_functions(importlib.import_module("fifthave_env.engine.game")))
    assert "Game.__init__" in found and "GameConfig" not in found  # a class is walked for its methods

    def unannotated(x, y: int):
        return x

    class Sample:
        def method(self, value: int) -> int:
            return value

        @property
        def size(self):
            return 1

    assert missing_annotations(unannotated, "unannotated") == ["parameter 'x'", "the return"]
    assert missing_annotations(Sample.method, "Sample.method") == []
    assert missing_annotations(Sample.size.fget, "Sample.size") == ["the return"]


PENDING: set[str] = set()
"""Public modules of fifthave_env/, agents/ and fifthave/ not yet in ``[tool.mypy] files`` (remove a module
here when you list it there). fifthave.train is not covered yet."""


def test_every_public_module_outside_training_is_type_checked():
    files = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"])
    public = set()
    for folder, shown_as in (("fifthave_env", "fifthave_env"), ("agents", "fifthave/agents"), ("fifthave", "fifthave")):
        for path in (ROOT / folder).rglob("*.py"):
            relative = path.relative_to(ROOT / folder)
            if folder == "fifthave" and relative.parts[0] in ("agents", "train"):
                continue  # the links to agents/ (walked above) and train/ (not covered)
            if not any(part.startswith("_") and part != "__init__.py" for part in relative.parts):
                public.add(f"{shown_as}/{relative.as_posix()}")
    stale = sorted(PENDING & files) + sorted(PENDING - public)
    assert not stale, f"remove from PENDING (now type-checked, or gone): {', '.join(stale)}"
    missing = sorted(public - files - PENDING)
    assert not missing, f"public modules missing from [tool.mypy] files in pyproject.toml: {', '.join(missing)}"
    assert not files - public, f"[tool.mypy] files lists modules that do not exist: {sorted(files - public)}"


def test_the_installed_packages_carry_their_hints():
    # PEP 561: without py.typed in the installed package, a user's type checker ignores every hint above
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package in ("fifthave_env", "fifthave"):
        assert (ROOT / package / "py.typed").is_file(), f"{package}/py.typed is missing"
        assert "py.typed" in package_data.get(package, []), f"pyproject.toml does not install {package}/py.typed"
