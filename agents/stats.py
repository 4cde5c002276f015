"""Evaluation statistics, in one place: intervals, paired differences, ratings and rankings.

Everything the tournament (``agents.tournament``) and the bidding lab
(``agents.bidlab``) report goes through these functions, so one interval means
the same thing everywhere.

Sampling unit: games of one *deal* (one env seed, several seat orders) share
their cards and tiles, and an agent filling several seats of one game has
correlated results, so intervals resample or cluster by deal, never by
seat-game.

- :func:`wilson_interval`: the Wilson score interval of a binomial rate,
  clamped so that it always contains the rate (also at 0% and 100%).
- :func:`clustered_rate_interval`: a rate pooled over clusters (deals) of
  correlated trials: the Wilson interval at Kish's effective sample size
  ``n / design_effect``, where the design effect is the cluster-robust (CR1
  sandwich) variance of the ratio estimator over the binomial variance.
- :func:`clustered_mean_interval`: a mean pooled over clusters, with the same
  cluster-robust variance and a normal interval.
- :func:`paired_difference`: candidate minus baseline from per-deal values of
  both arms played on the same deals: the mean difference with a percentile
  bootstrap over deals, next to the unpaired interval (the two arms resampled
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
import io
import math

import numpy as np

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


# ---- rates ------------------------------------------------------------------------------------

def wilson_interval(successes, trials, z=Z95):
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


def _cluster_variance(sums, counts):
    """CR1 cluster-robust variance of the ratio estimator sum(sums) / sum(counts)."""
    sums, counts = np.asarray(sums, float), np.asarray(counts, float)
    g = len(sums)
    total = counts.sum()
    ratio = sums.sum() / total
    if g < 2:
        return ratio, float("nan")
    residuals = sums - ratio * counts
    return ratio, g / (g - 1) * float((residuals ** 2).sum()) / total ** 2


def clustered_rate_interval(successes, trials, z=Z95):
    """``(rate, low, high)`` of a rate from per-cluster ``successes`` and ``trials`` (e.g. per deal).

    The Wilson interval at the effective sample size ``n / deff``; ``deff`` is
    the cluster-robust variance over the binomial ``p (1 - p) / n``. With one
    trial per cluster ``deff`` is about 1 (plain Wilson). Trials that move
    together (an agent in several seats of a deal whose cards favour it) give
    ``deff > 1`` and a wider interval; trials that exclude each other (two
    seats of one label cannot both win a game) can give ``deff < 1``.
    """
    successes, trials = np.asarray(successes, float), np.asarray(trials, float)
    n = float(trials.sum())
    if n <= 0:
        return 0.0, 0.0, 1.0
    rate, variance = _cluster_variance(successes, trials)
    binomial = rate * (1 - rate) / n
    if not binomial > 0 or not variance > 0 or math.isnan(variance):
        low, high = wilson_interval(rate * n, n, z)  # all clusters alike (or only one): nothing to adjust
        return rate, low, high
    n_eff = binomial * n / variance
    low, high = wilson_interval(rate * n_eff, n_eff, z)
    return rate, low, high


def clustered_mean_interval(sums, counts, z=Z95):
    """``(mean, low, high)`` of a mean pooled over clusters (per-cluster value sums and counts)."""
    mean, variance = _cluster_variance(sums, counts)
    if math.isnan(variance):
        return mean, float("-inf"), float("inf")
    half = z * math.sqrt(variance)
    return mean, mean - half, mean + half


# ---- paired comparisons --------------------------------------------------------------------

def bootstrap_indices(size, resamples, seed):
    """``resamples`` rows of ``size`` indices drawn with replacement (seeded)."""
    return np.random.default_rng(seed).integers(0, size, size=(resamples, size))


def percentile_interval(samples, confidence=0.95):
    tail = 50 * (1 - confidence)
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def paired_difference(baseline, candidate, resamples=10_000, seed=0, confidence=0.95):
    """Candidate minus baseline from one value per deal and arm, played on the same deals.

    Returns a dict: ``deals``, ``baseline``, ``candidate`` (the arms' means),
    ``difference`` (their difference), ``ci_low``/``ci_high`` (percentile
    bootstrap over deals of the per-deal differences), ``unpaired_ci_low``/
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
    low, high = percentile_interval(d[rows].mean(axis=1), confidence)
    other_rows = bootstrap_indices(n, resamples, [seed, 1])
    u_low, u_high = percentile_interval(b[rows].mean(axis=1) - a[other_rows].mean(axis=1), confidence)
    var_d = float(d.var(ddof=1))
    unpaired = float(a.var(ddof=1) + b.var(ddof=1))
    if var_d <= 1e-9 * unpaired:
        var_d = 0.0  # rounding only: the arms agree on every deal
    return {
        "deals": n, "baseline": float(a.mean()), "candidate": float(b.mean()), "difference": float(d.mean()),
        "ci_low": low, "ci_high": high, "unpaired_ci_low": u_low, "unpaired_ci_high": u_high,
        "variance_reduction": unpaired / var_d if var_d > 0 else None,
    }


def control_variate(values, controls):
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

def seat_ranks(record):
    """Rank per seat, 1 = best, by (winner, VP); equal keys share the mean of their places."""
    n = len(record["scores"])
    keys = [(p in record["winners"], record["scores"][p]) for p in range(n)]
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


def _fit_bradley_terry(wins, tolerance, max_iterations):
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


def bradley_terry_elo(labels, records, label_of_entry, tolerance=1e-9, max_iterations=100_000):
    """Elo-scale ratings from a Bradley-Terry fit to every pair of seats of different labels in every game.

    One virtual draw per label against a fixed 1500-rated reference keeps a
    label that always wins finite; 1500 = the reference; 400 log10 scale.
    """
    index = {label: i for i, label in enumerate(labels)}
    m = len(labels) + 1
    wins = sum((_pairwise_wins(r, index, label_of_entry, m) for r in records), np.zeros((m, m)))
    strength = _fit_bradley_terry(wins, tolerance, max_iterations)
    return {label: 1500 + 400 * float(strength[index[label]]) for label in labels}


def bootstrap_elo(labels, records, label_of_entry, resamples=200, seed=0, confidence=0.95, tolerance=1e-7):
    """``{label: (low, high)}``: percentile intervals of the Bradley-Terry ratings, resampling whole deals."""
    index = {label: i for i, label in enumerate(labels)}
    m = len(labels) + 1
    per_deal = {}
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
    return {label: percentile_interval(ratings[:, index[label]], confidence) for label in labels}


# ---- alpha-Rank (optional: OpenSpiel) -------------------------------------------------------

def alpha_rank(match_results, strategies, alpha=100.0, population=50):
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
