"""The training tests need the ``train`` extra (torch, stable-baselines3, sb3-contrib): without it each of
their modules is reported as one skipped test that names what to install, instead of an import error."""

import importlib.util

import pytest

MISSING = [name for name in ("torch", "stable_baselines3", "sb3_contrib") if importlib.util.find_spec(name) is None]


class _NeedsTrainingExtra(pytest.File):
    def collect(self):
        yield _SkippedModule.from_parent(self, name="needs the training extra")


class _SkippedModule(pytest.Item):
    def runtest(self):
        pytest.skip(f"the training extra is not installed ({', '.join(MISSING)} missing): pip install -e '.[train]'")


def pytest_pycollect_makemodule(module_path, parent):
    if MISSING:
        return _NeedsTrainingExtra.from_parent(parent, path=module_path)
    return None
