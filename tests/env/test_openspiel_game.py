"""The OpenSpiel adapter: full games with OpenSpiel's bots, returns as our engine's, resampling."""

import base64
import hashlib
import json
import os
import pickle
from copy import deepcopy

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from fifthave_env import openspiel_game  # noqa: E402  (registers fifth_avenue)
from fifthave_env.engine import Game, GameConfig  # noqa: E402
from fifthave_env.env_common import end_reward  # noqa: E402
from fifthave_env.observation import LATEST, OBS_SIZES, Observer  # noqa: E402


def replay_in_engine(config, seed, actions):
    game = Game(config, seed=seed)
    for action in actions:
        game.apply(action)
    return game


def play(game, bots):
    state = game.new_initial_state()
    actions = []
    while not state.is_terminal():
        action = int(bots[state.current_player()].step(state))
        actions.append(action)
        state.apply_action(action)
    return state, actions


@pytest.mark.parametrize("players,board", [(2, 5), (4, 6)])
def test_random_bots_play_full_games_with_our_engines_returns(players, board):
    game = pyspiel.load_game("fifth_avenue", {"players": players, "board": board, "seed": 3})
    assert game.get_type().short_name == "fifth_avenue" and game.num_players() == players
    bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(players)]
    for k in range(2):
        state, actions = play(game, bots)
        engine = replay_in_engine(GameConfig(num_players=players, board=board), game.deal_seed(k), actions)
        assert engine.is_over and engine.scores == state.game.scores
        assert state.returns() == [end_reward("win_loss", engine, p) for p in range(players)]
        assert sorted(set(state.returns())) in ([-1.0, 1.0], [1.0], [0.0])


def test_observation_tensor_is_ours_and_infostates_have_perfect_recall():
    game = pyspiel.load_game("fifth_avenue", {"players": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    seen = [set() for _ in range(3)]
    for _ in range(150):
        for p in range(3):
            tensor = np.asarray(state.observation_tensor(p), np.float32)
            assert tensor.shape == (OBS_SIZES[LATEST],)
            assert np.array_equal(tensor, Observer(state.game.config, version=LATEST).observe(state.game, p))
            info = state.information_state_string(p)
            assert info not in seen[p]  # a new step is a new information state (perfect recall)
            seen[p].add(info)
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))


def test_information_states_are_the_same_whenever_they_are_asked_for():
    """Histories are recorded only when read: asked at every step, only at the end, or on
    clones made along the way, a player's information state string is the same."""
    game = pyspiel.load_game("fifth_avenue", {"players": 4, "seed": 3})
    every_step = game.new_initial_state()
    at_the_end = every_step.clone()  # the same deal
    rng = np.random.default_rng(3)
    clones = []
    for step in range(120):
        assert every_step.information_state_string(step % 4) is not None
        if step % 37 == 5:
            clones.append((at_the_end.clone(), list(at_the_end.history())))
        action = int(rng.choice(every_step.legal_actions()))
        every_step.apply_action(action)
        at_the_end.apply_action(action)
    for p in range(4):
        assert at_the_end.information_state_string(p) == every_step.information_state_string(p)
    for copy, history in clones:
        assert copy.history() == history
        recorded = every_step.information_state_string(1).split("\n")[:len(history) + 1]
        assert copy.information_state_string(1).split("\n") == recorded


def test_resampling_keeps_the_players_information():
    game = pyspiel.load_game("fifth_avenue", {"players": 4})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(200):
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
    sampler = pyspiel.UniformProbabilitySampler(0., 1.)
    player = state.current_player()
    differs = 0
    for _ in range(5):
        sample = state.resample_from_infostate(player, sampler)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.observation_tensor(player) == state.observation_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
        differs += sample.game.hands != state.game.hands
    assert differs > 0


def test_ismcts_bot_plays_with_our_resampler():
    players = 3
    game = pyspiel.load_game("fifth_avenue", {"players": players, "max_turns": 6, "seed": 5})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(0))
    bots = [bot] + [pyspiel.make_uniform_random_bot(p, p) for p in range(1, players)]
    state, actions = play(game, bots)
    engine = replay_in_engine(GameConfig(num_players=players, max_turns=6), game.deal_seed(0), actions)
    assert engine.is_over and engine.scores == state.game.scores
    assert state.returns() == [end_reward("win_loss", engine, p) for p in range(players)]


def test_bad_parameters_are_rejected():
    with pytest.raises(Exception, match="num_players must be one of 2, 3, 4"):
        pyspiel.load_game("fifth_avenue", {"players": 5})
    with pytest.raises(Exception, match="seed must be an int >= 0, got -1"):
        pyspiel.load_game("fifth_avenue", {"seed": -1})


def test_clone_keeps_history_and_uses_up_no_deal():
    game = pyspiel.load_game("fifth_avenue", {"players": 4, "seed": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    for _ in range(40):
        state.apply_action(int(rng.choice(state.legal_actions())))
    for copy in (state.clone(), deepcopy(state)):
        assert copy.history() == state.history() and len(copy.history()) == 40
        assert copy.move_number() == state.move_number() == 40
        assert copy.information_state_string(1) == state.information_state_string(1)
        assert copy.game.to_dict() == state.game.to_dict()
        before = state.information_state_string(1)
        copy.apply_action(copy.legal_actions()[0])
        assert len(state.history()) == 40 and state.game.to_dict() != copy.game.to_dict()
        assert state.information_state_string(1) == before  # the histories are the clone's own
    second = game.new_initial_state()  # still the second deal, after two clones
    assert second.game.to_dict() == Game(GameConfig(num_players=4), seed=game.deal_seed(1)).to_dict()


def test_a_clone_of_a_fresh_state_deals_the_same_game():
    """A new state deals on first use; a clone made before that deals the same game."""
    game = pyspiel.load_game("fifth_avenue", {"players": 3, "seed": 5})
    state = game.new_initial_state()
    copy = state.clone()
    assert copy.game.to_dict() == state.game.to_dict() == Game(GameConfig(num_players=3),
                                                              seed=game.deal_seed(0)).to_dict()
    assert copy.information_state_string(2) == state.information_state_string(2)
    copy.apply_action(copy.legal_actions()[0])
    assert state.history() == [] and len(copy.history()) == 1


def test_pickled_games_and_states_play_on_as_the_originals():
    """pickle (multiprocessing, Ray) goes through each object's own state, not pyspiel's, which asks a Python
    game for a C++ RNG state it cannot give; a restored state is the same game, generator included."""
    import pickle

    game = pyspiel.load_game("fifth_avenue", {"players": 3, "seed": 5, "board": 6})
    game.new_initial_state()
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    for move in range(120):
        state.apply_action(int(rng.choice(state.legal_actions())))
        if move == 60:
            state.information_state_string(0)  # histories recorded up to here, the rest only noted
    restored = pickle.loads(pickle.dumps(state))
    restored_game = restored.get_game()
    assert restored_game.get_parameters() == game.get_parameters() and restored_game._deals == game._deals == 2
    assert restored.history() == state.history() and restored.move_number() == state.move_number()
    assert [restored.information_state_string(p) for p in range(3)] == [state.information_state_string(p)
                                                                      for p in range(3)]
    while not state.is_terminal():  # the same draws from the piles: the engine's generator came along
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        restored.apply_action(action)
    assert restored.game.to_dict() == state.game.to_dict() and restored.returns() == state.returns()
    copy = pickle.loads(pickle.dumps(game))  # the next deal is the original's next deal
    assert copy.new_initial_state().game.to_dict() == game.new_initial_state().game.to_dict()


def played_state(game, steps, seed=0):
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def plays_on_alike(state, copy, seed=1):
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        copy.apply_action(action)
    assert copy.game.to_dict() == state.game.to_dict() and copy.returns() == state.returns()


@pytest.mark.parametrize("players,board,steps", [(2, 6, 0), (3, 5, 150), (4, 6, 400)])
def test_a_serialized_state_reads_back_and_plays_on_as_the_original(players, board, steps):
    game = pyspiel.load_game("fifth_avenue", {"players": players, "board": board, "seed": 7, "max_turns": 60})
    state = played_state(game, steps)
    if steps == 150:
        state.information_state_string(0)  # histories recorded up to here; what follows only noted
        state = played_state(game, 0) if state.is_terminal() else state
        for _ in range(20):
            state.apply_action(state.legal_actions()[-1])
    deals = game._deals
    text = state.serialize()
    json.loads(text)  # one line of JSON, not a pickle
    restored = game.deserialize_state(text)
    assert game._deals == deals  # reading a state deals nothing
    assert restored.history() == state.history() and restored.move_number() == state.move_number()
    assert restored.serialize() == text
    assert [restored.information_state_string(p) for p in range(players)] == \
        [state.information_state_string(p) for p in range(players)]
    plays_on_alike(state, restored)


def test_a_resampled_state_serializes_too():
    game = pyspiel.load_game("fifth_avenue", {"players": 3})
    sample = played_state(game, 80).resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0., 1.))
    restored = game.deserialize_state(sample.serialize())
    assert [restored.information_state_string(p) for p in range(3)] == \
        [sample.information_state_string(p) for p in range(3)]
    plays_on_alike(sample, restored)


def test_openspiels_own_serialization_and_random_sim_test_pass():
    game = pyspiel.load_game("fifth_avenue", {"players": 3, "max_turns": 12, "seed": 2})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    state = played_state(game, 60)
    _, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert copy.history() == state.history() and copy.game.to_dict() == state.game.to_dict()
    # and this module's safe pair of the same layout
    copy_game, copy = openspiel_game.deserialize_game_and_state(openspiel_game.serialize_game_and_state(game, state))
    assert copy_game.get_parameters() == game.get_parameters()
    assert copy.history() == state.history()
    plays_on_alike(state, copy)


class _WritesMarker:
    """Unpickled, it runs a shell command that creates ``path``."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return os.system, (f"touch {self.path}",)


def _b64_pickle(path):
    return base64.b64encode(pickle.dumps({"x": _WritesMarker(path)})).decode()


def test_crafted_texts_are_refused_and_run_nothing(tmp_path):
    """The reported attack (a base64 pickle after __dict__=, as OpenSpiel's default serialization writes)
    and payloads hidden in every part of our format: each refused with a ValueError naming the part, and
    the file the payload would create does not exist."""
    marker = tmp_path / "ran"
    payload = _b64_pickle(marker)
    game = pyspiel.load_game("fifth_avenue", {"players": 3})
    state = played_state(game, 40)
    good = json.loads(state.serialize())

    def edited(**changes):
        data = json.loads(json.dumps(good))
        for path, value in changes.items():
            parent = data
            keys = path.split("/")
            for key in keys[:-1]:
                parent = parent[int(key) if key.isdigit() else key]
            parent[int(keys[-1]) if keys[-1].isdigit() else keys[-1]] = value
        return json.dumps(data)

    crafted = [
        (f"history=0:38\nmove_number=1\n__dict__={payload}", "is not valid JSON"),
        (json.dumps({"__dict__": payload}), "lacks the key"),
        (edited(fifth_avenue_state=payload), "of format"),
        (edited(**{"history/0": [0, payload]}), r"history\[0\]\[1\] \(action\) must be an int"),
        (edited(**{"history/0": payload}), r"history\[0\] must be a list of 2 items"),
        (edited(**{"histories/1/0": payload}), r"histories\[1\]\[0\] must be 'ACTION:DIGEST'"),
        (edited(**{"game/rng/bit_generator": "os.system"}), "rng.bit_generator must be one of"),
        (edited(**{"game/state/hands/0": payload}), r"state.hands\[0\] must be a list"),
        (edited(**{"game/config/max_turns": 299}), "is a game with max_turns=299; this game has max_turns=300"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a": ' + "9" * 5000 + "}", "not valid JSON"),
    ]
    for text, match in crafted:
        with pytest.raises(ValueError, match=match):
            game.deserialize_state(text)
    with pytest.raises(ValueError, match="whose state is a pickle, which is never read"):
        openspiel_game.deserialize_game_and_state("[Meta]\nVersion: 1\n[Game]\nfifth_avenue(players=3)\n[State]\n"
                                                  f"history=\nmove_number=0\n__dict__={payload}\n")
    with pytest.raises(ValueError, match="must be fifth_avenue"):
        openspiel_game.deserialize_game_and_state(f"[Meta]\n[Game]\nkuhn_poker()\n[State]\n{state.serialize()}\n")
    assert not marker.exists()
    assert game.deserialize_state(json.dumps(good)).history() == state.history()  # the untouched text reads


def test_pickled_states_hold_our_json_and_are_read_through_its_checks(monkeypatch):
    """A pickled state is (restore, (game, serialize() text)): unpickling it goes through deserialize_state."""
    game = pyspiel.load_game("fifth_avenue", {"players": 2})
    state = played_state(game, 30)
    restore, (pickled_game, text) = state.__reduce__()
    assert text == state.serialize() and pickled_game is game
    read = []
    monkeypatch.setattr(openspiel_game.FifthAvenueGame, "deserialize_state",
                        lambda self, text: read.append(text) or openspiel_game.FifthAvenueGame._read_state(self, text))
    pickle.loads(pickle.dumps(state))
    assert read == [text]


def test_information_state_tensor_is_the_observation_vector():
    game = pyspiel.load_game("fifth_avenue", {"players": 4, "board": 6})
    assert game.get_type().provides_information_state_tensor
    assert game.information_state_tensor_shape() == [OBS_SIZES[LATEST]]
    state = played_state(game, 90)
    for p in range(4):
        tensor = np.asarray(state.information_state_tensor(p), np.float32)
        assert np.array_equal(tensor, Observer(state.game.config, version=LATEST).observe(state.game, p))
        assert state.information_state_string(p).count("\n") == 90  # the string: the whole history


def test_evaluate_bots_runs_openspiels_ismcts_bot():
    from open_spiel.python.algorithms import evaluate_bots

    game = pyspiel.load_game("fifth_avenue", {"players": 2, "max_turns": 4, "seed": 1})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bots = [openspiel_game.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3,
                                     random_state=np.random.RandomState(0)),
            pyspiel.make_uniform_random_bot(1, 1)]
    for _ in range(2):
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
        assert sorted(set(returns)) in ([-1.0, 1.0], [1.0], [0.0])


# ---- the resampler holds nothing the resampling player does not know (issue 38) ---------------------
# Pairs of states are built by hand from one real state's serialized JSON, differing only in what the
# resampling seat cannot know; the other seats' histories differ as their true histories would (their last
# entry digests their own observation of the edited game). Their resampled states must be identical,
# whole (serialize(): engine game, generator, every player's history): the check trusts neither
# determinize nor the adapter, only the engine's observation (the pair's precondition) and the format.

def _digest(game, seat):
    return hashlib.blake2b(Observer(game.config, version=LATEST).observe(game, seat).tobytes(),
                           digest_size=8).hexdigest()


def _unknown(data, seat, kind):
    return data["state"]["hands"][seat][kind] - data["state"]["known"][seat][kind]


def _swap_black_with_pile(data, seat, others):
    """An opponent's unseen black card and an unseen one of another value in the black pile, swapped."""
    s = data["state"]
    for q in others:
        for v in range(3):
            if _unknown(data, q, 15 + v) > 0:
                for i, entry in enumerate(s["black"]):
                    if entry < 3 and entry != v:  # face down, unseen (cards.FACE_DOWN)
                        s["hands"][q][15 + v] -= 1
                        s["hands"][q][15 + entry] += 1
                        s["black"][i] = v
                        return True
    return False


def _swap_between_hands(data, seat, others):
    """Two opponents' unseen cards of one color and different values, swapped."""
    s = data["state"]
    for a in others:
        for b in others:
            for color in range(5):
                for va in range(3):
                    for vb in range(3):
                        ka, kb = color * 3 + va, color * 3 + vb
                        if a != b and va != vb and _unknown(data, a, ka) > 0 and _unknown(data, b, kb) > 0:
                            s["hands"][a][ka] -= 1
                            s["hands"][a][kb] += 1
                            s["hands"][b][kb] -= 1
                            s["hands"][b][ka] += 1
                            return True
    return False


def _other_generator(data, seat, others):
    words = data["rng"]["state"]["state"]
    words["state"] = (words["state"] + 12345) % (1 << 128)
    return True


HIDDEN_EDITS = {"black card: opponent's hand <-> pile": _swap_black_with_pile,
                "hidden hands of two opponents": _swap_between_hands,
                "generator state": _other_generator}


def _pair(text, seat, edit):
    """(text of the real state, text of the same state with ``edit`` to the hidden parts) or None."""
    data = json.loads(text)
    n = data["game"]["config"]["num_players"]
    others = [q for q in range(n) if q != seat]
    if not edit(data["game"], seat, others):
        return None
    original, edited = Game.from_dict(json.loads(text)["game"]), Game.from_dict(data["game"])
    assert np.array_equal(Observer(original.config, version=LATEST).observe(original, seat),
                          Observer(edited.config, version=LATEST).observe(edited, seat))  # the seat cannot tell
    for q in others:  # the others' true histories: their last observation is of the edited game
        last = data["histories"][q][-1]
        data["histories"][q][-1] = f"{last.split(':')[0]}:{_digest(edited, q)}"
    assert data["histories"][seat] == json.loads(text)["histories"][seat]
    return text, json.dumps(data)


@pytest.mark.parametrize("players,board", [(2, 5), (2, 6), (3, 5), (3, 6), (4, 5), (4, 6)])
def test_resampled_states_hold_nothing_the_seat_cannot_know(players, board):
    game = pyspiel.load_game("fifth_avenue", {"players": players, "board": board, "seed": 11})
    state = game.new_initial_state()
    rng = np.random.default_rng(players * 10 + board)
    tried = set()
    expected = set(HIDDEN_EDITS) - ({"hidden hands of two opponents"} if players == 2 else set())
    for step in range(1500):
        if state.is_terminal() or tried == expected:
            break
        if step >= 25 and step % 7 == 0:
            seat = state.current_player()
            text = state.serialize()
            for name, edit in HIDDEN_EDITS.items():
                if name in tried:
                    continue
                pair = _pair(text, seat, edit)
                if pair is None:
                    continue
                tried.add(name)
                real, other = (game.deserialize_state(t) for t in pair)
                assert real.serialize() != other.serialize()
                if name != "generator state":  # the others' true histories differ too
                    assert [real.information_state_string(q) for q in range(players)] != \
                        [other.information_state_string(q) for q in range(players)]
                for draw in (0.0, 0.3, 0.999):
                    a = real.resample_from_infostate(seat, lambda: draw)
                    b = other.resample_from_infostate(seat, lambda: draw)
                    assert a.serialize() == b.serialize(), name
                    assert [a.information_state_string(q) for q in range(players)] == \
                        [b.information_state_string(q) for q in range(players)]
                    assert a.information_state_string(seat) == real.information_state_string(seat)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert tried == expected
