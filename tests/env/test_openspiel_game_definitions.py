"""The OpenSpiel adapter's edges: every error of deserialize_game_and_state in full (untrusted text),
the resampler's seed and histories, the observation string. Written against mutmut's survivors of
issue 38 (docs/mutation.md)."""

import hashlib
import json

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from fifthave.agents.tournament import deal_seed  # noqa: E402
from fifthave_env import openspiel_game  # noqa: E402  (registers fifth_avenue)
from fifthave_env.engine import Game  # noqa: E402
from fifthave_env.engine import checks, safejson  # noqa: E402
from fifthave_env.engine.actions import NUM_ACTIONS  # noqa: E402
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


def message(function, *args, **kwargs):
    """The message the engine's checks give for this value: the expected text of a refused part."""
    with pytest.raises(ValueError) as error:
        function(*args, **kwargs)
    return str(error.value)


def test_every_refused_part_of_a_serialized_state_is_named_in_full():
    game = pyspiel.load_game("fifth_avenue", {"players": 3})
    state = played_state(game, 40)
    good = json.loads(state.serialize())
    longest = game.max_game_length()

    def refused(**changes):
        data = json.loads(json.dumps(good))
        data.update(changes)
        return message(game.deserialize_state, json.dumps(data))

    def refusal_or_none(**changes):
        data = dict(good, **changes)
        try:
            game.deserialize_state(json.dumps(data))
        except ValueError as error:
            return str(error)
        return ""

    deep = "[" * 9 + "]" * 9
    assert message(game.deserialize_state, deep) == message(safejson.loads, deep, "a serialized fifth_avenue state",
                                                            max_depth=8)
    assert message(game.deserialize_state, '{"a": 1}') == message(
        checks.mapping, "the serialized state", {"a": 1}, ("fifth_avenue_state", "history", "game", "histories"))
    assert refused(fifth_avenue_state=True) == "the serialized state is of format True of type bool; this version reads 1"
    assert refused(history="x") == message(checks.sequence, "the serialized state's history", "x")
    assert refused(history=[[0, 0]] * (longest + 1)) == (
        f"the serialized state's history holds {longest + 1} actions; a game has at most {longest}")
    assert "holds" not in refusal_or_none(history=[[0, 0]] * longest)  # the longest game's length is read
    for pair, expected in (([3, 0], message(checks.integer, "history[0][0] (player)", 3, 0, 2)),
                           ([-1, 0], message(checks.integer, "history[0][0] (player)", -1, 0, 2)),
                           ([0, NUM_ACTIONS], message(checks.integer, "history[0][1] (action)", NUM_ACTIONS, 0,
                                                      NUM_ACTIONS - 1)),
                           ([0, -1], message(checks.integer, "history[0][1] (action)", -1, 0, NUM_ACTIONS - 1))):
        assert refused(history=[pair]) == expected
    other = played_state(pyspiel.load_game("fifth_avenue", {"players": 2, "max_turns": 299}), 10).serialize()
    assert message(game.deserialize_state, other) == ("the serialized state is a game with num_players=2, "
                                                      "max_turns=299; this game has num_players=3, max_turns=300")
    four = good["histories"] + [good["histories"][0]]
    assert refused(histories=four) == message(checks.sequence, "the serialized state's histories", four, 3)
    assert refused(histories=["x"] + good["histories"][1:]) == message(checks.sequence, "histories[0]", "x")
    long_history = ["seen by 1"] + good["histories"][0] * (longest // len(good["histories"][0]) + 3)
    long_history = long_history[:longest + 3]
    assert refused(histories=[long_history] + good["histories"][1:]) == (
        f"histories[0] holds {longest + 3} entries; at most {longest + 2}")
    assert "entries" not in refusal_or_none(histories=[long_history[:longest + 2]] + good["histories"][1:])


def test_observers_refuse_what_they_cannot_give_in_full():
    game = pyspiel.load_game("fifth_avenue", {"players": 2})
    assert message(game.make_py_observer, None, {"x": 1}) == "fifth_avenue observers take no parameters, got {'x': 1}"
    hidden = pyspiel.IIGObservationType(perfect_recall=False, public_info=False,
                                        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER)
    assert message(game.make_py_observer, hidden) == (
        f"fifth_avenue observes one player's view (public_info=True, private_info=SINGLE_PLAYER); got {hidden}")
    assert type(game.make_py_observer()) is openspiel_game.FifthAvenueObserver
    assert game.make_py_observer().tensor.dtype == np.float32  # OpenSpiel's Python observers: float32 tensors


def test_a_serialized_state_is_compact_json():
    state = played_state(pyspiel.load_game("fifth_avenue", {"players": 2}), 10)
    text = state.serialize()
    assert text == json.dumps(json.loads(text), separators=(",", ":"))


def test_game_facts_and_histories_follow_openspiels_conventions():
    """Utilities in [-1, 1] and no chance nodes (the deal is fixed by the seed), no legal
    actions for a player not to move, the k-th deal is the tournament's deal k of the same seed, and
    each history starts with the deal's observation, action -1, digested from the latest layout."""
    game = pyspiel.load_game("fifth_avenue", {"players": 3, "seed": 4})
    assert (game.min_utility(), game.max_utility(), game.max_chance_outcomes()) == (-1.0, 1.0, 0)
    assert [game.deal_seed(k) for k in range(3)] == [deal_seed(4, k) for k in range(3)]
    state = played_state(game, 12)
    assert all(state.legal_actions(p) == [] for p in range(3) if p != state.current_player())
    first = Game(state.game.config, seed=game.deal_seed(0))
    observer = Observer(first.config, version=LATEST)
    for p in range(3):
        digest = hashlib.blake2b(observer.observe(first, p).tobytes(), digest_size=8).hexdigest()
        assert state.histories[p][0] == f"-1:{digest}"


def test_the_game_line_and_history_entries_are_refused_in_full():
    game = pyspiel.load_game("fifth_avenue", {"players": 3})
    line = played_state(game, 5).serialize()
    with pytest.raises(pyspiel.SpielError) as spiel_error:
        pyspiel.game_parameters_from_string("fifth_avenue(players=3")
    assert error_of(f"[Meta]\n[Game]\nfifth_avenue(players=3\n[State]\n{line}\n") == (
        f"the serialized game is not a game string: {spiel_error.value}")
    assert error_of(f"[Meta]\n[Game]\nkuhn_poker()\n[State]\n{line}\n") == (
        "the serialized game must be fifth_avenue with parameters among players, board, max_turns, seed, got "
        + checks.shown("kuhn_poker()"))
    assert error_of(f"[Meta]\n[Game]\nfifth_avenue(players=x)\n[State]\n{line}\n") == message(
        checks.integer, "the serialized game's parameter players", "x")
    data = json.loads(line)
    data["histories"][1][0] = "bogus"
    assert message(game.deserialize_state, json.dumps(data)) == (
        "histories[1][0] must be 'ACTION:DIGEST' (16 hex digits) or 'seen by SEAT', got " + checks.shown("bogus"))
