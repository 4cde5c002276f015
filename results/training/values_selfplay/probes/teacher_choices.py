"""How the labelling search of ``teacher_advice`` (4 samples, depth 3) chooses, in GAMES 4-player games (seed 2026)
against three OPPONENT agents: its decisions, how often the HeuristicAgent's choice is not among the advice-free
candidates (the network could not play it), and how often it plays the heuristic's choice.

    python teacher_choices.py OPPONENT GAMES"""
import collections
import functools
import sys

import fifthave.train.values_agent as values_agent
from fifthave.agents.tournament import agent_factory, run_tournament

counts = collections.Counter()
searched = values_agent.advised_search
heuristic_choice = values_agent.AdviceFreeSearchAgent._heuristic_choice
seen = []


def recorded_choice(agent, view):
    seen.append(heuristic_choice(agent, view))  # what advised_search asks, once: no extra call to perturb the game
    return seen[-1]


def counted_search(agent, view, candidates):
    choice = searched(agent, view, candidates)
    counts["decisions"] += 1
    counts["heuristic's choice not a candidate"] += seen[-1] not in candidates
    counts["plays the heuristic's choice"] += choice == seen[-1]
    return choice


values_agent.AdviceFreeSearchAgent._heuristic_choice = recorded_choice
values_agent.advised_search = counted_search  # workers=1: the games run in this process
opponent, games = sys.argv[1], int(sys.argv[2])
teacher = functools.partial(values_agent.AdviceFreeSearchAgent, 4, 3, True)
result = run_tournament([("teacher", teacher)] + [(opponent, agent_factory(opponent))] * 3, num_players=4, board=5,
                        games=games, seed=2026, workers=1)
print(dict(counts), "win rate", result.row("teacher")["win_rate"])
