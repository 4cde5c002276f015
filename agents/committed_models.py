"""The trained models committed with the repository, as data: name, file under ``results/``, kind, player count,
board and description. Users read them through ``fifthave.agents.models``; kept apart from it (which builds agents,
so imports the networks) so that ``fifthave.agents.registry`` lists their names without importing the networks.
"""

import os
from dataclasses import dataclass

# realpath: in a checkout this file is also reached through the link fifthave/agents
RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "results")


@dataclass(frozen=True)
class Model:
    name: str
    path: str
    """Relative to ``results/``."""
    kind: str
    num_players: int
    board: int
    description: str

    @property
    def file(self) -> str:
        return os.path.join(RESULTS, self.path)


MODELS = {model.name: model for model in (
    Model("policy-4p", "training/policy.npz", "policy", 4, 5,
          "behaviour cloning of search:4:1 with the heuristic's advice (results/training/README.md); "
          "sampled moves, policy-4p:greedy for the most likely ones"),
    Model("values-4p", "training/values/values.npz", "candidate-values", 4, 5,
          "candidate values fitted to search values, plays bids and board moves (results/training/values/"
          "README.md)"),
    Model("values-all-4p", "training/values_all/values.npz", "candidate-values", 4, 5,
          "candidate values fitted to search values with expert iteration (DAgger rounds), plays every decision "
          "with no scripted agent (advice: false), but is still weak against the scripted agents "
          "(results/training/values_all/README.md)"),
    Model("values-effects-4p", "training/values_effects/values.npz", "candidate-values", 4, 5,
          "candidate values with what each candidate does (effect features on a determinization of the seat's "
          "view), six expert-iteration rounds: plays every decision with no scripted agent, wins 0.30 against "
          "three heuristics (results/training/values_effects/README.md)"),
    Model("values-league-4p", "training/values_league/values.npz", "candidate-values", 4, 5,
          "values-effects-4p's learner with labels from games against a league of every scripted anchor "
          "(seated rollouts) and a small cost of the game's length (end_bonus): plays every decision with no "
          "scripted agent, at or above fair share against every field of the panel "
          "(results/training/values_league/README.md)"),
    Model("values-selfplay-4p", "training/values_selfplay/values.npz", "candidate-values", 4, 5,
          "values-league-4p's learner taught by a deeper search (three turns of rollout instead of one) against "
          "a league of the search, every scripted anchor and its own past generations, with destination "
          "features and four expert-iteration rounds: plays every decision with no scripted agent, the "
          "strongest advice-free network (results/training/values_selfplay/README.md)"),
    Model("values-selfplay-3p", "training/values_selfplay/3p/values.npz", "candidate-values", 3, 5,
          "values-selfplay-4p's recipe for 3 players (1,000 first labelled games, two expert-iteration rounds) with "
          "destination features and a stall bonus: plays every decision with no scripted agent "
          "(results/training/values_selfplay/README.md)"),
    Model("values-selfplay-2p", "training/values_selfplay/2p/values.npz", "candidate-values", 2, 5,
          "values-selfplay-4p's recipe for 2 players (1,000 first labelled games, ten expert-iteration rounds, the "
          "last fit on the rounds' labels alone) with destination features and a labelling league that draws the "
          "scripted anchors by the network's results against them (prioritized fictitious self-play): plays every "
          "decision with no scripted agent (results/training/values_selfplay/README.md)"),
    Model("dmc-4p", "generations/4p/agent.npz", "action-values", 4, 5,
          "iterated Deep Monte-Carlo self-play, generation 10 of train/configs/generations_4p.json: plays every "
          "decision alone, but wins almost nothing against the scripted agents yet (results/generations/README.md)"),
)}
