"""fifthave.agents.stats checked against independent computations: the Bradley-Terry likelihood with ties
maximized by scipy, the control-variate estimator by ordinary least squares with an intercept,
and R28's order of places computed by hand."""

import math

import numpy as np
import pytest
from scipy import optimize, stats as scipy_stats

from fifthave.agents.stats import (bootstrap_elo, bradley_terry_elo, clustered_mean_interval, clustered_rate_interval,
                          control_variate, seat_ranks, wilson_interval)


def record(scores, winners, entries, cards=None, deal=0):
    return {"deal": deal, "entries": entries, "scores": scores, "winners": winners,
            "cards_in_hand": cards if cards is not None else [0] * len(scores)}


def bt_reference(labels, outcomes):
    """Maximum-likelihood Bradley-Terry ratings (Elo scale) with a tie as half a win for each side
    (Rao-Kupper's simplest form, as in Elo), plus the documented prior: one draw of every label
    against a reference fixed at 1500. ``outcomes``: (winner, loser, weight) triples; a tie is
    two triples of weight 0.5."""
    m = len(labels)
    index = {label: i for i, label in enumerate(labels)}
    pairs = [(index[w], index[l], weight) for w, l, weight in outcomes]
    pairs += [(i, m, 0.5) for i in range(m)] + [(m, i, 0.5) for i in range(m)]

    def negative_log_likelihood(theta):
        strength = np.append(theta, 0.0)  # natural-log strengths, the reference at 0
        return -sum(w * (strength[a] - np.logaddexp(strength[a], strength[b])) for a, b, w in pairs)

    theta = optimize.minimize(negative_log_likelihood, np.zeros(m), method="BFGS", options={"gtol": 1e-10}).x
    return {label: 1500 + 400 * theta[index[label]] / math.log(10) for label in labels}


def test_seat_ranks_follow_r28_winner_then_points_then_cards_with_shared_places():
    # seats 1 and 2 share the win (same VP and cards): places 1 and 2 shared, 1.5 each
    assert seat_ranks(record([10, 12, 12], [1, 2], [0, 1, 2], cards=[9, 3, 3])) == [3, 1.5, 1.5]
    # the winner ranks first even with fewer points than recorded elsewhere; then points, then cards
    assert seat_ranks(record([12, 12, 12, 8], [0], [0, 1, 2, 3], cards=[1, 2, 5, 9])) == [1, 3, 2, 4]
    assert seat_ranks(record([7, 7, 7], [0, 1, 2], [0, 1, 2], cards=[4, 4, 4])) == [2, 2, 2]


def test_bradley_terry_with_ties_matches_the_maximum_likelihood_fit():
    labels = ["a", "b", "c"]
    records = []
    outcomes = []
    # a beats b 3 times, b beats a once, they tie twice; b beats c twice; c and a tie once
    for _ in range(3):
        records.append(record([20, 10], [0], ["a", "b"]))
        outcomes.append(("a", "b", 1))
    records.append(record([10, 20], [1], ["a", "b"]))
    outcomes.append(("b", "a", 1))
    for _ in range(2):
        records.append(record([15, 15], [0, 1], ["a", "b"]))
        outcomes += [("a", "b", 0.5), ("b", "a", 0.5)]
    for _ in range(2):
        records.append(record([18, 11], [0], ["b", "c"]))
        outcomes.append(("b", "c", 1))
    records.append(record([15, 15], [0, 1], ["c", "a"]))
    outcomes += [("c", "a", 0.5), ("a", "c", 0.5)]
    ratings = bradley_terry_elo(labels, records, {"a": "a", "b": "b", "c": "c"})
    expected = bt_reference(labels, outcomes)
    for label in labels:
        assert ratings[label] == pytest.approx(expected[label], abs=0.01), (label, ratings, expected)


def test_only_ties_give_equal_ratings_at_the_reference():
    records = [record([15, 15], [0, 1], ["a", "b"]) for _ in range(5)]
    ratings = bradley_terry_elo(["a", "b"], records, {"a": "a", "b": "b"})
    assert ratings["a"] == pytest.approx(1500, abs=1e-6) and ratings["b"] == pytest.approx(1500, abs=1e-6)


def test_a_three_player_game_counts_every_pair_of_seats_of_different_labels():
    # one game: a first, b second, a third (label a fills two seats): pairs a>b, b>a(third); a vs a skipped
    records = [record([20, 15, 10], [0], ["x", "y", "z"])]
    ratings = bradley_terry_elo(["a", "b"], records, {"x": "a", "y": "b", "z": "a"})
    expected = bt_reference(["a", "b"], [("a", "b", 1), ("b", "a", 1)])
    assert ratings["a"] == pytest.approx(expected["a"], abs=0.01)
    assert ratings["b"] == pytest.approx(expected["b"], abs=0.01)


def test_bootstrap_elo_of_identical_deals_is_the_point_rating():
    """Every deal the same game: each resample has the same win matrix up to scale, close to the fit."""
    records = [record([20, 10], [0], ["a", "b"], deal=d) for d in range(6)]
    ratings = bradley_terry_elo(["a", "b"], records, {"a": "a", "b": "b"})
    intervals = bootstrap_elo(["a", "b"], records, {"a": "a", "b": "b"}, resamples=30, seed=1)
    for label in ("a", "b"):
        low, high = intervals[label]
        assert low == pytest.approx(ratings[label], abs=0.01) and high == pytest.approx(ratings[label], abs=0.01)


def ols_with_intercept(values, controls):
    design = np.column_stack([np.ones(len(values)), controls])
    coefficients, *_ = np.linalg.lstsq(design, values, rcond=None)
    return coefficients[1:]


def test_control_variate_coefficient_and_point_estimate_match_least_squares():
    """y - beta * x with beta the OLS slope (intercept fitted): the estimate of E[y] is
    mean(y) - beta * mean(x), using the known mean 0 of the control, not its sample mean."""
    rng = np.random.default_rng(11)
    luck = rng.normal(0.4, 1.0, 40)  # sample mean clearly away from its design mean 0
    values = 3.0 + 2.0 * luck + rng.normal(0, 0.3, 40)
    adjusted, beta = control_variate(values, luck)
    slope = scipy_stats.linregress(luck, values).slope
    assert beta[0] == pytest.approx(slope, rel=1e-9)
    assert np.allclose(adjusted, values - slope * luck)
    assert adjusted.mean() == pytest.approx(values.mean() - slope * luck.mean(), rel=1e-12)
    assert abs(adjusted.mean() - values.mean()) > 0.5  # the test can see a centred-control estimate


def test_control_variate_with_two_controls_matches_multiple_regression():
    rng = np.random.default_rng(12)
    controls = rng.normal(0.2, 1.0, (50, 2))
    values = 1.0 + controls @ np.array([1.5, -0.7]) + rng.normal(0, 0.2, 50)
    adjusted, beta = control_variate(values, controls)
    expected = ols_with_intercept(values, controls)
    assert np.allclose(beta, expected, rtol=1e-9)
    assert np.allclose(adjusted, values - controls @ expected)


def test_control_variate_without_luck_returns_the_values():
    values = np.array([1.0, 2.0, 4.0])
    adjusted, beta = control_variate(values, np.zeros(3))
    assert np.array_equal(adjusted, values) and adjusted is not values and list(beta) == [0.0]


def test_wilson_interval_matches_the_score_interval_solved_numerically():
    """Wilson's interval: the p where |p_hat - p| = z sqrt(p (1 - p) / n), solved with brentq."""
    z = 1.959963984540054
    for successes, trials in ((3, 10), (17, 40), (1, 7)):
        phat = successes / trials
        gap = lambda p: abs(phat - p) - z * math.sqrt(p * (1 - p) / trials)
        low = optimize.brentq(gap, 1e-12, phat)
        high = optimize.brentq(gap, phat, 1 - 1e-12)
        got = wilson_interval(successes, trials)
        assert got[0] == pytest.approx(low, abs=1e-9) and got[1] == pytest.approx(high, abs=1e-9)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_clustered_mean_interval_is_the_cr1_sandwich_with_t():
    """Three clusters, by hand: ratio mean, CR1 variance g/(g-1) sum(e_g^2)/N^2, t with 2 df."""
    sums, counts = [3.0, 5.0, 10.0], [2, 2, 4]
    mean = 18.0 / 8
    residuals = np.array(sums) - mean * np.array(counts)
    variance = 3 / 2 * float((residuals ** 2).sum()) / 64
    half = scipy_stats.t.ppf(0.975, 2) * math.sqrt(variance)
    got = clustered_mean_interval(sums, counts)
    assert got == pytest.approx((mean, mean - half, mean + half), rel=1e-9)


def test_clustered_rate_interval_is_wilson_at_the_effective_size_with_t():
    successes, trials = [3, 1, 4, 0], [5, 5, 5, 5]
    rate = 8 / 20
    residuals = np.array(successes) - rate * np.array(trials)
    variance = 4 / 3 * float((residuals ** 2).sum()) / 400
    n_eff = rate * (1 - rate) / variance
    t = scipy_stats.t.ppf(0.975, 3)
    phat = rate
    denom = 1 + t * t / n_eff
    centre = (phat + t * t / (2 * n_eff)) / denom
    half = t * math.sqrt(phat * (1 - phat) / n_eff + t * t / (4 * n_eff * n_eff)) / denom
    assert clustered_rate_interval(successes, trials) == pytest.approx((rate, centre - half, centre + half), rel=1e-9)
