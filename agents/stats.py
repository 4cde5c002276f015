"""Evaluation statistics, in one place: intervals, paired differences, ratings and rankings.

Everything the tournament (``fifthave.agents.tournament``) and the bidding lab
(``fifthave.agents.bidlab``) report goes through these functions, so one interval means
the same thing everywhere.

Sampling unit: games of one *deal* (one env seed, several seat orders) share
their cards and tiles, and an agent filling several seats of one game has
correlated results, so intervals resample or cluster by deal, never by
seat-game.

- :func:`wilson_interval`: the Wilson score interval of a binomial rate,
  clamped so that it always contains the rate (also at 0% and 100%).
- :func:`t_quantile` and :func:`critical_value`: Student's t quantiles (exact,
  numpy only); intervals over ``G`` deals use ``G - 1`` degrees of freedom, not
  the normal z, since their spread is estimated from few deals.
- :func:`clustered_rate_interval`: a rate pooled over clusters (deals) of
  correlated trials: the Wilson interval at Kish's effective sample size
  ``n / design_effect``, where the design effect is the cluster-robust (CR1
  sandwich) variance of the ratio estimator over the binomial variance; at most
  one trial per deal when the spread cannot be estimated (no wins, say).
- :func:`clustered_mean_interval`: a mean pooled over clusters, with the same
  cluster-robust variance and a t interval.
- :func:`percentile_interval` and :func:`cluster_bootstrap_mean`: expanded
  percentile bootstrap intervals over deals (the plain percentile interval
  covers too rarely with few deals).
- :func:`paired_difference`: candidate minus baseline from per-deal values of
  both arms played on the same deals: the mean difference with a bootstrap
  over deals, next to the unpaired interval (the two arms resampled
  independently) and the variance reduction the pairing gave.
- :func:`control_variate`: subtract a zero-mean luck term (AIVAT-style) with the
  least-squares coefficient.
- :func:`bradley_terry_elo` and :func:`bootstrap_elo`: Bradley-Terry ratings on
  the Elo scale and their percentile intervals from a bootstrap over deals.
- :func:`alpha_rank`: OpenSpiel's alpha-Rank over a population, from match
  results split into pairwise matches (needs the ``research`` extra:
  ``pip install -e .[research]``).
"""

import contextlib
import functools
import io
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


# ---- quantiles ---------------------------------------------------------------------------------

def _student_t_two_sided_mass(theta: float, df):
    """P(|T| < sqrt(df) tan(theta)) for Student's t with integer ``df`` (Abramowitz & Stegun 26.7.3-4)."""
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:
        k = np.arange(1, df // 2)
        return s * (1 + float(np.cumprod((2 * k - 1) / (2 * k) * c2).sum()))
    k = np.arange(1, (df - 1) // 2)
    inner = math.sqrt(c2) * (1 + float(np.cumprod(2 * k / (2 * k + 1) * c2).sum())) if df > 1 else 0.0
    return 2 / math.pi * (theta + s * inner)


def t_quantile(probability: float, df: int) -> float:
    """The ``probability`` quantile of Student's t with integer ``df >= 1`` degrees of freedom.

    Bisection on the exact closed-form distribution function (numpy only: scipy
    is not a core dependency); accurate to about 1e-12.
    """
    if not 0 < probability < 1 or int(df) != df or df < 1:
        raise ValueError(f"need 0 < probability < 1 and an integer df >= 1, got {probability!r}, {df!r}")
    if probability < 0.5:
        return -t_quantile(1 - probability, df)
    mass = 2 * probability - 1  # P(|T| < t)
    low, high = 0.0, math.pi / 2
    for _ in range(60):
        middle = (low + high) / 2
        if _student_t_two_sided_mass(middle, int(df)) < mass:
            low = middle
        else:
            high = middle
    return math.sqrt(df) * math.tan((low + high) / 2)


@functools.lru_cache(maxsize=None)  # a table asks for the same few values again and again
def critical_value(clusters: int, confidence: float = 0.95) -> float:
    """The two-sided critical value for a mean over ``clusters`` independent clusters: Student's t
    with ``clusters - 1`` degrees of freedom (the normal z understates the spread of a variance
    estimated from few deals: 12.7 for 2 deals, 3.18 for 4, 2.26 for 10, 2.06 for 25)."""
    return t_quantile(0.5 + confidence / 2, clusters - 1)


def normal_cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


# ---- rates ------------------------------------------------------------------------------------

def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of ``successes / trials``; ``(0, 1)`` for no trials.

    Clamped to ``[0, 1]`` and around the rate itself: in floating point the
    upper bound at 100% can fall just below 1 (and the lower above 0 at 0%).
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def _cluster_variance(sums, counts: ArrayLike):
    """CR1 cluster-robust variance of the ratio estimator sum(sums) / sum(counts)."""
    sums, counts = np.asarray(sums, float), np.asarray(counts, float)
    g = len(sums)
    total = counts.sum()
    ratio = sums.sum() / total
    if g < 2:
        return ratio, float("nan")
    residuals = sums - ratio * counts
    return ratio, g / (g - 1) * float((residuals ** 2).sum()) / total ** 2


ROUNDING = 1e-12  # a cluster variance below this fraction of the binomial one is rounding: no spread


def clustered_rate_interval(successes: ArrayLike, trials: ArrayLike,
                            confidence: float = 0.95) -> tuple[float, float, float]:
    """``(rate, low, high)`` of a rate from per-cluster ``successes`` and ``trials`` (e.g. per deal).

    The Wilson interval at the effective sample size ``n_eff = n / deff`` with
    Student's t (clusters - 1 degrees of freedom) in place of z; ``deff`` is the
    cluster-robust variance over the binomial ``p (1 - p) / n``. With one trial
    per cluster ``deff`` is about 1 (plain Wilson). Trials that move together
    (an agent in several seats of a deal whose cards favour it) give
    ``deff > 1`` and a wider interval; trials that exclude each other (two seats
    of one label cannot both win a game) can give ``deff < 1``: legitimately,
    since such a label's rate varies less than independent trials would.

    When the data cannot show the spread between clusters (no wins, only wins,
    every cluster at the same rate) the interval counts one trial per cluster
    (Wilson at ``n_eff`` = the number of clusters): whole deals may go one way,
    so more than one independent trial per deal is not assumed. From a single
    cluster nothing is known about that spread: ``(0, 1)``.
    """
    successes, trials = np.asarray(successes, float), np.asarray(trials, float)
    played = trials > 0
    successes, trials = successes[played], trials[played]
    n, clusters = float(trials.sum()), len(trials)
    if n <= 0:
        return 0.0, 0.0, 1.0
    rate, variance = _cluster_variance(successes, trials)
    if clusters < 2:
        return rate, 0.0, 1.0
    binomial = rate * (1 - rate) / n
    if binomial > 0 and variance > ROUNDING * binomial:
        n_eff = binomial * n / variance
    else:
        n_eff = clusters  # spread not estimable: at most one independent trial per cluster
    low, high = wilson_interval(rate * n_eff, n_eff, critical_value(clusters, confidence))
    return rate, low, high


def clustered_mean_interval(sums: ArrayLike, counts: ArrayLike,
                            confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of a mean pooled over clusters (per-cluster value sums and counts):
    the cluster-robust standard error times Student's t with clusters - 1 degrees of freedom;
    unbounded from one cluster."""
    sums, counts = np.asarray(sums, float), np.asarray(counts, float)
    played = counts > 0
    mean, variance = _cluster_variance(sums[played], counts[played])
    if math.isnan(variance):
        return mean, float("-inf"), float("inf")
    half = critical_value(int(played.sum()), confidence) * math.sqrt(variance)
    return mean, mean - half, mean + half


# ---- paired comparisons --------------------------------------------------------------------

def bootstrap_indices(size: int, resamples: int, seed: int | Sequence[int]) -> np.ndarray:
    """``resamples`` rows of ``size`` indices drawn with replacement (seeded)."""
    return np.random.default_rng(seed).integers(0, size, size=(resamples, size))


def percentile_interval(samples: np.ndarray, clusters: int, confidence: float = 0.95) -> tuple[float, float]:
    """Expanded percentile interval of bootstrap ``samples`` drawn from ``clusters`` resampled units.

    The plain percentile interval covers too rarely with few units (about 90%
    for a nominal 95% from 10 deals): it uses the plug-in spread (too small by
    ``sqrt((n - 1) / n)``) and normal tails. Hesterberg's expansion
    (The American Statistician 69, 2015) takes the percentiles at
    ``Phi(-sqrt(n / (n - 1)) t_{n-1})`` instead, which fixes both to first order.
    """
    if clusters < 2:
        raise ValueError(f"a bootstrap interval needs at least 2 resampled units, got {clusters}")
    widen = math.sqrt(clusters / (clusters - 1)) * critical_value(clusters, confidence)
    tail = 100 * normal_cdf(-widen)
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def cluster_bootstrap_mean(values: ArrayLike, cluster_ids: Iterable[Hashable], resamples: int = 10_000,
                           seed: int = 0, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``values`` with an expanded percentile interval from resampling whole
    clusters (``cluster_ids``: one hashable label per value, e.g. its deal), since values of one cluster are
    correlated. The resampled statistic is the pooled mean (cluster sums over cluster counts).
    Unbounded from one cluster."""
    values = np.asarray(values, float)
    number: dict[Hashable, int] = {}
    index = np.array([number.setdefault(cluster, len(number)) for cluster in cluster_ids])
    sums = np.bincount(index, weights=values)
    counts = np.bincount(index).astype(float)
    if len(sums) < 2:
        return float(values.mean()), float("-inf"), float("inf")
    rows = bootstrap_indices(len(sums), resamples, seed)
    means = sums[rows].sum(axis=1) / counts[rows].sum(axis=1)
    low, high = percentile_interval(means, len(sums), confidence)
    return float(values.mean()), low, high


def paired_difference(baseline: ArrayLike, candidate: ArrayLike, resamples: int = 10_000, seed: int = 0,
                      confidence: float = 0.95) -> dict[str, Any]:
    """Candidate minus baseline from one value per deal and arm, played on the same deals.

    Returns a dict: ``deals``, ``baseline``, ``candidate`` (the arms' means),
    ``difference`` (their difference), ``ci_low``/``ci_high`` (expanded percentile
    bootstrap over deals of the per-deal differences: :func:`percentile_interval`), ``unpaired_ci_low``/
    ``unpaired_ci_high`` (the same bootstrap with the arms resampled
    independently, as if they had been played on different deals) and
    ``variance_reduction``: ``(var(baseline) + var(candidate)) / var(difference)``,
    the factor fewer deals the paired comparison needs for the same interval
    width (None when the differences do not vary, e.g. a strategy against itself).
    """
    a, b = np.asarray(baseline, float), np.asarray(candidate, float)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise ValueError(f"give one value per deal for both arms (at least 2 deals, same length); "
                         f"got {a.shape} and {b.shape}")
    d = b - a
    n = len(d)
    rows = bootstrap_indices(n, resamples, seed)
    low, high = percentile_interval(d[rows].mean(axis=1), n, confidence)
    other_rows = bootstrap_indices(n, resamples, [seed, 1])
    u_low, u_high = percentile_interval(b[rows].mean(axis=1) - a[other_rows].mean(axis=1), n, confidence)
    var_d = float(d.var(ddof=1))
    unpaired = float(a.var(ddof=1) + b.var(ddof=1))
    if var_d <= 1e-9 * unpaired:
        var_d = 0.0  # rounding only: the arms agree on every deal
    return {
        "deals": n, "baseline": float(a.mean()), "candidate": float(b.mean()), "difference": float(d.mean()),
        "ci_low": low, "ci_high": high, "unpaired_ci_low": u_low, "unpaired_ci_high": u_high,
        "variance_reduction": unpaired / var_d if var_d > 0 else None,
    }


def control_variate(values: ArrayLike, controls: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``values - beta * controls`` with the least-squares ``beta`` (controls must have mean 0 by design).

    ``controls`` is a 1-d array (one luck term per value) or 2-d (one column
    per term). The coefficient is fitted on the same values, as usual for
    control variates (a bias of order 1/n). Returns (adjusted values, beta).
    """
    y = np.asarray(values, float)
    x = np.asarray(controls, float).reshape(len(y), -1)
    if not np.any(x):
        return y.copy(), np.zeros(x.shape[1])
    xc = x - x.mean(axis=0)
    beta = np.linalg.lstsq(xc, y - y.mean(), rcond=None)[0]
    return y - x @ beta, beta


# ---- ranks and ratings ------------------------------------------------------------------------

def seat_ranks(record: Mapping[str, Any]) -> list[float]:
    """Rank per seat, 1 = best, by (winner, VP, cards in hand); equal keys share the mean of their places.

    The order of R28 for every place, not only the first: most VP, then most
    cards in hand; a tie on both shares the place (the mean of the places tied).
    """
    n = len(record["scores"])
    keys = [(p in record["winners"], record["scores"][p], record["cards_in_hand"][p]) for p in range(n)]
    ranks = []
    for p in range(n):
        better = sum(1 for q in range(n) if keys[q] > keys[p])
        equal = sum(1 for q in range(n) if keys[q] == keys[p])
        ranks.append(better + (equal + 1) / 2)
    return ranks


def _pairwise_wins(record, index, label_of_entry, m):
    """Pairwise wins between labels in one game record (the better-ranked wins; a tie is half each)."""
    wins = np.zeros((m, m))
    ranks = seat_ranks(record)
    seats = range(len(ranks))
    for p in seats:
        for q in seats:
            a = index[label_of_entry[record["entries"][p]]]
            b = index[label_of_entry[record["entries"][q]]]
            if a == b:
                continue
            if ranks[p] < ranks[q]:
                wins[a, b] += 1
            elif ranks[p] == ranks[q] and p < q:
                wins[a, b] += 0.5
                wins[b, a] += 0.5
    return wins


def _fit_bradley_terry(wins, tolerance: float, max_iterations):
    """Log10 strengths from a pairwise win matrix whose last row/column is the reference."""
    wins = wins.copy()
    wins[:-1, -1] += 0.5  # one virtual draw against the reference
    wins[-1, :-1] += 0.5
    games = wins + wins.T
    total_wins = wins.sum(axis=1)
    gamma = np.ones(len(wins))
    for _ in range(max_iterations):  # the minorization-maximization updates (Hunter 2004)
        new = total_wins / (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new /= new[-1]  # the reference stays at 1
        done = np.abs(np.log(new) - np.log(gamma)).max() < tolerance
        gamma = new
        if done:
            break
    return np.log10(gamma)


def bradley_terry_elo(labels: Sequence[str], records: Iterable[Mapping[str, Any]],
                      label_of_entry: Sequence[str] | Mapping[Any, str], tolerance: float = 1e-9,
                      max_iterations: int = 100_000) -> dict[str, float]:
    """Elo-scale ratings from a Bradley-Terry fit to every pair of seats of different labels in every game.

    One virtual draw per label against a fixed 1500-rated reference keeps a
    label that always wins finite; 1500 = the reference; 400 log10 scale.
    """
    index = {label: i for i, label in enumerate(labels)}
    m = len(labels) + 1
    wins = sum((_pairwise_wins(r, index, label_of_entry, m) for r in records), np.zeros((m, m)))
    strength = _fit_bradley_terry(wins, tolerance, max_iterations)
    return {label: 1500 + 400 * float(strength[index[label]]) for label in labels}


def bootstrap_elo(labels: Sequence[str], records: Iterable[Mapping[str, Any]],
                  label_of_entry: Sequence[str] | Mapping[Any, str], resamples: int = 200, seed: int = 0,
                  confidence: float = 0.95, tolerance: float = 1e-7) -> dict[str, tuple[float, float]]:
    """``{label: (low, high)}``: expanded percentile intervals (:func:`percentile_interval`) of the
    Bradley-Terry ratings, resampling whole deals (at least 2)."""
    index = {label: i for i, label in enumerate(labels)}
    m = len(labels) + 1
    per_deal: dict[Hashable, np.ndarray] = {}
    for r in records:
        per_deal.setdefault(r["deal"], np.zeros((m, m)))
        per_deal[r["deal"]] += _pairwise_wins(r, index, label_of_entry, m)
    deals = np.stack(list(per_deal.values()))
    ratings = []
    for row in bootstrap_indices(len(deals), resamples, seed):
        counts = np.bincount(row, minlength=len(deals))
        wins = np.tensordot(counts, deals, axes=1)
        ratings.append(1500 + 400 * _fit_bradley_terry(wins, tolerance, 100_000)[:-1])
    ratings = np.array(ratings)
    return {label: percentile_interval(ratings[:, index[label]], len(deals), confidence) for label in labels}


# ---- alpha-Rank (optional: OpenSpiel) -------------------------------------------------------

def alpha_rank(match_results: Iterable[tuple[Sequence[str], Sequence[float]]], strategies: Sequence[str],
               alpha: float = 100.0, population: int = 50) -> dict[str, float]:
    """alpha-Rank (Omidshafiei et al. 2019) of ``strategies`` with OpenSpiel's ``egt.alpharank``.

    ``match_results``: one ``(names, scores)`` pair per game, a strategy name
    and a score per seat (higher is better, e.g. minus the seat's rank).
    OpenSpiel's single-population alpha-Rank reads a symmetric *2-player*
    payoff table, so every game is split into its pairwise matches between
    seats of different strategies (the higher score wins, a tie is half each:
    the comparisons Bradley-Terry fits), and
    ``heuristic_payoff_table.from_match_results`` turns those into the table
    (win probability of each strategy against each other). ``alpha`` is the
    selection intensity: large (the usual 100) puts the mass on the strategies
    no other beats, small spreads it. Returns ``{strategy: stationary mass}``,
    highest first.
    """
    try:
        import pandas as pd
        from open_spiel.python.egt import alpharank, heuristic_payoff_table
    except ImportError as error:
        raise ImportError("alpha_rank needs OpenSpiel and pandas: pip install -e '.[research]'") from error
    strategies = list(strategies)
    pairs, scores = [], []
    for names, game_scores in match_results:
        for p in range(len(names)):
            for q in range(p + 1, len(names)):
                if names[p] != names[q]:
                    pairs.append((names[p], names[q]))
                    scores.append((float(game_scores[p]), float(game_scores[q])))
    if not pairs:
        raise ValueError("alpha_rank needs games with seats of at least two different strategies")
    frame = pd.DataFrame({"agents": pairs, "scores": scores})
    # from_match_results prints a progress line per row; exp() overflows harmlessly for large alpha
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(over="ignore"):
        table = heuristic_payoff_table.from_match_results(frame, strategies)
        _, _, pi, _, _ = alpharank.compute([table], m=population, alpha=alpha)
    mass = {s: max(0.0, float(p)) for s, p in zip(strategies, pi)}  # no -0.0 from rounding
    return dict(sorted(mass.items(), key=lambda item: -item[1]))
