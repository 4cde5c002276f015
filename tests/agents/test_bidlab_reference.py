"""The bidding lab's luck bookkeeping and field control, from the rules and the estimator they implement.

Luck: every black card drawn is credited to the seat that receives it (R15/R16: action C gives
one to the active seat; action D two to the active seat, then one to each seat without a
skyscraper in the district, in turn order from the active seat), as its value minus the mean
of the unseen cards it was drawn from. Field control: only when every opponent is the
baseline is the baseline arm a field of equals (expected win share 1/n, margin 0); then the
control variate ``a - 1/n`` is subtracted from the per-deal differences with its
least-squares coefficient.
"""

import numpy as np
import pytest

from fifthave.agents import bidlab
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.actions import CHOOSE_ACTION, SCORE_DISTRICT
from fifthave_env.engine.cards import BLACK, VALUES
from fifthave_env.engine.game import CHOOSE_ACTION_DECISION, SCORE_DISTRICT_DECISION

ACTION_C, ACTION_D = CHOOSE_ACTION + 2, CHOOSE_ACTION + 3
RIGGED_PILE = [0] * 12 + [2, 0, 1, 2, 0, 2, 0, 1]  # bottom first, all face down and unseen; top = 1 (a 5)


def expected_lucks(pile, draws):
    """Value minus the mean of the cards left, for each of ``draws`` cards taken from the top."""
    pile = list(pile)
    lucks = []
    for _ in range(draws):
        mean = sum(VALUES[v] for v in pile) / len(pile)
        lucks.append(VALUES[pile.pop()] - mean)
    return lucks


def position_before(choice, num_players, seed, want):
    """A game of random play stopped at a choice of action where ``choice`` is legal and ``want(game)`` holds."""
    for s in range(seed, seed + 200):
        game = Game(GameConfig(num_players=num_players), seed=s)
        rng = np.random.default_rng(s)
        while not game.is_over:
            if game.decision == CHOOSE_ACTION_DECISION and choice in game.legal_actions() and want(game):
                return game
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
    raise AssertionError("no such position")


def rig_black_pile(game):
    game.black[:] = list(RIGGED_PILE)
    game.black_seen = [0, 0, 0]
    game.black_faceup = 0
    game.touch()


def metered_apply(meter, game, action):
    meter.before()
    game.apply(action)
    meter.after()


@pytest.mark.parametrize("num_players", [3, 4])
def test_action_c_credits_the_black_card_to_the_active_seat(num_players):
    game = position_before(ACTION_C, num_players, 30, lambda g: g.active != 0)
    rig_black_pile(game)
    meter = bidlab.LuckMeter(game)
    before = list(meter.luck)
    metered_apply(meter, game, ACTION_C)
    gained = [after - b for after, b in zip(meter.luck, before)]
    expected = [0.0] * num_players
    expected[game.active] = expected_lucks(RIGGED_PILE, 1)[0]
    assert gained == pytest.approx(expected)


def scoring_spread(game):
    """A district the active seat can score where some seats (not all, not only the active) lack a skyscraper."""
    for d in game._scorable_districts():
        without = [p for p in range(game.n) if game.owned[p][d] < 0]
        if without and len(without) < game.n and without != [game.active]:
            return d
    return None


@pytest.mark.parametrize("num_players", [3, 4])
def test_action_d_credits_two_cards_to_the_active_seat_then_one_per_seat_without_a_skyscraper(num_players):
    def ready(g):
        probe = g.clone()
        probe.apply(ACTION_D)
        return probe.decision == SCORE_DISTRICT_DECISION and scoring_spread(probe) is not None

    game = position_before(ACTION_D, num_players, 40, ready)
    game.apply(ACTION_D)
    district = scoring_spread(game)
    rig_black_pile(game)
    active = game.active
    receivers = [active, active] + [(active + i) % num_players for i in range(num_players)
                                    if game.owned[(active + i) % num_players][district] < 0]
    meter = bidlab.LuckMeter(game)
    before = list(meter.luck)
    metered_apply(meter, game, SCORE_DISTRICT + district)
    expected = [0.0] * num_players
    for seat, luck in zip(receivers, expected_lucks(RIGGED_PILE, len(receivers))):
        expected[seat] += luck
    gained = [after - b for after, b in zip(meter.luck, before)]
    assert gained == pytest.approx(expected)
    assert [sum(h[BLACK * 3:]) for h in game.hands] != [0] * num_players


def test_a_card_seen_going_under_brings_no_luck():
    game = position_before(ACTION_C, 3, 50, lambda g: True)
    rig_black_pile(game)
    game.black[-1] = 2 + 3  # a 6 everyone saw go under (Alea's, R25)
    game.black_seen = [0, 0, 1]
    game.touch()
    meter = bidlab.LuckMeter(game)
    before = list(meter.luck)
    metered_apply(meter, game, ACTION_C)
    assert meter.luck == pytest.approx(before)


def test_relative_luck_is_the_seat_minus_the_mean_of_the_others():
    game = Game(GameConfig(num_players=4), seed=1)
    meter = bidlab.LuckMeter(game)
    meter.luck = [3.0, -1.0, 2.0, 5.0]
    assert meter.relative(0) == pytest.approx(3.0 - 2.0)
    assert meter.relative(3) == pytest.approx(5.0 - 4.0 / 3)


def test_starting_luck_is_the_hand_points_minus_their_expectation():
    game = Game(GameConfig(num_players=3), seed=2)
    meter = bidlab.LuckMeter(game)
    colored_mean = (4 * 5 + 5 * 4 + 6 * 3) / 12
    black_mean = (4 * 20 + 5 * 16 + 6 * 14) / 50
    for p in range(3):
        points = sum(VALUES[k % 3] * c for k, c in enumerate(game.hands[p]))
        assert meter.luck[p] == pytest.approx(points - 5 * colored_mean - 4 * black_mean)


def fit(d, columns):
    design = np.column_stack([np.ones(len(d))] + columns)
    return np.linalg.lstsq(design, d, rcond=None)[0][1:]


@pytest.fixture(scope="module")
def against_baseline_field():
    """Candidate != baseline, every opponent the baseline: the field control applies."""
    return bidlab.compare("heuristic", "heuristic-aggressive", num_players=2, deals=4, seed=3, resamples=200)


def test_the_field_control_is_the_baseline_arm_minus_its_fair_share(against_baseline_field):
    win = against_baseline_field["win"]
    a = np.array(win["per_deal"]["baseline"])
    b = np.array(win["per_deal"]["candidate"])
    d = b - a
    assert np.any(d != 0), "the arms must differ for the test to see the control"
    control = a - 1 / 2
    beta = fit(d, [control])
    assert win["field_corrected"]["beta"] == pytest.approx(beta.round(6).tolist(), abs=1e-6)
    assert win["field_corrected"]["difference"] == pytest.approx(float(np.mean(d - beta[0] * control)), abs=1e-6)
    margin = against_baseline_field["margin"]
    a = np.array(margin["per_deal"]["baseline"])
    d = np.array(margin["per_deal"]["candidate"]) - a
    beta = fit(d, [a])  # the field's expected margin is 0
    assert margin["field_corrected"]["difference"] == pytest.approx(float(np.mean(d - beta[0] * a)), abs=1e-6)
    # VP: the field's expected VP is the mean VP of the baseline arm's seats; with 2 players that is
    # the focus VP minus half its margin, so the control is half the baseline arm's margin
    vp = against_baseline_field["vp"]
    d = np.array(vp["per_deal"]["candidate"]) - np.array(vp["per_deal"]["baseline"])
    control = a / 2
    beta = fit(d, [control])
    assert vp["field_corrected"]["difference"] == pytest.approx(float(np.mean(d - beta[0] * control)), abs=1e-5)


def test_no_field_control_when_the_opponents_are_not_the_baseline():
    result = bidlab.compare("heuristic", "heuristic-aggressive", num_players=2, deals=2, seed=3, resamples=50,
                            opponents=["heuristic-aggressive"])
    for metric in bidlab.METRICS:
        assert "field_corrected" not in result[metric] and "field_and_luck_corrected" not in result[metric]
        assert "luck_corrected" in result[metric]


def test_the_field_control_is_offered_whatever_the_candidate(against_baseline_field):
    for metric in bidlab.METRICS:
        assert "field_corrected" in against_baseline_field[metric]
        assert "field_and_luck_corrected" in against_baseline_field[metric]


def _ols_slopes(y, x):
    """Least-squares slopes of y on the columns of x with an intercept (the control-variate coefficient)."""
    design = np.column_stack([np.ones(len(y)), x])
    return np.linalg.lstsq(design, y, rcond=None)[0][1:]


def test_analyse_gives_the_variance_ratios_and_control_variate_estimates_of_their_definitions():
    """Per-deal arms a (baseline) and b (candidate), lucks and a field control, against textbook formulas:
    variance reduction = (var a + var b) / the variance of the estimator's per-deal terms (ddof 1); each
    control-variate estimate is the mean of d - beta * x with beta the least-squares slope of d = b - a on x."""
    from fifthave.agents import stats

    rng = np.random.default_rng(21)
    n = 40
    luck_a, luck_b = rng.normal(size=n), rng.normal(size=n)
    a = 0.3 + 0.1 * luck_a + rng.normal(scale=0.2, size=n)
    b = 0.35 + 0.1 * luck_b + 0.5 * a + rng.normal(scale=0.2, size=n)
    field = np.full(n, 0.25)
    out = bidlab._analyse(a, b, luck_a, luck_b, field, 200, seed=5)
    d = b - a
    assert out["difference"] == stats.paired_difference(a, b, 200, 5)["difference"]
    assert out["ci_low"] == stats.paired_difference(a, b, 200, 5)["ci_low"]
    unpaired = a.var(ddof=1) + b.var(ddof=1)

    def residual(y, x):
        return y - np.column_stack([x]) @ _ols_slopes(y, x)

    methods = out["variance_reduction_by_method"]
    assert methods["paired"] == pytest.approx(unpaired / d.var(ddof=1))
    assert methods["unpaired_luck_corrected"] == pytest.approx(
        unpaired / (residual(a, luck_a).var(ddof=1) + residual(b, luck_b).var(ddof=1)))
    for name, x in (("luck_corrected", luck_b - luck_a), ("field_corrected", a - field),
                    ("field_and_luck_corrected", np.column_stack([a - field, luck_b - luck_a]))):
        beta = _ols_slopes(d, x)
        corrected = d - np.column_stack([x]) @ beta
        assert out[name]["beta"] == np.round(beta, 6).tolist(), name
        reference = stats.paired_difference(np.zeros(n), corrected, 200, 5)
        assert out[name]["difference"] == pytest.approx(corrected.mean())
        assert (out[name]["ci_low"], out[name]["ci_high"]) == pytest.approx((reference["ci_low"], reference["ci_high"]))
        assert methods[f"paired_{name}"] == pytest.approx(unpaired / corrected.var(ddof=1))
    assert out["per_deal"] == {"baseline": a.round(6).tolist(), "candidate": b.round(6).tolist()}
