"""The saved-game format by its definitions (docs/guide.md, "The saved-game format"; the rulebook's
counts): every field's type, length and range, checked at each bound, and the whole error message
of each refusal; round trips of a few positions of every configuration. Fast (no whole games per
test): the guard set of the mutation run of engine/savefile.py (docs/mutation.md)."""

import copy
import functools
import json

import numpy as np
import pytest

from fifthave_env.engine import Game, GameConfig, savefile
from fifthave_env.engine.savefile import SavedGameError, SavedGameTypeError

SPC = 12  # skyscrapers per color other than the default 18, so a bound of 18 written in the code shows
MAX_TURNS = 60
CONFIGS = {  # 2 players with Alea and a random start; 4 players starting with seat 0 (R11, R25)
    "2p": dict(num_players=2, board=6, random_start=True, skyscrapers_per_color=SPC, max_turns=MAX_TURNS),
    "4p": dict(num_players=4, board=5, random_start=False, skyscrapers_per_color=SPC, max_turns=MAX_TURNS),
}


@functools.cache
def _record(name):
    game = Game(GameConfig(**CONFIGS[name]), seed=7)
    return json.dumps(game.to_dict())


def record(name):
    return json.loads(_record(name))


def expected_fields(n, spc, random_start, max_turns):
    """Field -> (kind, ...) by the documented format: seats 0..n-1, Alea 4 (2 players only), plots 0-41,
    7 districts, locations 0-8 (Central Park 7), shop types 0-3, 5 colors, 18 card kinds, value indexes
    0-2, the row's 20 slots, 9 unused tiles, 110 cards, bids up to 302 (one color and every black card)."""
    owners = [-1, *range(n)] + ([4] if n == 2 else [])
    seat_ints = lambda low, high: ("ints", n, low, high)  # noqa: E731
    kinds = ("ints", 18, 0, None)
    return {
        "plot_shops": ("each", 42, ("ints", None, 0, 3, 2)),
        "plot_owner": ("each", 42, ("in", owners)),
        "plot_height": ("ints", 42, 0, spc),
        "closed": ("each", 7, ("bool",)),
        "closed_mask": ("int", 0, 127),
        "markers": ("each", 2, ("each", 7, ("bool",))),
        "comm_pos": ("ints", 2, 0, 8),
        "row": ("ints", 20, -1, 3),
        "unused_tiles": ("ints", 9, 0, 3),
        "box": ("ints", None, 0, 3, 20),
        "removed_shops": ("int", 0, 36),
        "shops_placed": ("int", 0, 20),
        "pending_tile": ("int", -1, 3),
        "piles": ("each", 5, ("ints", None, 0, 2, 12)),
        "pile_known": ("ints", 5, 0, 12),
        "black": ("ints", None, 0, 8, 50),
        "black_seen": ("ints", 3, 0, None),
        "black_faceup": ("int", 0, None),
        "hands": ("each", n, kinds),
        "known": ("each", n, kinds),
        "scores": seat_ints(0, None),
        "reserve": seat_ints(0, spc),
        "supply": seat_ints(0, spc),
        "alea_supply": ("int", 0, spc if n == 2 else 0),
        "cp_skyscrapers": seat_ints(0, spc),
        "removed_skyscrapers": ("ints", 5, 0, spc),
        "owned": ("each", n, ("ints", 7, -1, 41)),
        "stops": ("int", 0, 2),
        "first_player": ("int", 0, n - 1 if random_start else 0),
        "setup_order": ("ints", None, 0, n - 1, 2 * n),
        "turn": ("int", 0, max_turns),
        "active": ("int", 0, n - 1),
        "turn_action": ("int", -1, 3),
        "first_draw": ("int", -1, 4),
        "final_move": ("bool",),
        "auc_queue": ("ints", None, 0, 7, 8),
        "auc_comm": ("int", -1, 1),
        "auc_loc": ("int", -1, 7),
        "auc_full": ("bool",),
        "auc_allowed": seat_ints(0, 31),
        "auc_passed": ("each", n, ("bool",)),
        "auc_cards": ("each", n, kinds),
        "auc_color": seat_ints(-1, 4),
        "auc_total": seat_ints(0, 302),
        "auc_high": ("int", 0, 302),
        "auc_high_bidder": ("in", owners),
        "auc_turns": ("int", 0, 110 + n),
        "auc_alea_cards": ("ints", None, 0, 2, 4),
        "auc_alea_state": ("in", [0, 1, 2] if n == 2 else [2]),
        "auc_cp_color": ("int", -1, 4),
        "auc_winner": ("in", owners),
        "auc_last_bid": kinds,
        "auc_bid_color": ("int", -1, 4),
        "central_park_draw": ("ints", None, 0, 3, 3),
        "terminated": ("bool",),
        "truncated": ("bool",),
        "winners": ("ints", None, 0, n - 1, n),
        "decision": ("int", 0, 9),
        "actor": ("int", -1, n - 1),
    }


def range_text(low, high):
    return f">= {low}" if high is None else f"from {low} to {high}"


def item_spec(spec):
    return ("int", *spec[2:4]) if spec[0] == "ints" else spec[2]


def filled(spec, size):
    """A list of ``size`` valid items of a list field."""
    return [first_valid(item_spec(spec)) for _ in range(size)]


def first_valid(spec):
    kind = spec[0]
    if kind == "bool":
        return False
    if kind == "int":
        return spec[1]
    if kind == "in":
        return spec[1][0]
    return filled(spec, spec[1] or 0)


def cases(name, spec):
    """(value, expected error or None) for the field ``name`` of ``spec``: each bound, just outside it,
    the wrong type, the wrong length, the most items; the items of a list through its last one."""
    kind = spec[0]
    field = f"saved game field {name}"
    if kind == "bool":
        return [(True, None), (False, None),
                (1, (SavedGameTypeError, f"{field} must be True or False, got 1 of type int"))]
    if kind == "int":
        low, high = spec[1:]
        out = [(low, None), (low - 1, (SavedGameError, f"{field} must be an int {range_text(low, high)}, got {low - 1}")),
               (float(low), (SavedGameTypeError,
                             f"{field} must be an int {range_text(low, high)}, got {float(low)} of type float"))]
        if high is None:  # unbounded: any int of up to 3321 bits (1,000 digits)
            out += [(2 ** 3321 - 1, None),
                    (2 ** 3321, (SavedGameError, f"saved game: {name} must be an int >= {low} of at most 1,000 "
                                                 "digits, got <an int of about 1001 digits>"))]
        else:
            out += [(high, None), (high + 1, (SavedGameError, f"{field} must be an int from {low} to {high}, "
                                                              f"got {high + 1}"))]
        return out
    if kind == "in":
        allowed = spec[1]
        low, high = min(allowed), max(allowed)
        out = [(v, None) for v in allowed]
        out += [(v, (SavedGameError, f"saved game: {name} must be one of {allowed}, got {v}"))
                for v in range(low, high + 1) if v not in allowed]
        out += [(v, (SavedGameError, f"{field} must be an int from {low} to {high}, got {v}")) for v in (low - 1, high + 1)]
        return out
    length, most = spec[1], (spec[4] if kind == "ints" and len(spec) > 4 else None)
    a_list = "a list" if length is None else f"a list of {length} items"
    out = [("abc", (SavedGameTypeError, f"{field} must be {a_list}, got 'abc' of type str"))]
    if length is not None:
        out.append(([], (SavedGameError, f"{field} must be a list of {length} items, got 0 items: [] of type list")))
    else:
        out.append(([], None))
    if most is not None:
        out += [(filled(spec, most), None),
                (filled(spec, most + 1), (SavedGameError, f"saved game: {name} holds at most {most} items, "
                                                          f"got {most + 1}"))]
    size = length if length is not None else most
    for value, error in cases(f"{name}[{size - 1}]", item_spec(spec)):
        container = filled(spec, size)
        container[size - 1] = value
        out.append((container, error))
    return out


ALL_CASES = [(config, field, i)
             for config, kw in CONFIGS.items()
             for field, spec in expected_fields(kw["num_players"], SPC, kw["random_start"], MAX_TURNS).items()
             for i in range(len(cases(f"state.{field}", spec)))]


@pytest.mark.parametrize("config,field,i", ALL_CASES,
                         ids=[f"{c}-{f}-{i}" for c, f, i in ALL_CASES])
def test_every_field_is_read_within_its_documented_range_and_refused_outside_it(config, field, i):
    kw = CONFIGS[config]
    spec = expected_fields(kw["num_players"], SPC, kw["random_start"], MAX_TURNS)[field]
    value, error = cases(f"state.{field}", spec)[i]
    data = record(config)
    data["state"][field] = value
    expected = copy.deepcopy(value)
    before = repr(data)
    if error is None:
        _, _, state = savefile.read(data, GameConfig)
        assert state[field] == expected and type(state[field]) is type(expected)
        if isinstance(expected, list):  # a fresh copy: nothing of the input is kept
            assert state[field] is not data["state"][field]
            if expected and isinstance(expected[0], list):
                assert state[field][0] is not data["state"][field][0]
        assert list(state) == list(savefile.STATE_FIELDS)
    else:
        with pytest.raises(error[0]) as raised:
            savefile.read(data, GameConfig)
        assert type(raised.value) is error[0] and str(raised.value) == error[1]
    assert repr(data) == before


def test_the_field_table_covers_exactly_the_saved_state():
    for kw in CONFIGS.values():
        fields = expected_fields(kw["num_players"], SPC, kw["random_start"], MAX_TURNS)
        assert list(fields) == list(savefile.STATE_FIELDS) == list(record("2p")["state"])


# ---- top level, config and generator: whole messages ------------------------------------------------

def refusal(data, error=SavedGameError):
    before = repr(data)
    with pytest.raises(error) as raised:
        Game.from_dict(data)
    assert repr(data) == before
    return type(raised.value), str(raised.value)


def test_top_level_config_and_generator_refusals_in_full():
    data = record("2p")
    data["format"] = 2
    assert refusal(data) == (SavedGameError, "saved game: unknown saved-game format 2 of type int; this version "
                                             "reads 1")
    data["format"] = True
    assert refusal(data)[1] == "saved game: unknown saved-game format True of type bool; this version reads 1"
    exactly = "it must hold exactly 'format', 'config', 'rng', 'state'"
    data = record("2p")
    del data["rng"]
    assert refusal(data) == (SavedGameError, f"saved game field (top level) lacks the key(s) 'rng'; {exactly}")
    data = record("2p")
    data["extra"] = 1
    assert refusal(data) == (SavedGameError, f"saved game field (top level) has the unknown key(s) 'extra'; {exactly}")
    data = record("2p")
    data["config"] = []
    assert refusal(data) == (SavedGameTypeError, "saved game field config must be a dict, got [] of type list")
    data = record("2p")
    del data["config"]["board"]
    assert refusal(data) == (SavedGameError, "saved game field config lacks the key(s) 'board'; it must hold exactly "
                             "'num_players', 'board', 'layout', 'row_groups', 'skyscrapers_per_color', 'random_start', "
                             "'max_turns'")
    data = record("2p")
    data["state"] = {k: v for k, v in data["state"].items() if k != "actor"}
    assert refusal(data)[1].startswith("saved game field state lacks the key(s) 'actor'; it must hold exactly "
                                       "'plot_shops', 'plot_owner',")
    data = record("2p")
    data["config"]["num_players"] = 5
    assert refusal(data) == (SavedGameError, "saved game field config.num_players must be one of 2, 3, 4, got 5 of type int")
    data["config"]["num_players"] = "2"
    assert refusal(data) == (SavedGameTypeError, "saved game field config.num_players must be one of 2, 3, 4, got "
                                                 "'2' of type str")
    data = record("2p")
    data["rng"]["bit_generator"] = "MT19937"
    assert refusal(data) == (SavedGameError, "saved game field rng.bit_generator must be one of PCG64, PCG64DXSM, got "
                                             "'MT19937' of type str")
    data["rng"]["bit_generator"] = ["PCG64"]
    assert refusal(data)[1].endswith("got ['PCG64'] of type list")
    for key, bad, message in (
            ("state", -1, "saved game field rng.state.state.state must be an int from 0 to "
                          f"{(1 << 128) - 1}, got -1"),
            ("inc", 1 << 128, f"saved game field rng.state.state.inc must be an int from 0 to {(1 << 128) - 1}, "
                              f"got {1 << 128}")):
        data = record("2p")
        data["rng"]["state"]["state"][key] = bad
        assert refusal(data) == (SavedGameError, message)
    for key, bad, high in (("has_uint32", 2, 1), ("uinteger", 1 << 32, (1 << 32) - 1)):
        data = record("2p")
        data["rng"]["state"][key] = bad
        assert refusal(data) == (SavedGameError, f"saved game field rng.state.{key} must be an int from 0 to {high}, "
                                                 f"got {bad}")
    data = record("2p")
    data["rng"]["state"]["bit_generator"] = "PCG64DXSM"
    assert refusal(data) == (SavedGameError, "saved game field rng.state is not a state of numpy's PCG64: ValueError: "
                                             "state must be for a PCG64 RNG")
    data = record("2p")
    data["rng"]["state"]["state"] = {"state": 1}
    assert refusal(data) == (SavedGameError, "saved game field rng.state.state lacks the key(s) 'inc'; it must hold "
                                             "exactly 'state', 'inc'")
    data = record("2p")
    data["config"]["max_turns"] = 0
    assert refusal(data) == (SavedGameError, "saved game field config.max_turns must be an int from 1 to 1000000, "
                                             "got 0")
    data["config"]["board"] = [5]
    assert refusal(data) == (SavedGameTypeError, "saved game field config.board must be one of 5, 6, got [5] of type "
                                                 "list")


def test_the_generator_a_game_is_saved_with_continues_the_same_draws():
    for bit_generator in (np.random.PCG64, np.random.PCG64DXSM):
        game = Game(GameConfig(num_players=3), rng=np.random.Generator(bit_generator(11)))
        game.rng.integers(1 << 30, size=3)  # has_uint32 and uinteger as a used generator leaves them
        game.rng.integers(1 << 16, dtype=np.uint16)
        restored = Game.from_dict(json.loads(json.dumps(game.to_dict())))
        assert type(restored.rng.bit_generator) is bit_generator
        assert restored.rng.bit_generator.state == game.rng.bit_generator.state
        assert restored.rng.integers(1 << 30, size=5).tolist() == game.rng.integers(1 << 30, size=5).tolist()


# ---- round trips: a few positions of every configuration and decision --------------------------------

@functools.cache
def positions():
    """Saved positions of every player count and board, with and without a random start, at the first
    position of each decision, mid-auction and mid-turn, and at the end (terminated or truncated)."""
    out = []
    for n in (2, 3, 4):
        for board in (5, 6):
            for max_turns in (300, 6):  # played out, and truncated
                config = GameConfig(num_players=n, board=board, random_start=board == 6, max_turns=max_turns,
                                    row_groups=(1, 2, 3, 4, 1, 1, 2, 6) if max_turns == 6 else (3, 2, 3, 2, 3, 2, 3, 2))
                game = Game(config, seed=n * 10 + board)
                rng = np.random.default_rng(n)
                seen = set()
                while not game.is_over:
                    key = (game.decision, game.auc_loc >= 0, game.final_move)
                    if key not in seen:
                        seen.add(key)
                        out.append((game.to_dict(), game.clone()))
                    legal = game.legal_actions()
                    game.apply(legal[rng.integers(len(legal))])
                out.append((game.to_dict(), game.clone()))
    return out


def test_positions_of_every_configuration_load_back_identically_and_play_on_the_same():
    kinds = set()
    for record_, original in positions():
        game = original.clone()  # the cached positions stay as they are (mutmut runs the tests twice in a process)
        data = json.loads(json.dumps(record_))
        restored = Game.from_dict(data)
        assert restored.to_dict() == record_
        assert restored.first_player == game.first_player
        kinds.add((restored.n, restored.decision, restored.terminated, restored.truncated))
        if not game.is_over:  # the same legal actions and draws from here on
            assert restored.legal_actions() == game.legal_actions()
            action = game.legal_actions()[-1]
            restored.apply(action)
            game.apply(action)
            assert restored.to_dict() == game.to_dict()
    for n in (2, 3, 4):  # every decision, both ends
        assert {d for m, d, _, _ in kinds if m == n} == set(range(10))
        assert {(t, u) for m, d, t, u in kinds if m == n and d == 9} == {(True, False), (False, True)}


def test_first_player_of_a_random_start_is_kept_and_without_one_is_seat_0():
    """R11: without a random start seat 0 (the youngest player) begins; with one, any seat may."""
    for n in (2, 3, 4):
        firsts = set()
        for seed in range(30):
            game = Game(GameConfig(num_players=n, random_start=True), seed=seed)
            record_ = game.to_dict()
            firsts.add(Game.from_dict(record_).first_player)
            if game.first_player:
                record_["config"]["random_start"] = False
                assert refusal(record_) == (SavedGameError, f"saved game field state.first_player must be an int "
                                                            f"from 0 to 0, got {game.first_player}")
        assert firsts == set(range(n))
