"""Frozen observations: hashes of the observation of many random positions, to check a rewritten builder.

``python tests/observation_freeze.py LAYOUT`` records them into
``tests/data/observations_v{LAYOUT}.npz`` with the builder of the day;
``tests/env/test_observation_frozen.py`` replays the same positions and compares. Layout 0
was recorded with the first, simple builder (before the incremental one); layout 1
(every view, the derived ones too) with the builder whose derived views
``tests/env/test_derived_views.py`` checks against their definitions. The positions come from seeded random legal play in every
configuration (2/3/4 players, both boards, a fixed and a random starting seat, one short
``max_turns`` so truncation is covered). At every decision a seeded random subset of the
seats is observed, in random order, through one long-lived ``Observer`` per game, so the
builder's caches are exercised the way an environment uses them (a seat not observed
for a while must still come out right). A layout's fixture hashes the first
``OBS_SIZES[layout]`` floats (later layouts keep earlier ones as their prefix).
"""

import hashlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fifthave_env.engine import Game, GameConfig  # noqa: E402

SIZES = {0: 1176, 1: 1409}  # frozen here on purpose: observation.OBS_SIZES must keep them


def fixture(layout):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", f"observations_v{layout}.npz")

# (num_players, board, random_start, max_turns, game seeds)
SCENARIOS = [
    (n, board, random_start, max_turns, seeds)
    for n in (2, 3, 4)
    for board in (5, 6)
    for random_start, max_turns, seeds in ((False, 300, (0, 1)), (True, 300, (2,)), (True, 25, (3,)))
]


def digest(vector, layout):
    """32 bits of a hash of the ``layout`` part of an observation (platform independent: float32 little-endian)."""
    data = np.ascontiguousarray(vector[:SIZES[layout]], dtype="<f4").tobytes()
    return int.from_bytes(hashlib.blake2b(data, digest_size=4).digest(), "little")


def replay(make_observer, scenario):
    """Yield ``(game, seat, observation)`` along the scenario's games, as recorded."""
    n, board, random_start, max_turns, seeds = scenario
    config = GameConfig(num_players=n, board=board, random_start=random_start, max_turns=max_turns)
    for seed in seeds:
        game = Game(config, seed=seed)
        observer = make_observer(config)
        rng = np.random.default_rng(1000 + seed)
        while True:
            seats = [int(s) for s in rng.permutation(n) if rng.random() < 0.6]
            for seat in seats:
                yield game, seat, observer.observe(game, seat)
            if game.is_over:
                break
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])


def record(make_observer, layout):
    """Per scenario, the uint32 digests of every observation of ``replay``."""
    return {f"s{i}": np.array([digest(obs, layout) for _, _, obs in replay(make_observer, scenario)],
                              dtype=np.uint32)
            for i, scenario in enumerate(SCENARIOS)}


if __name__ == "__main__":
    from fifthave_env.observation import Observer

    layout = int(sys.argv[1])
    hashes = record(lambda config: Observer(config, version=layout), layout)
    path = fixture(layout)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez_compressed(path, **hashes)
    print(f"{sum(len(h) for h in hashes.values())} observations of {len(SCENARIOS)} scenarios -> {path}")
