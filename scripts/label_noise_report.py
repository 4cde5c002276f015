"""Tables of ``scripts/label_noise.py``'s output: how far apart independent labelings of the same decisions are.

For labelings X and Y of the same decisions, "X's choice agrees with Y" is the share of decisions where the
candidate X values most (the first of ties, as the search plays) is one Y values most (ties count), and
"regret under Y" is Y's best value minus Y's value of X's choice (scaled label units: value x 10). With a
network (``--network AGENT_FILE``, fitted on other games) its choice is judged the same way.

    PYTHONPATH=$PWD python scripts/label_noise_report.py build/noise40.npz --network PATH ...
"""

import argparse
import json

import numpy as np

from refit_values import kind_of, stored_labels  # noqa: F401 (scripts/ is the script's directory)


def choices(values, starts, ends):
    return np.array([a + int(values[a:b].argmax()) for a, b in zip(starts, ends)])


def judged(chosen, values, starts, ends):
    best = np.array([values[a:b].max() for a, b in zip(starts, ends)])
    return best == values[chosen], best - values[chosen]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("noise")
    parser.add_argument("--network", nargs="*", default=[], help="agent files to judge too (their predictions)")
    parser.add_argument("--run-dir", default="runs/values-all-4p-r6")
    args = parser.parse_args()
    f = np.load(args.noise)
    counts, samples = f["counts"], list(f["extra_samples"])
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    ends = starts + counts
    kinds = np.array([kind_of(int(f["first_actions"][a])) for a in starts])
    labelings = {"stored (4)": f["label"]}
    for k, s in enumerate(samples):
        labelings[f"new{k} ({s})"] = f["further"][k]
    if args.network:
        from fifthave.train.config import load_run_config
        from fifthave.train.values_agent import load_values
        config = load_run_config(f"{args.run_dir}/run_config.json").trainer_config(args.run_dir)
        _, held_out = stored_labels(args.run_dir, config)
        obs, feats, owners = held_out[0], held_out[1], held_out[2]
        for path in args.network:
            net = load_values(path)[0]
            labelings[f"net {path}"] = np.concatenate([net.values(obs[d], feats[owners == d])
                                                       for d in range(len(counts))])
    truth_name = list(labelings)[len(samples)]  # the last further search (most samples)
    truth = labelings[truth_name]
    signal = np.array([truth[a:b].max() > truth[a:b].min() for a, b in zip(starts, ends)])
    print(f"{len(counts)} decisions; judged by {truth_name}; decisions where it sees any difference: "
          f"{signal.mean():.3f}")
    groups = {"all": np.ones(len(counts), bool)}
    groups.update({k: kinds == k for k in sorted(set(kinds))})
    results = {}
    for name, values in labelings.items():
        chosen = choices(values, starts, ends)
        row = {}
        for judge in ("stored (4)", truth_name):
            agree, regret = judged(chosen, labelings[judge], starts, ends)
            row[judge] = {g: (round(float(agree[m].mean()), 3), round(float(regret[m].mean()), 3))
                          for g, m in groups.items()}
        results[name] = row
        print(f"{name:40s} agrees with stored {row['stored (4)']['all'][0]:.3f} (regret {row['stored (4)']['all'][1]:.3f})"
              f" | with {truth_name} {row[truth_name]['all'][0]:.3f} (regret {row[truth_name]['all'][1]:.3f})")
    print("by kind, (agreement, regret) judged by", truth_name)
    for g in groups:
        print(f"  {g:12s} n={groups[g].sum():5d} " + "  ".join(
            f"{name.split(' ')[0] if not name.startswith('net') else 'net' + str(i)}:{r[truth_name][g][0]:.2f}/{r[truth_name][g][1]:.3f}"
            for i, (name, r) in enumerate(results.items())))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
