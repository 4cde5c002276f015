"""Evaluation of a learned agent with the tournament of ``fifthave.agents.tournament``.

``evaluate(make_agent, opponent, games, config, seed)`` plays a seeded
tournament of ``games`` games (rounded up to a multiple of the player count):
the learned agent in one seat, which rotates through all seats, and the
scripted ``opponent`` in every other seat. The win rate counts a shared win as
1/k for each of the k winners (the tournament's rule) and comes with the
tournament's 95% interval clustered by deal (``fifthave.agents.stats.clustered_rate_interval``:
the games of a deal share its cards, so they are not independent); tables show it next
to the fair share 1 / players; ``truncated`` counts the games that reached ``max_turns`` (R29)
(their winners are the tournament's, so a high count says the win rate is not
about finished games).

The training run evaluates with ``eval_seed(config)``, the same deals at every
point. A checkpoint (or a published ``policy.zip``) is evaluated again the same
way, without retraining, by::

    python -m fifthave.train.evaluate results/training/policy.zip [--games N] [--opponents heuristic ...]

which uses the config saved in the checkpoint (opponents, games, seed, whether the
learner plays its most likely action) and prints the rows of that step of the
run's table. A run also keeps every evaluation game's moves, one file per evaluation point and opponent
(``eval_games_path``: ``RUN_DIR/eval_games/step_000100000_vs_heuristic.json``, a tournament result as
``fifthave tournament --out`` writes it, with ``--keep-moves``); the web app (``fifthave serve``) opens it and
replays any of its games with what the learner reported at each decision. ``best_evaluation`` picks the row
of a run's best evaluated checkpoint against an opponent; ``fifthave.train.train`` and ``fifthave.train.rllib``
print it at the end, with the
tournament that plays that checkpoint on fresh deals.
"""

import argparse
import csv
import os
import re
import sys
from dataclasses import dataclass

from fifthave.agents.tournament import GREEDY_SUFFIX, agent_factory, run_tournament

from .export import agent_file_of

LEARNER_LABEL = "learner"
EVAL_FIELDS = ("timesteps", "opponent", "games", "win_rate", "ci_low", "ci_high", "mean_vp", "mean_rank",
               "opponent_mean_vp", "truncated")
"""The columns of a run's ``eval.csv``: one row per evaluation point and opponent."""


def console_prefix():
    """How the commands a run prints spell this package's console scripts: with this Python's bin directory,
    relative (e.g. ``.venv/bin/``), when they were installed there; bare otherwise."""
    bin_dir = os.path.dirname(sys.executable)
    if os.path.exists(os.path.join(bin_dir, "fifthave")):
        return os.path.join(os.path.relpath(bin_dir), "")
    return ""


def trained_agent_name(kind, path, greedy):
    """The agent name (``agent_factory``'s) of a trained checkpoint: ``KIND:AGENT_FILE`` (its agent file, written
    beside it, ``fifthave.train.export.agent_file_of``; a checkpoint directory for ``rllib``), ``:greedy`` when it plays
    its most likely moves."""
    if kind != "rllib":
        path = agent_file_of(path)
    return f"{kind}:{path}{GREEDY_SUFFIX if greedy else ''}"


def eval_seed(config):
    """The seed of a run's evaluation tournaments: ``eval_seed`` if set, else apart from its training seed."""
    return config.eval_seed if config.eval_seed is not None else config.seed + 1_000_003


@dataclass
class EvalResult:
    opponent: str
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_vp: float
    mean_rank: float
    opponent_mean_vp: float
    truncated: int
    """Games that hit the turn limit."""

    def row(self):
        return {"opponent": self.opponent, "games": self.games, "win_rate": round(self.win_rate, 4),
                "ci_low": round(self.ci_low, 4), "ci_high": round(self.ci_high, 4),
                "mean_vp": round(self.mean_vp, 2), "mean_rank": round(self.mean_rank, 3),
                "opponent_mean_vp": round(self.opponent_mean_vp, 2), "truncated": self.truncated}


def eval_games_path(run_dir, point, opponent):
    """Where a run keeps the games of one evaluation point (e.g. ``step_000100000``) against ``opponent``."""
    return os.path.join(run_dir, "eval_games", f"{point}_vs_{re.sub(r'[^A-Za-z0-9._-]', '_', opponent)}.json")


def evaluate(make_agent, opponent, games, config, seed, games_path=None, **tournament_options):
    """A tournament of the agent ``make_agent()`` returns against ``opponent`` in every other seat
    (``tournament_options``, e.g. ``workers`` or ``backend``, go to ``run_tournament``). ``games_path``: write
    the games there, with their moves (``TournamentResult.save_json``), for the web viewer."""
    n = config.num_players
    games = -(-games // n) * n
    lineup = [(LEARNER_LABEL, make_agent)] + [(opponent, agent_factory(opponent))] * (n - 1)
    result = run_tournament(lineup, num_players=n, board=config.board, games=games, seed=seed,
                            max_turns=config.max_turns, keep_moves=games_path is not None, **tournament_options)
    if games_path is not None:
        os.makedirs(os.path.dirname(games_path) or ".", exist_ok=True)
        result.save_json(games_path)
    mine, theirs = result.row(LEARNER_LABEL), result.row(opponent)
    return EvalResult(opponent, games, mine["win_rate"], mine["win_ci_low"], mine["win_ci_high"],
                      mine["mean_vp"], mine["mean_rank"], theirs["mean_vp"],
                      sum(1 for record in result.records if record["truncated"]))


def evaluate_checkpoint(path, opponents=None, games=None):
    """The evaluation rows of the checkpoint at ``path``, as its training run computed them at its step."""
    from .checkpoint import read_meta
    from .config import config_from_dict
    from .policy_agent import PolicyAgent

    meta = read_meta(path)
    config = config_from_dict(meta["config"])
    policy = PolicyAgent.load(path, deterministic=config.eval_deterministic, name=LEARNER_LABEL)

    def make_agent():
        return PolicyAgent(policy.net, policy.deterministic, LEARNER_LABEL, policy.meta)
    return [{"timesteps": meta["num_timesteps"],
             **evaluate(make_agent, opponent, games or config.eval_games, config, eval_seed(config)).row()}
            for opponent in opponents or config.eval_opponents]


def read_eval_log(run_dir):
    with open(os.path.join(run_dir, "eval.csv"), newline="") as f:
        return list(csv.DictReader(f))


def best_evaluation(rows, opponent, step="timesteps"):
    """The row of ``opponent`` with the highest win rate among eval.csv ``rows`` (their ``step`` column names the
    checkpoint), or None if ``opponent`` has none.

    A step evaluated twice (a run resumed from an earlier checkpoint rewrites the later ones) counts with its
    last row, the one of the weights now saved under that step; of equal win rates the later step wins. The
    row was picked on its own games, so its win rate flatters the checkpoint (the most favourable of several
    noisy estimates): play the checkpoint again on fresh deals before quoting one.
    """
    latest = {}
    for row in rows:
        if row["opponent"] == opponent:
            latest[int(row[step])] = row
    if not latest:
        return None
    return max(latest.items(), key=lambda item: (float(item[1]["win_rate"]), item[0]))[1]


def best_evaluation_lines(row, step, checkpoint, agent_kind, greedy, num_players, eval_seed_used):
    """What the end of a run prints about its best evaluated checkpoint: the row, and the tournament that plays
    the checkpoint as the evaluations did (``agent_kind:PATH``, ``:greedy`` if they played its most likely
    moves) on fresh deals (a tournament seed's deals are its own: any seed but ``eval_seed_used``)."""
    agent = trained_agent_name(agent_kind, checkpoint, greedy)
    return [f"best evaluation vs {row['opponent']}: step {int(row[step])}, win rate {float(row['win_rate']):.3f} "
            f"[{float(row['ci_low']):.3f}, {float(row['ci_high']):.3f}] over {row['games']} games (fair share "
            f"{1 / num_players:.2f}): {checkpoint}",
            f"  picked on these games, so the figure flatters it; on fresh deals: {console_prefix()}fifthave tournament"
            f" --agents {agent} {row['opponent']}*{num_players - 1} --games 1000 --seed {eval_seed_used + 1}"]


def best_checkpoint_report(rows, opponents, step, checkpoint_of, agent_kind, greedy, num_players, eval_seed_used):
    """``best_evaluation_lines`` of the best row against each of ``opponents`` (none for an opponent without
    rows); ``checkpoint_of(step)`` is the checkpoint saved at that step."""
    lines = []
    for opponent in opponents:
        best = best_evaluation(rows, opponent, step)
        if best is not None:
            lines += best_evaluation_lines(best, step, checkpoint_of(int(best[step])), agent_kind, greedy,
                                           num_players, eval_seed_used)
    return lines


def how_to_use(path, num_players, greedy=False):
    """Lines for the end of a run: the checkpoint, and the commands that play against it, evaluate it in a
    tournament and open its TensorBoard logs (spelled with ``console_prefix``). The commands play the policy as
    the run's evaluations did: ``policy:PATH:greedy`` when they played its most likely moves (``greedy``)."""
    prefix = console_prefix()
    others = num_players - 1
    run_dir = os.path.dirname(os.path.dirname(path))
    agent = trained_agent_name("policy", path, greedy)
    return [
        f"checkpoint: {path} (to resume); agent file: {agent_file_of(path)} (to play, numpy alone)",
        f"play against it:   {prefix}fifthave play --opponents {agent}" + " heuristic" * (others - 1),
        f"tournament:        {prefix}fifthave tournament --agents {agent} heuristic*{others} --games 100",
        f"TensorBoard:       {prefix}tensorboard --logdir {os.path.join(run_dir, 'tb')}   (then open "
        f"http://localhost:6006)",
    ]


def format_table(rows, num_players):
    """A markdown table of evaluation rows of a ``num_players`` game (the fair share is 1 / num_players)."""
    lines = ["| steps | opponent | games | win rate | 95% CI (clustered by deal) | fair share | mean VP "
             "| opponents' mean VP | mean rank | truncated |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {int(r['timesteps'])} | {r['opponent']} | {r['games']} | {float(r['win_rate']):.3f} | "
                     f"[{float(r['ci_low']):.3f}, {float(r['ci_high']):.3f}] | {1 / num_players:.2f} | "
                     f"{float(r['mean_vp']):.1f} | "
                     f"{float(r['opponent_mean_vp']):.1f} | {float(r['mean_rank']):.2f} | "
                     f"{r.get('truncated', '')} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m fifthave.train.evaluate",
                                     description="Evaluate a checkpoint as its training run did (no retraining).")
    parser.add_argument("checkpoint", help="a checkpoint or a published policy.zip")
    parser.add_argument("--opponents", nargs="+", help="default: the run's eval_opponents")
    parser.add_argument("--games", type=int, help="games per opponent (default: the run's eval_games)")
    args = parser.parse_args(argv)
    from .checkpoint import read_meta

    num_players = read_meta(args.checkpoint)["config"]["num_players"]
    print(format_table(evaluate_checkpoint(args.checkpoint, args.opponents, args.games), num_players))
    return 0


if __name__ == "__main__":
    sys.exit(main())
