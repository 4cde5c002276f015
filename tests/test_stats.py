"""agents.stats: interval code against known cases, clustering, paired differences, ratings, alpha-Rank."""

import numpy as np
import pytest

from agents.stats import (
    alpha_rank,
    bootstrap_elo,
    bradley_terry_elo,
    clustered_mean_interval,
    clustered_rate_interval,
    control_variate,
    paired_difference,
    wilson_interval,
)


@pytest.mark.parametrize("successes, trials, low, high", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (Wilson)
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (50, 100, 0.4038, 0.5962),
])
def test_wilson_interval_matches_published_values(successes, trials, low, high):
    # p != 0.5: a plain rate in place of the Wilson centre would miss these by more than the tolerance
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=1e-4)


def test_wilson_interval_contains_the_rate_at_0_and_100_percent():
    assert wilson_interval(100, 100)[1] == 1.0 and wilson_interval(100, 100)[0] == pytest.approx(0.963, abs=1e-3)
    assert wilson_interval(0, 100)[0] == 0.0 and wilson_interval(0, 100)[1] == pytest.approx(0.037, abs=1e-3)
    for n in range(1, 501):  # the unclamped formula put the upper bound below 1.0 for 143 of these
        for k in (0, n // 3, n):
            low, high = wilson_interval(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_clustered_rate_is_wilson_for_independent_trials_and_wider_for_seats_that_move_together():
    rng = np.random.default_rng(0)
    wins = (rng.random(400) < 0.3).astype(float)
    rate, low, high = clustered_rate_interval(wins, np.ones(400))
    w_low, w_high = wilson_interval(wins.sum(), 400)
    assert rate == pytest.approx(wins.mean())
    assert (high - low) == pytest.approx(w_high - w_low, rel=0.1)
    # games of one deal that go together: the deal decides all 4 games (4 seat orders) of the agent
    per_deal = np.where(rng.random(100) < 0.3, 4.0, 0.0)
    rate, low, high = clustered_rate_interval(per_deal, np.full(100, 4.0))
    naive_low, naive_high = wilson_interval(per_deal.sum(), 400)
    assert rate == pytest.approx(per_deal.sum() / 400)
    assert high - low > 1.7 * (naive_high - naive_low)  # about sqrt(4) wider: 100 independent units, not 400


def test_clustered_mean_is_wider_than_naive_when_an_agent_fills_several_seats():
    rng = np.random.default_rng(6)
    game = rng.normal(50, 10, 300)  # what a game gives every seat (a long game: more VP for all)
    seats = game[:, None] + rng.normal(0, 3, (300, 2))  # the agent's VP in its 2 seats of each game
    mean, low, high = clustered_mean_interval(seats.sum(axis=1), np.full(300, 2.0))
    naive_half = 1.959964 * seats.std(ddof=1) / np.sqrt(600)  # as if the 600 seat-games were independent
    assert mean == pytest.approx(seats.mean())
    assert (high - low) / 2 > 1.3 * naive_half


def test_clustered_mean_interval_against_a_hand_computed_case():
    sums, counts = np.array([2.0, 4.0, 6.0]), np.array([1.0, 1.0, 1.0])
    mean, low, high = clustered_mean_interval(sums, counts)
    se = np.std([2, 4, 6], ddof=1) / np.sqrt(3)  # one value per cluster: the usual standard error
    assert mean == 4.0 and high - mean == pytest.approx(1.959964 * se, rel=1e-5)


def test_paired_difference_against_a_known_case():
    rng = np.random.default_rng(1)
    deal = rng.normal(0, 3, 2000)  # what a deal does to both arms
    baseline = deal + rng.normal(0, 1, 2000)
    candidate = deal + 0.5 + rng.normal(0, 1, 2000)
    r = paired_difference(baseline, candidate, resamples=4000, seed=0)
    assert r["deals"] == 2000
    se = np.sqrt(2 / 2000)  # the per-deal difference has variance 1 + 1
    assert r["ci_low"] == pytest.approx(r["difference"] - 1.96 * se, abs=0.01)
    assert r["ci_high"] == pytest.approx(r["difference"] + 1.96 * se, abs=0.01)
    assert r["ci_low"] < 0.5 < r["ci_high"]
    assert r["variance_reduction"] == pytest.approx((9 + 1 + 9 + 1) / 2, rel=0.15)
    assert r["unpaired_ci_high"] - r["unpaired_ci_low"] > 2.5 * (r["ci_high"] - r["ci_low"])
    again = paired_difference(baseline, candidate, resamples=4000, seed=0)
    assert again == r


def test_a_strategy_against_itself_has_an_interval_containing_zero():
    rng = np.random.default_rng(2)
    same = rng.normal(0, 1, 300)
    r = paired_difference(same, same.copy())
    assert r["difference"] == 0 and r["ci_low"] <= 0 <= r["ci_high"] and r["variance_reduction"] is None
    r = paired_difference(rng.normal(0, 1, 300), rng.normal(0, 1, 300), seed=3)  # two samples of one distribution
    assert r["ci_low"] <= 0 <= r["ci_high"]
    with pytest.raises(ValueError, match="one value per deal"):
        paired_difference([1.0, 2.0], [1.0])


def test_control_variate_removes_the_variance_the_luck_explains():
    rng = np.random.default_rng(4)
    luck = rng.normal(0, 2, 1000)
    values = 1.0 + 0.7 * luck + rng.normal(0, 0.5, 1000)
    corrected, beta = control_variate(values, luck)
    assert beta[0] == pytest.approx(0.7, abs=0.05)
    assert corrected.var() < 0.15 * values.var()
    assert corrected.mean() == pytest.approx(1.0, abs=0.05)


def record(scores, winners, entries, deal):
    return {"deal": deal, "entries": entries, "scores": scores, "winners": winners}


def test_bradley_terry_bootstrap_intervals_resample_deals():
    rng = np.random.default_rng(5)
    records = []
    for deal in range(40):
        a_wins = rng.random() < 0.7
        records.append(record([20, 10] if a_wins else [10, 20], [0] if a_wins else [1], [0, 1], deal))
    ratings = bradley_terry_elo(["a", "b"], records, ["a", "b"])
    ci = bootstrap_elo(["a", "b"], records, ["a", "b"], resamples=100, seed=0)
    for label in ("a", "b"):
        assert ci[label][0] < ratings[label] < ci[label][1]
    assert ci["a"][0] > 1500 > ci["b"][1]
    assert bootstrap_elo(["a", "b"], records, ["a", "b"], resamples=100, seed=0) == ci


def test_alpha_rank_puts_the_mass_on_a_dominant_strategy():
    pytest.importorskip("open_spiel")
    pytest.importorskip("pandas")
    matches = []
    for _ in range(20):
        matches.append((["strong", "weak", "weak"], [3, 1, 2]))
        matches.append((["strong", "strong", "mid"], [2, 3, 1]))
        matches.append((["mid", "weak", "weak"], [3, 2, 1]))
    mass = alpha_rank(matches, ["weak", "mid", "strong"])
    assert list(mass)[0] == "strong" and mass["strong"] > 0.9
    assert sum(mass.values()) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="at least two different strategies"):
        alpha_rank([(["weak", "weak"], [1, 2])], ["weak", "mid"])
