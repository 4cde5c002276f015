"""The observation builder gives exactly the frozen observations of ``observation_freeze``.

Layout 0's fixture was recorded with the first, simple builder: the incremental one
must reproduce it bit for bit, through a layout-0 observer and as the prefix of a
layout-1 one. Layout 1's fixture (every view, derived ones included) guards later
rewrites. Each observation is checked through a long-lived observer (its caches) and,
for a sample, a fresh one; with the hand and auction rows written in C (``_fastobs``)
and in Python, the two implementations of those rows.
"""

import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

from fifthave_env import observation
from fifthave_env.observation import OBS_SIZES, Observer
from observation_freeze import SCENARIOS, SIZES, digest, fixture, replay


@pytest.fixture(params=["c", "python"])
def implementation(request, monkeypatch):
    if request.param == "c" and not observation.ACCELERATED:
        pytest.skip("fifthave_env._fastobs is not built (or FIFTHAVE_PURE_PYTHON is set)")
    monkeypatch.setattr(Observer, "accelerated", request.param == "c")
    return request.param


@pytest.fixture(scope="module")
def frozen():
    result = {}
    for layout in SIZES:
        with np.load(fixture(layout)) as data:
            result[layout] = {key: data[key] for key in data.files}
    return result


def test_frozen_sizes_are_the_layout_sizes():
    assert SIZES == OBS_SIZES


@pytest.mark.parametrize("observer_layout", sorted(SIZES))
@pytest.mark.parametrize("index", range(len(SCENARIOS)),
                         ids=lambda i: "{}p-{}plots-start{}-turns{}".format(*SCENARIOS[i][:4]))
def test_builder_reproduces_the_frozen_observations(frozen, observer_layout, index, implementation):
    """An observer of layout L reproduces the fixture of every layout up to L."""
    layouts = [layout for layout in SIZES if layout <= observer_layout]
    expected = {layout: frozen[layout][f"s{index}"] for layout in layouts}
    count = 0
    make = lambda config: Observer(config, version=observer_layout)  # noqa: E731
    for i, (game, seat, obs) in enumerate(replay(make, SCENARIOS[index])):
        fresh = make(game.config).observe(game, seat) if i % 13 == 0 else None  # no cache: agrees too
        for layout in layouts:
            assert i < len(expected[layout]), "more observations than recorded: the replay changed"
            assert digest(obs, layout) == expected[layout][i], (
                f"layout {layout}: observation {i} (seat {seat}, decision {game.decision}, turn {game.turn}) "
                f"differs from the frozen one")
            assert fresh is None or digest(fresh, layout) == expected[layout][i]
        count += 1
    assert all(count == len(expected[layout]) for layout in layouts)


def test_the_c_extension_is_built_where_a_compiler_is():
    """Installing compiles ``_fastobs`` when a C compiler and Python's headers are there; failing
    silently would only make observations slower, so this says it."""
    headers = os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
    if not (shutil.which("cc") or shutil.which("gcc")) or not headers:
        pytest.skip("no C compiler or no Python headers: the Python path is the one installed")
    from fifthave_env import _fastobs  # noqa: F401  (ImportError: reinstall, pip install -e .)


def test_fifthave_pure_python_turns_the_c_path_off():
    code = "from fifthave_env import observation; print(observation.ACCELERATED, observation.Observer.accelerated)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "FIFTHAVE_PURE_PYTHON": "1"})
    assert result.stdout.split() == ["False", "False"]


@pytest.mark.skipif(not observation.ACCELERATED, reason="fifthave_env._fastobs is not built")
def test_the_c_functions_refuse_rows_that_are_not_a_games_and_write_nothing():
    from fifthave_env import _fastobs
    from fifthave_env.engine import GameConfig

    state = Observer(GameConfig(num_players=4), version=1)._state
    before = bytes(state)
    flags = bytearray(b"\x01" * 4)
    rows = [[0] * 18 for _ in range(4)]
    bad_hands = [[0] * 18 for _ in range(3)] + [[0] * 17]
    with pytest.raises(TypeError, match="a hand must be a list of 18 ints"):
        _fastobs.write_hands(state, bad_hands, rows, 0, True, flags, flags)
    with pytest.raises(ValueError, match="the state vector does not fit"):
        _fastobs.write_hands(state[:10], rows, rows, 0, True, flags, flags)
    with pytest.raises(ValueError, match="the seat do not fit"):
        _fastobs.write_hands(state, rows, rows, 4, True, flags, flags)
    with pytest.raises(ValueError, match="a bid color must be in -1..4, got 5"):
        _fastobs.write_bids(state, [False] * 4, rows, [0] * 4, [0, 0, 0, 5], 0, -1, False, 2, [], -1, [0] * 18)
    with pytest.raises(TypeError, match="takes 12 arguments"):
        _fastobs.write_bids(state)
    assert bytes(state) == before and flags == b"\x01" * 4


@pytest.mark.skipif(not observation.ACCELERATED, reason="fifthave_env._fastobs is not built")
def test_the_c_layout_must_lie_inside_the_state_vector():
    from fifthave_env import _fastobs
    from fifthave_env.engine import Game, GameConfig

    try:
        with pytest.raises(ValueError, match=r"block 0 \(offset 5\) leaves the state vector"):
            _fastobs.configure(18, 5, 5, 4, 60, *([5] * 17))
        with pytest.raises(RuntimeError, match="configure"):  # refused: nothing is written until configured
            Observer(GameConfig(num_players=2), version=1).observe(Game(GameConfig(num_players=2), seed=0), 0)
    finally:
        observation._configure_fastobs()
