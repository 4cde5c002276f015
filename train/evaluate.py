"""Evaluation of a learned agent with the tournament of ``agents.tournament``.

``evaluate(make_agent, opponent, games, config, seed)`` plays a seeded
tournament of ``games`` games (rounded up to a multiple of the player count):
the learned agent in one seat, which rotates through all seats, and the
scripted ``opponent`` in every other seat. The win rate counts a shared win as
1/k for each of the k winners (the tournament's rule) and comes with its 95%
Wilson interval; ``truncated`` counts the games that reached ``max_turns`` (R29)
(their winners are the tournament's, so a high count says the win rate is not
about finished games).
"""

from dataclasses import dataclass

from agents.tournament import agent_factory, run_tournament

LEARNER_LABEL = "learner"


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


def evaluate(make_agent, opponent, games, config, seed):
    """A tournament of the agent ``make_agent()`` returns against ``opponent`` in every other seat."""
    n = config.num_players
    games = -(-games // n) * n
    lineup = [(LEARNER_LABEL, make_agent)] + [(opponent, agent_factory(opponent))] * (n - 1)
    result = run_tournament(lineup, num_players=n, board=config.board, games=games, seed=seed,
                            max_turns=config.max_turns)
    mine, theirs = result.row(LEARNER_LABEL), result.row(opponent)
    return EvalResult(opponent, games, mine["win_rate"], mine["win_ci_low"], mine["win_ci_high"],
                      mine["mean_vp"], mine["mean_rank"], theirs["mean_vp"],
                      sum(1 for record in result.records if record["truncated"]))
