"""Probe (issue 35, 28 Nov): do *destination* features make the commissioner moves learnable?

A commissioner move changes no score at once, so its effect features are flat, and the network learns little of
the moves: its held-out regret there is 0.30 in 2 players where a random move's is 0.54 (3 players, the labels of
its own games: 0.62 against 0.69). Destination columns append to a move candidate the observation's rows of the
district it goes to (this seat's and the others' build value there, this seat's lead and deficit, the skyscrapers
of each owner, the commissioner markers, closed), and flags for Central Park and City Hall; they are zero for every
other candidate. They need no new labels: the stored labels hold the observations.

Run from the repository root (``PYTHONPATH=.``; the fit and the judging read ``scripts/refit_values.py``):

    python P/destinations.py fit RUN_DIR OUT              # OUT/destinations.npz: the run's last fit, wider candidates
    python P/destinations.py judge RUN_DIR AGENT_FILE OUT  # held-out agreement and regret per decision kind of both
    python P/destinations.py play AGENT GAMES OUT_STEM [PLAYERS]  # AGENT: destinations.npz or an agent file
"""
import functools, os, sys
import numpy as np

from fifthave.agents.learned import CandidateValueAgent, NumpyValueNet
from fifthave.agents.agentfile import groups_played
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave_env.engine.actions import MOVE, NUM_ACTIONS
from fifthave_env.engine.board import NUM_DISTRICTS, NUM_LOCATIONS
from fifthave_env.observation import views

DESTINATION_COLUMNS = 16


def destination_rows(observation, candidates):
    """DESTINATION_COLUMNS per candidate (rows of ``candidates``, the network's candidate features)."""
    x = np.zeros((len(candidates), DESTINATION_COLUMNS), np.float32)
    first = candidates[:, :NUM_ACTIONS].argmax(axis=1)
    moves = np.flatnonzero((first >= MOVE) & (first < MOVE + 2 * NUM_LOCATIONS))
    if len(moves):
        v = views(observation)
        for r in moves:
            location = (int(first[r]) - MOVE) % NUM_LOCATIONS
            if location >= NUM_DISTRICTS:
                x[r, location - NUM_DISTRICTS] = 1.0  # Central Park, City Hall
                continue
            x[r, 2:6] = v["build_value"][location]
            x[r, 6] = v["district_lead"][location]
            x[r, 7] = v["district_deficit"][location]
            x[r, 8:13] = v["district_skyscrapers"][location] / 5
            x[r, 13:15] = v["markers"][:, location]
            x[r, 15] = v["district_closed"][location]
    return x


def widened(data):
    observations, features, owners, targets = data
    starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    ends = np.r_[starts[1:], len(owners)]
    extra = np.concatenate([destination_rows(observations[owners[a]], features[a:b]) for a, b in zip(starts, ends)])
    return observations, np.concatenate([features, extra], axis=1), owners, targets


class DestinationNet:
    """A NumpyValueNet whose candidates get the destination columns appended."""

    def __init__(self, net):
        self.net = net

    def values(self, observation, candidates):
        return self.net.values(observation, np.concatenate([candidates, destination_rows(observation, candidates)],
                                                           axis=1))


def fit_run(run_dir, out):
    from refit_values import stored_labels
    from fifthave.agents.learned import CANDIDATE_FEATURES
    from fifthave.agents.agentfile import EFFECT_FEATURES
    from fifthave.train import values_agent
    from fifthave.train.candidate_values import fit
    from fifthave.train.config import load_run_config
    config = load_run_config(os.path.join(run_dir, "run_config.json")).trainer_config(out)
    data, held_out = stored_labels(run_dir, config)
    print(f"{len(data[0])} training decisions, {len(held_out[0])} held out", flush=True)
    width = values_agent.candidate_width
    values_agent.candidate_width = lambda effects: CANDIDATE_FEATURES + EFFECT_FEATURES + DESTINATION_COLUMNS
    try:
        ensemble = fit(config, widened(data), widened(held_out))
    finally:
        values_agent.candidate_width = width
    net = values_agent.numpy_net(ensemble)
    os.makedirs(out, exist_ok=True)
    np.savez(os.path.join(out, "destinations.npz"), num_players=config.num_players, board=config.board,
             groups=np.array(config.groups), **{f"m{m}_{i}": a for m, member in enumerate(net.members)
                                                for i, a in enumerate(member)})


def judge(run_dir, agent_file, out):
    """Held-out agreement and regret per decision kind (``refit_values.decision_metrics``) of the committed network
    and of the destination fit in ``out``."""
    import json
    from refit_values import decision_metrics, kind_of, numpy_predictions, stored_labels
    from fifthave.train.config import load_run_config
    from fifthave.train.values_agent import load_values
    config = load_run_config(os.path.join(run_dir, "run_config.json")).trainer_config(out)
    held_out = stored_labels(run_dir, config)[1]
    _, features, owners, targets = held_out
    first_actions = features[:, :NUM_ACTIONS].argmax(axis=1)
    report = {}
    for name, net in (("network", load_values(agent_file)[0]),
                      ("destinations", probe_agent(os.path.join(out, "destinations.npz")).net)):
        report[name] = decision_metrics(numpy_predictions(net, held_out), targets, owners, first_actions)
    # a uniformly random candidate's expected regret: the best label minus the decision's mean label
    starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    random_regret = {}
    for a, b in zip(starts, np.r_[starts[1:], len(owners)]):
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


def probe_agent(path):
    with np.load(path) as f:
        members = [[f[f"m{m}_{i}"] for i in range(10)] for m in range(len([k for k in f if k.endswith("_0")]))]
        players, board, groups = int(f["num_players"]), int(f["board"]), list(f["groups"])
    return CandidateValueAgent(DestinationNet(NumpyValueNet(members)), groups_played(groups, None), 1,
                               name="destinations", trained_for=(players, board), advice=False, effects=True)


def play(agent, games, out_stem, players):
    if agent.endswith("destinations.npz"):
        entry = ("destinations", functools.partial(probe_agent, agent))
    else:
        entry = ("network", agent_factory(f"values:{agent}"))
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
