"""fifthave.agents.stats at the edges of its definitions: the smallest samples each statistic is
defined for (2 deals, 1 trial), the confidence argument, empty clusters, labels in several seats
of one game, the documented defaults and reproducibility. Written against the formulas (Wilson,
CR1 with Student's t, Hesterberg's expanded percentile interval, Bradley-Terry win counts) and
against mutmut's survivors of issue 38 (docs/mutation.md)."""

import math
import sys
import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats

from fifthave.agents.stats import (alpha_rank, bootstrap_elo, bootstrap_indices, bradley_terry_elo,
                                   cluster_bootstrap_mean, clustered_mean_interval, clustered_rate_interval,
                                   paired_difference, percentile_interval, t_quantile, wilson_interval)


def wilson(successes, trials, z):
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def cr1(sums, counts):
    sums, counts = np.asarray(sums, float), np.asarray(counts, float)
    ratio = sums.sum() / counts.sum()
    g = len(sums)
    return ratio, g / (g - 1) * float(((sums - ratio * counts) ** 2).sum()) / counts.sum() ** 2


def record(scores, entries, deal=0, winners=None):
    best = max(scores)
    winners = [p for p, s in enumerate(scores) if s == best] if winners is None else winners
    return {"deal": deal, "entries": entries, "scores": scores, "winners": winners,
            "cards_in_hand": [0] * len(scores)}


# ---- quantiles and Wilson ---------------------------------------------------------------------

def test_t_quantile_is_zero_at_the_median_and_rejects_probabilities_outside_0_1():
    assert t_quantile(0.5, 3) == pytest.approx(0.0, abs=1e-12)
    for probability in (0, 1, 1.5, -0.2):
        with pytest.raises(ValueError) as error:
            t_quantile(probability, 3)
        assert str(error.value) == (f"need 0 < probability < 1 and an integer df >= 1, got {probability!r}, 3")


@pytest.mark.parametrize("successes, trials", [(1, 1), (0, 1), (0.3, 0.5), (1.2, 1.5)])
def test_wilson_interval_of_one_trial_or_less_is_the_score_interval(successes, trials):
    # effective sample sizes below 2 are normal in clustered_rate_interval (few deals, strong correlation)
    assert wilson_interval(successes, trials) == pytest.approx(wilson(successes, trials, 1.959963984540054))


# ---- clustered intervals -----------------------------------------------------------------------

def test_clustered_intervals_from_two_clusters_are_the_cr1_formulas_with_one_degree_of_freedom():
    t = scipy_stats.t.ppf(0.975, 1)
    mean, variance = cr1([3.0, 8.0], [2, 4])
    assert clustered_mean_interval([3.0, 8.0], [2, 4]) == pytest.approx(
        (mean, mean - t * math.sqrt(variance), mean + t * math.sqrt(variance)))
    rate, variance = cr1([1, 3], [4, 4])
    n_eff = rate * (1 - rate) / 8 * 8 / variance
    assert clustered_rate_interval([1, 3], [4, 4]) == pytest.approx((rate, *wilson(rate * n_eff, n_eff, t)))


def test_clustered_rate_interval_of_no_trials_and_of_one_trial():
    assert clustered_rate_interval([0, 0], [0, 0]) == (0.0, 0.0, 1.0)
    assert clustered_rate_interval([1], [1]) == (1.0, 0.0, 1.0)  # one cluster: its rate, no interval


def test_clusters_that_differ_by_one_trial_in_a_million_keep_their_tiny_spread():
    # the cluster variance is far above the rounding threshold (1e-12 of the binomial variance), so the
    # interval is the CR1 one (very narrow), not the fallback of one trial per deal
    successes, trials = [500_000, 500_001, 500_000], [1_000_000] * 3
    rate, variance = cr1(successes, trials)
    n_eff = rate * (1 - rate) / variance
    got = clustered_rate_interval(successes, trials)
    assert got == pytest.approx((rate, *wilson(rate * n_eff, n_eff, scipy_stats.t.ppf(0.975, 2))), abs=1e-12)
    assert got[2] - got[1] < 1e-4


def test_a_cluster_without_trials_changes_no_interval():
    assert clustered_mean_interval([3.0, 8.0, 0.0], [2, 4, 0]) == clustered_mean_interval([3.0, 8.0], [2, 4])
    assert clustered_rate_interval([1, 3, 0], [4, 4, 0]) == clustered_rate_interval([1, 3], [4, 4])


def test_every_interval_honours_its_confidence_argument():
    t80 = scipy_stats.t.ppf(0.9, 2)
    mean, variance = cr1([3.0, 5.0, 10.0], [2, 2, 4])
    assert clustered_mean_interval([3.0, 5.0, 10.0], [2, 2, 4], confidence=0.8) == pytest.approx(
        (mean, mean - t80 * math.sqrt(variance), mean + t80 * math.sqrt(variance)))
    rate, variance = cr1([3, 1, 4], [5, 5, 5])
    n_eff = rate * (1 - rate) / variance
    assert clustered_rate_interval([3, 1, 4], [5, 5, 5], confidence=0.8) == pytest.approx(
        (rate, *wilson(rate * n_eff, n_eff, t80)))
    values, deals = [1.0, 4.0, 2.0, 7.0, 3.0], [0, 1, 2, 3, 4]
    for wide, narrow in [
        (cluster_bootstrap_mean(values, deals, resamples=500), cluster_bootstrap_mean(values, deals, resamples=500,
                                                                                      confidence=0.5)),
    ]:
        assert wide[1] < narrow[1] < narrow[2] < wide[2]
    wide = paired_difference([1, 2, 3, 4, 5], [2, 2, 5, 4, 9], resamples=500)
    narrow = paired_difference([1, 2, 3, 4, 5], [2, 2, 5, 4, 9], resamples=500, confidence=0.5)
    assert wide["ci_low"] < narrow["ci_low"] < narrow["ci_high"] < wide["ci_high"]
    assert wide["unpaired_ci_low"] < narrow["unpaired_ci_low"] < narrow["unpaired_ci_high"] < wide["unpaired_ci_high"]
    records = [record([20, 10] if deal % 3 else [10, 20], [0, 1], deal) for deal in range(9)]
    wide = bootstrap_elo(["a", "b"], records, ["a", "b"], resamples=60)
    narrow = bootstrap_elo(["a", "b"], records, ["a", "b"], resamples=60, confidence=0.5)
    assert wide["a"][0] < narrow["a"][0] < narrow["a"][1] < wide["a"][1]


# ---- the bootstrap ------------------------------------------------------------------------------

def test_bootstrap_indices_draw_every_unit():
    rows = bootstrap_indices(2, 200, 0)
    assert set(np.unique(rows)) == {0, 1} and rows.shape == (200, 2)


def test_percentile_interval_is_hesterbergs_expanded_interval_from_two_units_on():
    samples = np.linspace(-3, 3, 10_001)
    for clusters in (2, 3, 12):
        tail = 100 * scipy_stats.norm.cdf(-math.sqrt(clusters / (clusters - 1)) * scipy_stats.t.ppf(0.975, clusters - 1))
        assert percentile_interval(samples, clusters) == pytest.approx(tuple(np.percentile(samples, [tail, 100 - tail])))


def test_bootstraps_from_two_deals_are_bounded():
    assert all(map(math.isfinite, cluster_bootstrap_mean([1.0, 3.0], [0, 1], resamples=200)))
    result = paired_difference([1.0, 2.0], [2.0, 4.0], resamples=200)
    assert result["deals"] == 2 and math.isfinite(result["ci_low"]) and math.isfinite(result["ci_high"])


def test_the_documented_defaults_and_seeds_give_these_exact_numbers():
    """Same inputs, same seed: the same table, in every version (the defaults: 10 000 resamples and
    seed 0; 200 resamples and seed 0 for the ratings; the unpaired arm on the stream [seed, 1]).
    Fifteen deals, so that the percentiles fall inside the samples, not on their extremes."""
    rng = np.random.default_rng(3)
    values, deals = rng.normal(size=30), np.repeat(np.arange(15), 2)
    assert cluster_bootstrap_mean(values, deals) == cluster_bootstrap_mean(values, deals, resamples=10_000, seed=0)
    assert cluster_bootstrap_mean(values, deals) != cluster_bootstrap_mean(values, deals, resamples=10_000, seed=1)
    a, b = rng.normal(size=15), rng.normal(size=15)
    assert paired_difference(a, b) == paired_difference(a, b, resamples=10_000, seed=0)
    assert paired_difference(a, b)["ci_low"] != paired_difference(a, b, resamples=10_001)["ci_low"]
    rows, other = bootstrap_indices(15, 10_000, 0), bootstrap_indices(15, 10_000, [0, 1])
    unpaired = b[rows].mean(axis=1) - a[other].mean(axis=1)
    result = paired_difference(a, b)
    assert (result["unpaired_ci_low"], result["unpaired_ci_high"]) == percentile_interval(unpaired, 15)
    records = [record([20, 10] if rng.random() < 0.6 else [10, 20], [0, 1], deal)
               for deal in range(15) for _ in range(1 + deal % 4)]  # deals of 1 to 4 games: many distinct ratings
    default = bootstrap_elo(["a", "b"], records, ["a", "b"])
    assert default == bootstrap_elo(["a", "b"], records, ["a", "b"], resamples=200, seed=0)
    assert default != bootstrap_elo(["a", "b"], records, ["a", "b"], resamples=201, seed=0)
    assert default != bootstrap_elo(["a", "b"], records, ["a", "b"], resamples=200, seed=1)


# ---- paired differences -------------------------------------------------------------------------

def test_paired_difference_keys_means_and_variance_reduction_by_definition():
    a, b = np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([2.0, 2.5, 5.0, 4.0, 9.0])
    result = paired_difference(a, b, resamples=300)
    assert set(result) == {"deals", "baseline", "candidate", "difference", "ci_low", "ci_high",
                           "unpaired_ci_low", "unpaired_ci_high", "variance_reduction"}
    assert (result["deals"], result["baseline"], result["candidate"], result["difference"]) == \
        pytest.approx((5, 3.0, 4.5, 1.5))
    d = b - a
    assert result["variance_reduction"] == pytest.approx((a.var(ddof=1) + b.var(ddof=1)) / d.var(ddof=1))
    # the unpaired interval is about the same difference, wider
    assert result["unpaired_ci_low"] < result["ci_low"] < 1.5 < result["ci_high"] < result["unpaired_ci_high"]


def test_a_small_but_real_spread_of_the_differences_gives_a_variance_reduction():
    a = np.array([0.0, 0.1, 0.2, 0.3])
    b = a + np.array([0.0, 1e-4, 0.0, 1e-4])  # var(d) ~ 3e-9: small, far above rounding
    result = paired_difference(a, b, resamples=200)
    assert result["variance_reduction"] == pytest.approx((a.var(ddof=1) + b.var(ddof=1)) / (b - a).var(ddof=1))


def test_paired_difference_wants_one_value_per_deal():
    with pytest.raises(ValueError, match="one value per deal"):
        paired_difference([[1, 2], [3, 4]], [[1, 2], [3, 4]], resamples=10)


# ---- Bradley-Terry counts -----------------------------------------------------------------------

def test_a_label_in_several_seats_counts_every_pair_of_seats():
    """Two seats of a beat both seats of b: four wins of a over b in one game (and two ties each way
    count one win each): the fit equals the one from the same results as separate 2-player games."""
    four_seat = [record([40, 30, 20, 10], [0, 0, 1, 1]), record([10, 10, 10, 10], [0, 0, 1, 1], winners=[0, 1, 2, 3])]
    separate = [record([40, 20], [0, 1])] * 4 + [record([10, 10], [0, 1], winners=[0, 1])] * 4
    assert bradley_terry_elo(["a", "b"], four_seat, ["a", "b"]) == pytest.approx(
        bradley_terry_elo(["a", "b"], separate, ["a", "b"]))


def test_no_games_rate_every_label_at_the_reference():
    assert bradley_terry_elo(["a", "b"], [], ["a", "b"]) == {"a": 1500.0, "b": 1500.0}


def test_the_games_of_one_deal_add_up_in_the_bootstrap():
    """Deals of two games each (a seat rotation): with every deal alike, each resample is the whole data,
    so the interval collapses on the point rating of all the games, not of one game per deal."""
    records = [record(scores, [0, 1], deal) for deal in range(4) for scores in ([20, 10], [20, 10], [10, 20])]
    point = bradley_terry_elo(["a", "b"], records, ["a", "b"])
    ci = bootstrap_elo(["a", "b"], records, ["a", "b"], resamples=20)
    assert ci["a"] == pytest.approx((point["a"], point["a"]), abs=1e-3)


# ---- alpha-Rank -----------------------------------------------------------------------------------

def test_alpha_rank_splits_games_into_seat_pairs_and_passes_alpha_and_population(monkeypatch):
    """Every pair of seats of different strategies once, in seat order, the higher score winning
    (the documented reading of OpenSpiel's 2-player table), and OpenSpiel's alpha-Rank at the given
    (default: 100, 50) selection intensity and population."""
    pytest.importorskip("open_spiel")
    pytest.importorskip("pandas")
    from open_spiel.python.egt import alpharank, heuristic_payoff_table
    frames, calls = [], []
    real_table, real_compute = heuristic_payoff_table.from_match_results, alpharank.compute

    def table_spy(frame, strategies):
        frames.append(frame)
        return real_table(frame, strategies)

    def compute_spy(tables, **kwargs):
        calls.append(kwargs)
        return real_compute(tables, **kwargs)

    monkeypatch.setattr(heuristic_payoff_table, "from_match_results", table_spy)
    monkeypatch.setattr(alpharank, "compute", compute_spy)
    matches = [(["a", "b", "a", "c"], [1, 4, 2, 3]), (["c", "b"], [0, 5])]
    alpha_rank(matches, ["a", "b", "c"])
    assert list(frames[0]["agents"]) == [("a", "b"), ("a", "c"), ("b", "a"), ("b", "c"), ("a", "c"), ("c", "b")]
    assert list(frames[0]["scores"]) == [(1, 4), (1, 3), (4, 2), (4, 3), (2, 3), (0, 5)]
    alpha_rank(matches, ["a", "b", "c"], alpha=0.5, population=7)
    assert calls == [{"m": 50, "alpha": 100.0}, {"m": 7, "alpha": 0.5}]


def test_alpha_rank_errors_say_what_is_missing(monkeypatch):
    with pytest.raises(ValueError) as error:
        alpha_rank([(["a", "a"], [1, 2])], ["a", "b"])
    assert str(error.value) == "alpha_rank needs games with seats of at least two different strategies"
    monkeypatch.setitem(sys.modules, "open_spiel.python.egt", None)
    with pytest.raises(ImportError) as error:
        alpha_rank([(["a", "b"], [1, 2])], ["a", "b"])
    assert str(error.value) == "alpha_rank needs OpenSpiel and pandas: pip install -e '.[research]'"


def test_alpha_rank_hides_its_overflow_warnings():
    pytest.importorskip("open_spiel")
    pytest.importorskip("pandas")
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="overflow")  # exp(m * alpha) at the usual alpha = 100
        alpha_rank([(["a", "b"], [1, 0])] * 5, ["a", "b"])
