"""Settings every test shares."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def sb3_logs_in_pytest_tmp(tmp_path_factory):
    """stable-baselines3 makes a fresh ``SB3-<time>`` folder in the system temp directory for every model that learns
    without a log folder of its own (about 45 a suite run, never removed); point it at pytest's temp tree instead,
    which pytest prunes. Set in the environment so the CLI subprocesses the tests start inherit it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))
        yield
