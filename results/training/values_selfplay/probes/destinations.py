"""Probe (issue 35, 28 Nov): do *destination* features make the commissioner moves learnable?

A commissioner move changes no score at once, so its effect features are flat, and the network learns little of
the moves: its held-out regret there is 0.30 in 2 players where a random move's is 0.54 (3 players, the labels of
its own games: 0.62 against 0.69). Destination columns append to a move candidate the observation's rows of the
district it goes to (this seat's and the others' build value there, this seat's lead and deficit, the skyscrapers
of each owner, the commissioner markers, closed), and flags for Central Park and City Hall; they are zero for every
other candidate. They need no new labels: the stored labels hold the observations.

Run from the repository root (``PYTHONPATH=.``; the judging reads ``scripts/refit_values.py``). The columns are
now the ``destinations`` option of a candidate-value run (``fifthave.agents.learned.destination_features``); this
probe refits a run's labels with them and writes a regular agent file:

    python P/destinations.py fit RUN_DIR OUT              # OUT/values.npz: the run's last fit with the destinations
    python P/destinations.py judge RUN_DIR AGENT_FILE OUT  # held-out agreement and regret per decision kind of both
    python P/destinations.py play AGENT_FILE GAMES OUT_STEM [PLAYERS]   # against heuristics, seed 2026
"""
import dataclasses, os, sys
import numpy as np

from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave_env.engine.actions import NUM_ACTIONS


def trainer_config(run_dir, out, destinations):
    from fifthave.train.config import load_run_config
    config = load_run_config(os.path.join(run_dir, "run_config.json")).trainer_config(out)
    return dataclasses.replace(config, destinations=destinations)


def fit_run(run_dir, out, **settings):
    """OUT/values.npz: the run's last fit with the destinations (and any other fit ``settings`` changed)."""
    from refit_values import stored_labels
    from fifthave.train.candidate_values import fit
    from fifthave.train.values_agent import save_values
    config = dataclasses.replace(trainer_config(run_dir, out, True), **settings)
    data, held_out = stored_labels(run_dir, config)
    print(f"{len(data[0])} training decisions, {len(held_out[0])} held out", flush=True)
    os.makedirs(out, exist_ok=True)
    save_values(os.path.join(out, "values.npz"), fit(config, data, held_out), dataclasses.asdict(config),
                {"refitted_from": os.path.basename(os.path.normpath(run_dir)), **settings})


def judge(run_dir, agent_file, out):
    """Held-out agreement and regret per decision kind (``refit_values.decision_metrics``) of the committed network
    and of the destination fit in ``out``."""
    import json
    from refit_values import decision_metrics, kind_of, numpy_predictions, stored_labels
    from fifthave.train.candidate_values import decision_bounds, with_destinations
    from fifthave.train.values_agent import load_values
    config = trainer_config(run_dir, out, True)
    held_out = stored_labels(run_dir, config)[1]
    _, features, owners, targets = held_out
    first_actions = features[:, :NUM_ACTIONS].argmax(axis=1)
    report = {"network": decision_metrics(numpy_predictions(load_values(agent_file)[0], held_out), targets, owners,
                                          first_actions),
              "destinations": decision_metrics(numpy_predictions(load_values(os.path.join(out, "values.npz"))[0],
                                                                 with_destinations(config, held_out)),
                                               targets, owners, first_actions)}
    # a uniformly random candidate's expected regret: the best label minus the decision's mean label
    random_regret = {}
    for a, b in zip(*decision_bounds(owners)):
        for kind in ("all", kind_of(int(first_actions[a]))):
            random_regret.setdefault(kind, []).append(float(targets[a:b].max() - targets[a:b].mean()))
    report["random_regret"] = {kind: round(float(np.mean(r)), 4) for kind, r in random_regret.items()}
    with open(os.path.join(out, "judged.json"), "w") as f:
        json.dump(report, f, indent=1)
    print("| kind | held-out decisions | network agrees / regret | with destinations | a random candidate's regret |"
          "\n|---|---|---|---|---|")
    for kind, row in report["network"].items():
        other = report["destinations"][kind]
        print(f"| {kind} | {row['decisions']} | {row['best_agrees']:.3f} / {row['regret']:.3f} | "
              f"{other['best_agrees']:.3f} / {other['regret']:.3f} | {report['random_regret'][kind]:.3f} |")


def play(agent_file, games, out_stem, players):
    entry = ("network", agent_factory(f"values:{agent_file}"))
    result = run_tournament([entry] + [("heuristic", agent_factory("heuristic"))] * (players - 1),
                            num_players=players, games=games, seed=2026, workers=1)
    result.save(out_stem)
    row = result.row(entry[0])
    print(entry[0], row["win_rate"], row["win_ci_low"], row["win_ci_high"], result.act_ms())


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.getcwd(), "scripts"))
    if sys.argv[1] == "fit":
        fit_run(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "judge":
        judge(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        play(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]) if len(sys.argv) > 5 else 2)
