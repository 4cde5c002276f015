"""The observation builder gives exactly the frozen observations of ``observation_freeze`` (every v0 view).

The fixture was recorded with the first, simple builder; any rewrite for speed must
reproduce it bit for bit, through a long-lived observer (its caches) and a fresh one.
"""

import numpy as np
import pytest

from fifthave_env.observation import Observer
from observation_freeze import FIXTURE, SCENARIOS, digest, replay


@pytest.fixture(scope="module")
def frozen():
    with np.load(FIXTURE) as data:
        return {key: data[key] for key in data.files}


@pytest.mark.parametrize("index", range(len(SCENARIOS)), ids=lambda i: "{}p-{}plots-start{}-turns{}".format(*SCENARIOS[i][:4]))
def test_builder_reproduces_the_frozen_observations(frozen, index):
    expected = frozen[f"s{index}"]
    got = 0
    for i, (game, seat, obs) in enumerate(replay(Observer, SCENARIOS[index])):
        assert i < len(expected), "more observations than recorded: the replay changed"
        assert digest(obs) == expected[i], (
            f"observation {i} (seat {seat}, decision {game.decision}, turn {game.turn}) differs from the frozen one")
        if i % 7 == 0:  # a fresh observer (no cache) agrees too
            assert digest(Observer(game.config).observe(game, seat)) == expected[i]
        got += 1
    assert got == len(expected)
