"""Labelled games give every seat its own observation (issue 38).

An opponent that reads observations (a network, unlike the scripted agents) must be handed the observation
of its own seat, as in any game (the agent protocol), never the searched seat's; and each labelled
decision records the searched seat's observation of that very position. Checked against an observer the
test runs itself on the game being played, not against what play_labelled recorded.
"""

import numpy as np

import fifthave.train.candidate_values as candidate_values
from fifthave.agents.registry import AGENT_FACTORIES
from fifthave_env.observation import Observer
from fifthave.train.candidate_values import CandidateValueConfig, play_labelled

LAYOUT = 1


class RecordingGame(candidate_values.Game):
    """The game play_labelled plays, with every seat's own observation before each move (seat, observation)."""

    played = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        RecordingGame.played.append(self)
        self.before_moves = []

    def apply(self, action):
        self.before_moves.append((self.actor, Observer(self.config, version=LAYOUT).observe(self, self.actor)))
        return super().apply(action)


class ObservationReader:
    """An opponent that reads its observation (reads_view False) and checks it is its own seat's."""

    name = "observation-reader"
    observation_layout = LAYOUT  # the layout it reads (an agent that declares none gets layout 0)
    checked = 0
    seats = set()

    def reset(self, config, seat, rng):
        self.seat, self.rng = seat, rng
        ObservationReader.seats.add(seat)

    def act(self, observation, action_mask):
        game = RecordingGame.played[-1]
        assert game.actor == self.seat
        own = Observer(game.config, version=LAYOUT).observe(game, self.seat)
        assert np.array_equal(observation, own), f"seat {self.seat} was handed another seat's observation"
        assert np.array_equal(action_mask, game.action_mask())
        ObservationReader.checked += 1
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


def test_opponents_get_their_own_observation_and_labels_record_the_searched_seats(monkeypatch):
    monkeypatch.setitem(AGENT_FACTORIES, "observation-reader", ObservationReader)
    monkeypatch.setattr(candidate_values, "Game", RecordingGame)
    config = CandidateValueConfig(samples=1, observation_layout=LAYOUT, games=1, held_out_games=1, workers=1,
                                  eval_games=0, num_players=3, groups=["bid", "board"],
                                  opponents=["observation-reader"])
    ObservationReader.checked, ObservationReader.seats = 0, set()
    observations = play_labelled(config, 11).observations
    game = RecordingGame.played[-1]
    assert ObservationReader.checked > 20 and len(observations) > 5
    (seat,) = set(range(3)) - ObservationReader.seats  # the searched seat
    own = [obs for s, obs in game.before_moves if s == seat]
    others = [obs for s, obs in game.before_moves if s != seat]
    position = 0
    for label in observations:  # each label is the searched seat's observation at one of its decisions, in order
        while position < len(own) and not np.array_equal(own[position], label):
            position += 1
        assert position < len(own), "a labelled observation is not the searched seat's own"
        position += 1
    assert not any(np.array_equal(label, obs) for label in observations[:5] for obs in others)

