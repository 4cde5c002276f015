"""The report of a PPO run (``fifthave train`` writes it into the run directory at the end; ``fifthave publish
recipe`` copies it to ``results/training``): win rate of the learner against its evaluation opponents as it trains.

- ``results.csv``: one row per evaluation point and opponent (steps, games, win rate with its 95% interval
  clustered by deal, mean VP and rank, the opponents' mean VP, truncated games);
- ``README.md``: the same table with the fair share (1 / players), the exact command, the config, the measured
  wall time and throughput, the final weights' hash, versions (command, timing and hash also in ``run.json``);
- ``win_rate.png``: win rate against the steps with the intervals shaded (with matplotlib, the analysis extra).
"""

import csv
import json
import os

from fifthave_env.engine import safejson
from fifthave_env.runtime import atomic_open

from .checkpoint import atomic_write_bytes, versions
from .evaluate import EVAL_FIELDS, format_table, read_eval_log


def plot(rows, config, path):
    """The win rates against the steps in ``path``; False (nothing drawn) without matplotlib (the analysis extra)."""
    try:
        import matplotlib
    except ImportError:
        return False

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == opponent]
        steps = [int(r["timesteps"]) for r in mine]
        rate, low, high = ([float(r[key]) for r in mine] for key in ("win_rate", "ci_low", "ci_high"))
        if len(steps) == 1:  # a band needs two points: an error bar
            ax.errorbar(steps, rate, yerr=[[rate[0] - low[0]], [high[0] - rate[0]]], marker="o", capsize=4,
                        label=f"vs {opponent}")
            continue
        ax.plot(steps, rate, marker="o", label=f"vs {opponent}")
        ax.fill_between(steps, low, high, alpha=0.2)
    ax.axhline(1 / config.num_players, color="gray", linestyle="--", linewidth=1,
               label=f"even share (1/{config.num_players})")
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel("win rate (95% CI, clustered by deal)")
    ax.set_ylim(0, 1)
    if config.total_timesteps == 0:  # one point per opponent: the cloned policy
        ax.set_xticks([0])
        ax.set_xlim(-1, 1)
        training = f"teacher {config.bc.teacher}"
    elif config.selfplay is not None:
        training = "self-play"
    else:
        training = "vs " + "/".join(dict.fromkeys(config.opponents))
    ax.set_title(f"{_method(config)} ({training}), {config.num_players} players, {config.board}-plot board, "
                 f"seed {config.seed}")
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _method(config):
    """What trains the policy, in a few words (titles)."""
    if config.total_timesteps == 0:
        return "behaviour cloning"
    return "behaviour cloning, then MaskablePPO" if config.bc is not None else "MaskablePPO"


def _training_text(config):
    bc = config.bc
    cloning = (f"behaviour cloning of {bc.teacher} ({bc.games} games, teacher in "
               f"{'one seat' if bc.teacher_seats == 'one' else 'every seat'}, {bc.dagger_rounds} DAgger rounds of "
               f"{bc.dagger_games} games)" if bc is not None else "")
    if config.total_timesteps == 0:
        return f"{cloning} against {config.opponents}, no PPO"
    ppo = f"{config.total_timesteps} env steps of PPO; {_opponents_text(config)}"
    return f"{cloning}, then {ppo}" if cloning else ppo


def _opponents_text(config):
    scripted = f"scripted opponents drawn per seat from {config.opponents}"
    sp = config.selfplay
    league = config.league
    if league is not None:
        return (f"a league sampled by prioritized fictitious self-play (weight (1 - win rate)^{league.pfsp_power}): "
                f"anchors {league.anchors} and up to {league.max_snapshots} snapshots of the learner "
                f"(one every {league.snapshot_every} steps); one entry plays all opponent seats of a game")
    if sp is None:
        return f"training against {scripted}"
    return (f"self-play: each opponent seat is one of the learner's past snapshots (pool of {sp.pool_size}, "
            f"a snapshot every {sp.snapshot_every} steps or when it wins {sp.promote_win_rate:.0%} of its last "
            f"{sp.promote_window} games), or with probability {sp.scripted_fraction} one of the {scripted}")


def write_report(config, out, run=None):
    """Write the table, plot and README to ``out``.

    ``run``: the command and timing of the training (saved as ``out/run.json``);
    None reuses ``out/run.json``, so a rewritten report keeps the command that made the results.
    """
    rows = read_eval_log(config.run_dir)
    os.makedirs(out, exist_ok=True)
    run_path = os.path.join(out, "run.json")
    if run is not None:
        atomic_write_bytes(run_path, json.dumps(run, indent=2).encode())
    elif not os.path.exists(run_path):
        raise FileNotFoundError(f"{run_path} does not exist: the run wrote no report yet")
    else:
        run = safejson.load(run_path)
    with atomic_open(os.path.join(out, "results.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    plotted = plot(rows, config, os.path.join(out, "win_rate.png"))
    lines = [
        f"# Training results: {_method(config)} on {versions(config)['gym_env_id']}", "",
        f"Command: `{run['command']}`", "",
        f"{config.num_players} players, {config.board}-plot board, seed {config.seed}, "
        f"{_training_text(config)}; "
        f"{config.eval_games} evaluation games per opponent and point (the learner rotates through the seats, "
        "every other seat plays the opponent; a win shared by k players counts 1/k); 95% intervals clustered "
        "by deal (the games of a deal share its cards; `fifthave.agents.stats.clustered_rate_interval`).", "",
        format_table(rows, config.num_players), "",
    ] + (["![win rate](win_rate.png)", ""] if plotted else [])
    throughput = (f"training throughput {run['steps_per_second']:.0f} env steps/s on this machine"
                  if run["steps"] else "no PPO steps, so the time is the cloning's")
    lines += [f"Wall time {run['wall_seconds']:.0f} s ({run['eval_seconds']:.0f} s of it evaluation); {throughput}.", ""]
    bc_report = os.path.join(config.run_dir, "bc.json")
    if config.bc is not None and os.path.exists(bc_report):
        rounds = safejson.load(bc_report)["rounds"]
        lines += ["Cloning (`bc.json`): held-out agreement with the teacher (decisions with a choice) " + ", ".join(
            f"{r['held_out_agreement']:.3f} after fit {i + 1} ({r['decisions']} decisions)"
            for i, r in enumerate(rounds)) + ".", ""]
    if run.get("weights_sha256"):
        lines += [f"Final weights sha256 (the same for every rerun of the command): `{run['weights_sha256']}`", ""]
    lines += ["Versions: " + ", ".join(f"{k} {v}" for k, v in versions(config).items()), "",
              "Config:", "", "```json", json.dumps(config.to_dict(), indent=2), "```", ""]
    atomic_write_bytes(os.path.join(out, "README.md"), "\n".join(lines).encode())
    return rows


def cloning_games(config):
    """Games the behaviour cloning plays (recorded, held out, DAgger), 0 without cloning."""
    bc = config.bc
    return bc.games + bc.held_out_games + bc.dagger_rounds * bc.dagger_games if bc is not None else 0
