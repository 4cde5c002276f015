"""Coverage of the evaluation intervals (agents/stats.py) on simulated tournaments with known truth.

    python scripts/interval_coverage.py rates   [--reps 2000]   # clustered_rate_interval, 4-100 deals
    python scripts/interval_coverage.py clumped [--reps 4000]   # rare wins that come in whole deals
    python scripts/interval_coverage.py means   [--reps 2000]   # clustered_mean_interval
    python scripts/interval_coverage.py paired  [--reps 1000]   # paired_difference (bootstrap over deals)
    python scripts/interval_coverage.py auction [--reps 1000]   # cluster_bootstrap_mean by deal

The simulation is the statistics audit's: 4 entries, deals of 4 cyclic seat
orders; a deal gives each seat an advantage (``seat_sd``) and favours some
entries (``entry_sd``, e.g. an agent whose style suits the cards), and a game's
winner is drawn from the logits of strength + seat + deal (ties shared 5% of
the time). A 95% interval should contain the truth (the rate over 4 million
deals) in about 95% of the repetitions; each line prints that share.
"""

import argparse
import sys

import numpy as np

from fifthave.agents import stats

N = 4
RATE_SCENARIOS = {  # name: (strength per entry, seat_sd, entry_sd, entries pooled under the label)
    "focus strong, deal-entry corr": (np.array([1.0, 0, 0, 0]), 0.5, 1.0, [0]),
    "focus avg, no deal effect": (np.array([0.0, 0, 0, 0]), 0.0, 0.0, [0]),
    "focus weak p~.05, corr": (np.array([-1.5, 0.3, 0.3, 0.3]), 0.5, 1.0, [0]),
    "pooled label x3 (random*3)": (np.array([2.0, 0, 0, 0]), 0.5, 1.0, [1, 2, 3]),
    "focus strong, seat-only effect": (np.array([1.0, 0, 0, 0]), 1.5, 0.0, [0]),
}
DEALS = (4, 10, 25, 100)


def simulate(rng, deals, strength, seat_sd, entry_sd, tie=0.05):
    """Win shares ``[deal, rotation, entry]`` and VP-like scores of the same shape."""
    seat = rng.normal(0, seat_sd, (deals, N))
    entry = rng.normal(0, entry_sd, (deals, N))
    shares = np.zeros((deals, N, N))
    scores = np.zeros((deals, N, N))
    for r in range(N):
        logits = strength[None, :] + seat[:, (np.arange(N) - r) % N] + entry
        p = np.exp(logits)
        p /= p.sum(1, keepdims=True)
        winner = np.minimum((rng.random((deals, 1)) > p.cumsum(1)).sum(1), N - 1)
        tied = rng.random(deals) < tie
        other = (winner + 1 + rng.integers(0, N - 1, deals)) % N
        s = np.zeros((deals, N))
        s[np.arange(deals), winner] = 1
        s[tied, winner[tied]] = s[tied, other[tied]] = 0.5
        shares[:, r, :] = s
        scores[:, r, :] = 40 + 10 * logits + rng.normal(0, 8, (deals, N))
    return shares, scores


def truth(strength, seat_sd, entry_sd, entries):
    rng = np.random.default_rng(123)
    rates, vps = [], []
    for _ in range(20):
        shares, scores = simulate(rng, 200_000, strength, seat_sd, entry_sd)
        rates.append(shares[:, :, entries].mean())
        vps.append(scores[:, :, entries].mean())
    return np.mean(rates), np.mean(vps)


def rates(reps, means=False):
    for name, (strength, seat_sd, entry_sd, entries) in RATE_SCENARIOS.items():
        true_rate, true_vp = truth(strength, seat_sd, entry_sd, entries)
        for deals in DEALS:
            rng = np.random.default_rng(deals)
            hits, widths = 0, []
            for _ in range(reps):
                shares, scores = simulate(rng, deals, strength, seat_sd, entry_sd)
                trials = np.full(deals, N * len(entries), float)
                if means:
                    _, low, high = stats.clustered_mean_interval(scores[:, :, entries].sum((1, 2)), trials)
                    hits += low <= true_vp <= high
                else:
                    _, low, high = stats.clustered_rate_interval(shares[:, :, entries].sum((1, 2)), trials)
                    hits += low <= true_rate <= high
                widths.append(high - low)
            target = true_vp if means else true_rate
            print(f"{name:32s} deals={deals:3d} truth={target:.3f} coverage={hits / reps:.3f} "
                  f"width={np.mean(widths):.3f}", flush=True)


def clumped(reps):
    """A weak agent whose rare wins come in whole deals: it wins all 4 games of a deal with chance q."""
    rng = np.random.default_rng(0)
    for q, deals in ((0.01, 150), (0.02, 150), (0.05, 25), (0.1, 10)):
        hits = 0
        for _ in range(reps):
            wins = np.where(rng.random(deals) < q, 4.0, 0.0)
            _, low, high = stats.clustered_rate_interval(wins, np.full(deals, 4.0))
            hits += low <= q <= high
        print(f"clumped q={q} deals={deals}: coverage {hits / reps:.3f}", flush=True)


def paired(reps):
    """paired_difference on per-deal win shares of two arms that share deals and part of their luck."""
    strength = np.zeros(N)

    def arm(seat, entry, draws, delta):
        logits = strength[None, :] + entry
        logits[:, 0] += delta
        out = np.zeros(len(seat))
        for r in range(N):
            p = np.exp(logits + seat[:, (np.arange(N) - r) % N])
            p /= p.sum(1, keepdims=True)
            out += np.minimum((draws[:, r:r + 1] > p.cumsum(1)).sum(1), N - 1) == 0
        return out / N

    def sample(rng, deals):
        seat, entry = rng.normal(0, .5, (deals, N)), rng.normal(0, 1, (deals, N))
        draws = rng.random((deals, N))
        diverged = np.where(rng.random((deals, N)) < 0.6, rng.random((deals, N)), draws)
        return arm(seat, entry, draws, 0.0), arm(seat, entry, diverged, 0.5)

    big = np.random.default_rng(99)
    true = np.mean([np.subtract(*sample(big, 200_000)[::-1]).mean() for _ in range(20)])
    for deals in (10, 40, 100):
        rng = np.random.default_rng(deals)
        hits = 0
        for i in range(reps):
            a, b = sample(rng, deals)
            r = stats.paired_difference(a, b, resamples=2000, seed=i)
            hits += r["ci_low"] <= true <= r["ci_high"]
        print(f"paired_difference deals={deals} truth={true:.4f} coverage={hits / reps:.3f}", flush=True)


def auction(reps):
    """Auction effects: ~80 positions from 50 deals x 3 seat orders, a deal effect shared by its games."""
    rng = np.random.default_rng(1)
    hits_game = hits_deal = 0
    for i in range(reps):
        deal_effect = rng.normal(0, 1, 50) * np.sqrt(0.5)
        game_effect = rng.normal(0, 1, (50, 3)) * np.sqrt(0.2)
        positions = np.array([(k, r) for k in range(50) for r in range(3) for _ in range(3)])
        picked = positions[rng.choice(len(positions), 80, replace=False)]
        values = 0.5 + 3 * (deal_effect[picked[:, 0]] + game_effect[picked[:, 0], picked[:, 1]]
                            + rng.normal(0, np.sqrt(0.3), 80))
        _, low, high = stats.cluster_bootstrap_mean(values, picked[:, 0] * 3 + picked[:, 1], 2000, i)
        hits_game += low <= 0.5 <= high
        _, low, high = stats.cluster_bootstrap_mean(values, picked[:, 0], 2000, i)
        hits_deal += low <= 0.5 <= high
    print(f"auction effect (deal ICC .5): clustered by game {hits_game / reps:.3f}, by deal {hits_deal / reps:.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("which", choices=("rates", "clumped", "means", "paired", "auction"))
    parser.add_argument("--reps", type=int, default=2000)
    args = parser.parse_args(argv)
    if args.which in ("rates", "means"):
        rates(args.reps, means=args.which == "means")
    else:
        {"clumped": clumped, "paired": paired, "auction": auction}[args.which](args.reps)


if __name__ == "__main__":
    sys.exit(main())
