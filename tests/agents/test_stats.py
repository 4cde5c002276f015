"""fifthave.agents.stats: interval code against known cases, clustering, paired differences, ratings, alpha-Rank."""

import numpy as np
import pytest

from fifthave.agents.stats import (
    alpha_rank,
    bootstrap_elo,
    bradley_terry_elo,
    cluster_bootstrap_mean,
    clustered_mean_interval,
    clustered_rate_interval,
    control_variate,
    critical_value,
    paired_difference,
    percentile_interval,
    t_quantile,
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


@pytest.mark.parametrize("probability, df, value", [
    # Student's t table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2) and closed forms for 1 and 2 df
    (0.975, 1, 12.7062047362), (0.975, 2, 4.30265272975), (0.975, 3, 3.18244630528), (0.975, 4, 2.776),
    (0.975, 9, 2.262), (0.975, 24, 2.064), (0.975, 99, 1.984), (0.95, 5, 2.015), (0.995, 10, 3.169),
    (0.9, 30, 1.310), (0.975, 1000, 1.962), (0.6, 7, 0.263),
])
def test_t_quantile_matches_table_values(probability, df, value):
    assert t_quantile(probability, df) == pytest.approx(value, abs=6e-4)
    assert t_quantile(1 - probability, df) == pytest.approx(-value, abs=6e-4)


def test_t_quantile_closed_forms_and_the_normal_limit():
    for p in (0.6, 0.9, 0.975, 0.999):
        assert t_quantile(p, 1) == pytest.approx(np.tan(np.pi * (p - 0.5)), rel=1e-10)
        assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / np.sqrt(2 * p * (1 - p)), rel=1e-10)
    assert t_quantile(0.975, 100_000) == pytest.approx(1.959963984540054, abs=1e-4)
    assert critical_value(10) == pytest.approx(2.262, abs=1e-3)  # 10 deals: 9 degrees of freedom
    with pytest.raises(ValueError):
        t_quantile(0.975, 0)


def test_clustered_rate_interval_when_the_spread_between_deals_cannot_be_estimated():
    # one deal: nothing is known about how deals vary (the tournament's 1.0 (0.51-1.00) from 4 games)
    assert clustered_rate_interval([4.0], [4.0]) == (1.0, 0.0, 1.0)
    # no wins, or only wins, over 10 deals: at most one independent trial per deal, not 4
    for wins in (0.0, 4.0):
        rate, low, high = clustered_rate_interval(np.full(10, wins), np.full(10, 4.0))
        deal_low, deal_high = wilson_interval(10 * wins / 4, 10, critical_value(10))
        assert (rate, low, high) == pytest.approx((wins / 4, deal_low, deal_high))
    assert clustered_rate_interval(np.zeros(10), np.full(10, 4.0))[2] > 0.3  # 40 games would say 0.09
    # every deal alike (2 of 4 each time): no spread seen, but 20 deals are not 80 independent games
    rate, low, high = clustered_rate_interval(np.full(20, 2.0), np.full(20, 4.0))
    assert rate == 0.5 and (low, high) == pytest.approx(wilson_interval(10, 20, critical_value(20)))
    # deals without games of the label do not count as clusters
    assert clustered_rate_interval([0.0, 4.0], [0.0, 4.0]) == (1.0, 0.0, 1.0)


def test_clustered_rate_interval_against_a_hand_computed_case_with_t():
    rate, low, high = clustered_rate_interval([1.0, 3.0, 2.0, 0.0], np.full(4, 4.0))
    # residuals from 0.375 * 4: -0.5, 1.5, 0.5, -1.5; CR1 variance 4/3 * 5 / 16^2; binomial 0.375 * 0.625 / 16
    n_eff = (0.375 * 0.625 / 16) * 16 / (4 / 3 * 5 / 256)
    assert n_eff == pytest.approx(9.0)
    assert rate == 0.375 and (low, high) == pytest.approx(wilson_interval(0.375 * 9, 9, 3.182446))  # t with 3 df
    assert high - low > 1.2 * np.subtract(*wilson_interval(0.375 * 9, 9)[::-1])  # wider than with z


def test_a_label_whose_seats_exclude_each_other_may_get_a_narrower_interval():
    # a label in 2 of 4 seats: exactly one of its seats wins in half the games, so it wins 1 of 2 seat-games
    # per winning game; its rate varies less than 8 independent trials per deal would
    rng = np.random.default_rng(3)
    deal_wins = rng.binomial(4, 0.5, 200).astype(float)  # games per deal the label won (one seat each)
    rate, low, high = clustered_rate_interval(deal_wins, np.full(200, 8.0))
    w_low, w_high = wilson_interval(deal_wins.sum(), 1600)
    assert high - low < 0.8 * (w_high - w_low)


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
    assert mean == 4.0 and high - mean == pytest.approx(4.302653 * se, rel=1e-5)  # t with 2 df
    assert clustered_mean_interval([5.0], [2.0]) == (2.5, float("-inf"), float("inf"))  # one cluster


def test_expanded_percentile_interval_is_wider_with_few_deals_and_plain_with_many():
    samples = np.random.default_rng(0).normal(0, 1, 200_000)
    low, high = percentile_interval(samples, 10)
    widen = np.sqrt(10 / 9) * 2.262157  # sqrt(n / (n - 1)) t_9
    assert (low, high) == pytest.approx((-widen, widen), abs=0.03)
    low, high = percentile_interval(samples, 10_000)
    assert (low, high) == pytest.approx((-1.96, 1.96), abs=0.03)
    with pytest.raises(ValueError, match="at least 2"):
        percentile_interval(samples, 1)


def test_cluster_bootstrap_resamples_whole_clusters():
    rng = np.random.default_rng(7)
    deal = rng.normal(0, 1, 40)
    ids = np.repeat(np.arange(40), 6)  # 6 correlated values per deal
    values = deal[ids] + rng.normal(0, 0.1, 240)
    mean, low, high = cluster_bootstrap_mean(values, ids, resamples=4000, seed=0)
    se = deal.std(ddof=1) / np.sqrt(40)  # the deals are the independent units
    assert mean == pytest.approx(values.mean())
    assert (high - low) / 2 == pytest.approx(critical_value(40) * se * np.sqrt(40 / 39), rel=0.15)
    _, v_low, v_high = cluster_bootstrap_mean(values, np.arange(240), resamples=4000, seed=0)
    assert high - low > 2 * (v_high - v_low)  # resampling values as if independent: far too narrow
    assert cluster_bootstrap_mean([1.0, 3.0], ["deal 0", "deal 0"]) == (2.0, float("-inf"), float("inf"))


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
    return {"deal": deal, "entries": entries, "scores": scores, "winners": winners, "cards_in_hand": [0] * len(scores)}


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
