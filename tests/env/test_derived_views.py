"""Layout 1's derived views: each equals its definition recomputed from the game, for every seat.

The reference here is written from the view's meaning with the engine's own rules
functions, independently of the observer's incremental bookkeeping; the positions are
observed through one long-lived observer (its caches) and a fresh one.
"""

from itertools import combinations

import numpy as np
import pytest
from pettingzoo.test import api_test

from fifthave_env import fifth_avenue_v1
from fifthave_env.engine import ALEA, Game, GameConfig
from fifthave_env.engine import auction, scoring
from fifthave_env.engine.board import NUM_DISTRICTS, NUM_PLOTS, PLOTS_PER_DISTRICT, VP_BY_SHOP_TYPES
from fifthave_env.engine.cards import BLACK, KIND_LIMIT, KIND_VALUE, NUM_COLORS
from fifthave_env.observation import Observer, views

CONFIGS = [(n, b) for n in (2, 3, 4) for b in (5, 6)]


def expected_derived(game, seat):
    """Every derived view of ``seat``, straight from its definition (docs in observation.DERIVED_VIEWS)."""
    g, n = game, game.n
    slot_seat = [(seat + i) % n for i in range(n)]
    value = [scoring.plot_value(g, p) if g.plot_color[p] >= 0 else 0 for p in range(NUM_PLOTS)]
    e = {
        "plot_value": np.array(value) / 8,
        "plot_points": np.array([value[p] * g.plot_height[p] for p in range(NUM_PLOTS)]) / 50,
        "district_score": np.zeros((7, 4)), "district_lead": np.zeros(7), "district_deficit": np.zeros(7),
        "district_skyscrapers": np.zeros((7, 5)), "build_value": np.zeros((7, 4)),
        "districts_owned": np.zeros(4), "projected_score": np.zeros(4), "bid_power": np.zeros((5, 3)),
        "max_bid": np.zeros((4, 5)),
    }
    draws = list(combinations(g.box, min(3, len(g.box))))
    cp_value = np.mean([VP_BY_SHOP_TYPES[len(set(d))] for d in draws])
    e["central_park_value"] = np.array([cp_value / 8])
    for d in range(NUM_DISTRICTS):
        scores = scoring.district_scores(g, d)
        for plot in range(d * PLOTS_PER_DISTRICT, (d + 1) * PLOTS_PER_DISTRICT):
            if g.plot_height[plot]:
                owner = g.plot_owner[plot]
                e["district_skyscrapers"][d, 4 if owner == ALEA else (owner - seat) % n] += g.plot_height[plot]
        others = max(scores[q] for q in range(n) if q != seat)
        e["district_lead"][d] = max(0, scores[seat] - others) / 50
        e["district_deficit"][d] = max(0, others - scores[seat]) / 50
        for i, q in enumerate(slot_seat):
            e["district_score"][d, i] = scores[q] / 50
            if g.closed[d]:
                continue
            if g.owned[q][d] >= 0:
                best = value[g.owned[q][d]]
            else:
                buildable = [p for p in range(d * PLOTS_PER_DISTRICT, (d + 1) * PLOTS_PER_DISTRICT)
                             if g.plot_color[p] >= 0 and auction.allowed_colors(g, q, d) >> g.plot_color[p] & 1]
                best = max((value[p] for p in buildable), default=0)
            e["build_value"][d, i] = best / 8
    for i, q in enumerate(slot_seat):
        e["districts_owned"][i] = sum(p >= 0 for p in g.owned[q]) / 7
        projected = g.scores[q] + cp_value * g.cp_skyscrapers[q]
        projected += sum(scoring.district_scores(g, d)[q] for d in range(NUM_DISTRICTS) if not g.closed[d])
        e["projected_score"][i] = projected / 50
        hand, known = g.hands[q], g.known[q]
        for c in range(NUM_COLORS):
            kinds = [c * 3 + v for v in range(3)] + [BLACK * 3 + v for v in range(3)]
            if not any(hand[c * 3 + v] for v in range(3)):
                continue
            if i == 0:
                e["max_bid"][i, c] = sum(KIND_VALUE[k] * hand[k] for k in kinds) / 50
            else:
                unknown = sum(hand[k] - known[k] for k in kinds)  # the count per color is public (R31)
                e["max_bid"][i, c] = (sum(KIND_VALUE[k] * known[k] for k in kinds) + 6 * unknown) / 50
    hand = g.hands[seat]
    for c in range(NUM_COLORS):
        for b in (1, 2, 3):
            cards = [k for k in [c * 3 + v for v in range(3)] + [BLACK * 3 + v for v in range(3)]
                     if KIND_LIMIT[k] >= b]
            if any(hand[k] for k in cards if k < BLACK * 3):
                e["bid_power"][c, b - 1] = sum(KIND_VALUE[k] * hand[k] for k in cards) / 50
    return e


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_derived_views_follow_their_definitions(num_players, board):
    config = GameConfig(num_players=num_players, board=board, random_start=True)
    checked = 0
    for seed in range(1 if num_players == 4 else 2):
        game = Game(config, seed=seed)
        observer = Observer(config, version=1)
        rng = np.random.default_rng(seed)
        step = 0
        while not game.is_over:
            for seat in range(num_players):
                if rng.random() < 0.2 or step % 23 == 0:
                    obs = observer.observe(game, seat)
                    assert np.array_equal(obs, Observer(config, version=1).observe(game, seat))
                    got = views(obs)
                    for name, want in expected_derived(game, seat).items():
                        assert np.allclose(got[name], want, atol=1e-6), (name, seat, game.decision)
                    checked += 1
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            step += 1
    assert checked > 150


def test_derived_views_are_not_all_trivial():
    """Over a game every derived view takes a non-zero value somewhere (the test above could not pass vacuously)."""
    config = GameConfig(num_players=4)
    game = Game(config, seed=3)
    rng = np.random.default_rng(3)
    observer = Observer(config, version=1)
    nonzero = set()
    while not game.is_over:
        v = views(observer.observe(game, game.actor))
        nonzero |= {name for name in expected_derived(game, 0) if v[name].any()}
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    assert nonzero == set(expected_derived(game, 0))


@pytest.mark.parametrize("num_players,board", [(2, 6), (4, 5)])
def test_pettingzoo_api_test_v1(num_players, board):
    env = fifth_avenue_v1.env(num_players=num_players, board=board)
    assert env.metadata["name"] == "fifth_avenue_v1"
    api_test(env, num_cycles=300)


def test_gym_ids_select_the_layout_and_match_the_aec_env_of_their_version():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from fifthave_env import fifth_avenue_v0
    from fifthave_env.gym_env import FifthAvenueEnv

    for version, aec_module in ((0, fifth_avenue_v0), (1, fifth_avenue_v1)):
        env = gymnasium.make(f"FifthAvenue-v{version}", num_players=3, learner_seat=1)
        check_env(env.unwrapped)
        obs, _ = env.reset(seed=5)
        aec = aec_module.env(num_players=3)
        aec.reset(seed=5)
        assert env.observation_space.shape == aec.observation_space("player_1")["observation"].shape
        game = env.unwrapped.game
        assert np.array_equal(obs, Observer(game.config, version=version).observe(game, 1))
    assert FifthAvenueEnv().observation_space.shape == (1409,)  # new envs read layout 1 (issue 34)
    with pytest.raises(ValueError, match="layout"):
        FifthAvenueEnv(observation_layout=7)
