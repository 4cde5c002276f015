"""The OpenSpiel adapter's edges: every error of deserialize_game_and_state in full (untrusted text),
the resampler's seed and histories, the observation string. Written against mutmut's survivors of
issue 38 (docs/mutation.md)."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from fifthave_env import openspiel_game  # noqa: E402  (registers fifth_avenue)
from fifthave_env.engine import safejson  # noqa: E402
from fifthave_env.engine.determinize import determinize  # noqa: E402
from fifthave_env.observation import LATEST, Observer  # noqa: E402

SECTIONS_ERROR = ("the serialized game and state must hold the sections [Meta], [Game], [State] with one line of "
                  "game and one of state (serialize_game_and_state writes it)")
ORDER_ERROR = "the serialized game and state has the sections out of order: [Meta], [Game], [State] expected, once each"


def played_state(game, steps, seed=0):
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def error_of(text):
    with pytest.raises(ValueError) as error:
        openspiel_game.deserialize_game_and_state(text)
    return str(error.value)


def test_every_malformed_serialization_gets_its_whole_message():
    game = pyspiel.load_game("fifth_avenue", {"players": 3})
    line = played_state(game, 5).serialize()
    assert error_of(f"[Game]\n[Meta]\n[State]\n{line}\n") == ORDER_ERROR
    assert error_of(f"[Meta]\n[Meta]\n[Game]\nfifth_avenue(players=3)\n[State]\n{line}\n") == ORDER_ERROR
    assert error_of("fifth_avenue(players=3)\n[Meta]\n") == "the serialized game and state must start with [Meta]"
    assert error_of("[Meta]\n[Game]\nfifth_avenue(players=3)\n") == SECTIONS_ERROR  # no [State]
    assert error_of(f"[Meta]\n[Game]\nfifth_avenue(players=3)\nfifth_avenue(players=3)\n[State]\n{line}\n") == \
        SECTIONS_ERROR
    assert error_of(f"[Meta]\n[Game]\nfifth_avenue(players=3)\n[State]\n{line}\n{line}\n") == SECTIONS_ERROR
    assert error_of("[Meta]\n[Game]\nfifth_avenue(players=3)\n[State]\nhistory=\n__dict__=x\n") == (
        "this is pyspiel.serialize_game_and_state's text, whose state is a pickle, which is never read: write it "
        "with fifthave_env.openspiel_game.serialize_game_and_state")
    with pytest.raises(TypeError) as error:
        openspiel_game.deserialize_game_and_state(b"[Meta]")
    assert str(error.value) == "a serialized game and state must be a str, got b'[Meta]' of type bytes"


def test_the_size_limit_is_inclusive():
    at_limit = "#" * safejson.MAX_BYTES  # a comment line as long as allowed: read, and found empty
    assert error_of(at_limit) == SECTIONS_ERROR
    assert error_of(at_limit + "#") == (f"the serialized game and state holds {safejson.MAX_BYTES + 1:,} characters; "
                                        f"at most {safejson.MAX_BYTES:,} are read")


def test_resampling_is_determinize_seeded_by_the_sampler_and_keeps_the_histories_apart():
    game = pyspiel.load_game("fifth_avenue", {"players": 3})
    state = played_state(game, 40)
    for u in (0.25, 0.5):
        sample = state.resample_from_infostate(1, lambda: u)
        expected = determinize(state.game, 1, np.random.default_rng(int(u * (1 << 53))))
        assert sample.game.to_dict() == expected.to_dict()
    assert (state.resample_from_infostate(1, lambda: 0.25).game.to_dict() !=
            state.resample_from_infostate(1, lambda: 0.5).game.to_dict())  # the sampler chooses the sample
    sample = state.resample_from_infostate(1, lambda: 0.25)
    mine = list(state.histories[1])
    assert [list(h) for h in sample.histories] == [["seen by 1"] + mine, mine, ["seen by 1"] + mine]


def test_the_observation_string_lists_the_observations_nonzero_entries():
    game = pyspiel.load_game("fifth_avenue", {"players": 2})
    state = played_state(game, 25)
    observer = Observer(state.game.config, version=LATEST)
    for player in range(2):
        obs = observer.observe(state.game, player)
        expected = " ".join(f"{i}:{obs[i]:g}" for i in np.flatnonzero(obs))
        assert state.observation_string(player) == expected and expected.count(" ") >= 10
