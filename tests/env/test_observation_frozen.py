"""The observation builder gives exactly the frozen observations of ``observation_freeze``.

Layout 0's fixture was recorded with the first, simple builder: the incremental one
must reproduce it bit for bit, through a layout-0 observer and as the prefix of a
layout-1 one. Layout 1's fixture (every view, derived ones included) guards later
rewrites. Each observation is checked through a long-lived observer (its caches) and,
for a sample, a fresh one.
"""

import numpy as np
import pytest

from fifthave_env.observation import OBS_SIZES, Observer
from observation_freeze import SCENARIOS, SIZES, digest, fixture, replay


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
def test_builder_reproduces_the_frozen_observations(frozen, observer_layout, index):
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
