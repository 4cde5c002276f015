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
from fifthave_env.engine.game import (BID_DECISION, BUILD_DECISION, CHOOSE_ACTION_DECISION, DRAW_COLOR_DECISION,
                                      SHOP_PLOT_DECISION)
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
        below = f"{field} must be an int {range_text(low, high)}, got {low - 1}"
        out = [(low, None), (low - 1, (SavedGameError, below)),
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
        out += [(v, (SavedGameError, f"{field} must be an int from {low} to {high}, got {v}"))
                for v in (low - 1, high + 1)]
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
    assert refusal(data) == (SavedGameError, "saved game field config.num_players must be one of 2, 3, 4, got 5 of "
                                             "type int")
    data["config"]["num_players"] = "2"
    assert refusal(data) == (SavedGameTypeError, "saved game field config.num_players must be one of 2, 3, 4, got "
                                                 "'2' of type str")
    for edit, kind, message in (
            (lambda d: d.update(rng=[1]), SavedGameTypeError,
             "saved game field rng must be a dict, got [1] of type list"),
            (lambda d: d["rng"].pop("state"), SavedGameError,
             "saved game field rng lacks the key(s) 'state'; it must hold exactly 'bit_generator', 'state'"),
            (lambda d: d["rng"].update(state=5), SavedGameTypeError,
             "saved game field rng.state must be a dict, got 5 of type int"),
            (lambda d: d["rng"]["state"].update(x=5), SavedGameError,
             "saved game field rng.state has the unknown key(s) 'x'; it must hold exactly 'bit_generator', 'state', "
             "'has_uint32', 'uinteger'"),
            (lambda d: d["state"].update(black=[0] * 5000), SavedGameError,  # bounded before any field is read
             "saved game field state.black is too large: at most 4,096 values in all are allowed here")):
        data = record("2p")
        edit(data)
        assert refusal(data) == (kind, message)
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
                    key = (game.decision, game.auc_loc >= 0, game.auc_loc == 7, game.final_move, game.turn_action,
                           game.first_draw >= 0)
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


# ---- what ties the fields together: each check of check_consistency, its whole message ------------------

def _find(pred, n=3, board=5):
    for seed in range(40):
        game = Game(GameConfig(num_players=n, board=board), seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            if pred(game):
                return json.dumps(game.to_dict())
            if game.is_over:
                break
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
    raise AssertionError("no position found")


POSITION_KINDS = {  # positions real play reaches (3 players, 5-plot board unless said)
    "turn": lambda: _find(lambda g: g.decision == CHOOSE_ACTION_DECISION and g.turn >= 4),
    "turn6": lambda: _find(lambda g: g.decision == CHOOSE_ACTION_DECISION and g.turn >= 4, board=6),
    "setup2": lambda: _find(lambda g: True, n=2),
    "draw0": lambda: _find(lambda g: g.decision == DRAW_COLOR_DECISION and g.first_draw == 0 and g.turn_action == 0),
    "plot0": lambda: _find(lambda g: g.decision == SHOP_PLOT_DECISION and g.pending_tile == 0),
    "bid": lambda: _find(lambda g: g.decision == BID_DECISION and g.auc_loc < 7 and g.auc_high_bidder >= 0
                         and any(a != 31 for a in g.auc_allowed)),
    "bid_by_beige": lambda: _find(lambda g: g.decision == BID_DECISION and g.auc_comm == 1 and g.auc_high_bidder == -1),
    "bid_cp": lambda: _find(lambda g: g.decision == BID_DECISION and g.auc_loc == 7 and g.auc_cp_color >= 0),
    "build": lambda: _find(lambda g: g.decision == BUILD_DECISION and g.auc_loc < 7),
    "build_cp": lambda: _find(lambda g: g.decision == BUILD_DECISION and g.auc_loc == 7),
    "alea_not_yet": lambda: _find(lambda g: g.decision == BID_DECISION and g.auc_alea_state == 0, n=2),
    "alea_in": lambda: _find(lambda g: g.decision == BID_DECISION and g.auc_high_bidder == 4, n=2),
    "over": lambda: _find(lambda g: g.is_over and g.terminated and len(set(g.scores)) == g.n, n=4),
    "bid_on_an_empty_district": lambda: _find(lambda g: g.decision == BID_DECISION and g.auc_loc < 7
                                              and not any(g.plot_height[g.auc_loc * 6:g.auc_loc * 6 + 6])),
    "last_tile": lambda: _find(lambda g: g.decision == SHOP_PLOT_DECISION and max(g.row) < 0, n=2),
}


@functools.cache
def _position(kind):
    return POSITION_KINDS[kind]()


def _close(s, d):
    s["closed"][d] = True
    s["closed_mask"] |= 1 << d
    s["stops"] += 1


def _emptied(s, d):
    """District ``d``'s shops removed, as a building stop removes them (R24): every count still adds up."""
    for plot in range(d * 6, d * 6 + 6):
        s["removed_shops"] += len(s["plot_shops"][plot])
        s["plot_shops"][plot] = []
    return d


def _without_skyscrapers(s, exclude=()):
    return next(d for d in range(7) if not any(s["plot_height"][d * 6:d * 6 + 6]) and not s["markers"][0][d]
                and not s["markers"][1][d] and not s["closed"][d] and d not in exclude)


def _close_emptied(s, marker=None):
    d = _emptied(s, _without_skyscrapers(s))
    _close(s, d)
    if marker is not None:
        s["markers"][marker][d] = True


def _close_with_skyscrapers_only(s):
    d = next(d for d in range(7) if any(s["plot_height"][d * 6:d * 6 + 6]) and not s["markers"][0][d]
             and not s["markers"][1][d])
    _close(s, _emptied(s, d))


def _shop_on_the_missing_plot(s):
    source = next(p for p in range(6) if s["plot_shops"][p])  # district 0's start shop moved to its plot 5
    s["plot_shops"][5], s["plot_shops"][source] = s["plot_shops"][source], []


def _plot(s, owner, height, with_shops):
    return next(p for p in range(42) if s["plot_owner"][p] == -1 and bool(s["plot_shops"][p]) == with_shops
                and p % 6 != 5)


def _skyscraper_on_a_shop(s):
    plot = _plot(s, 0, 1, True)
    s["plot_owner"][plot], s["plot_height"][plot] = 0, 1


def _alea_plot_of_two(s):
    plot = _plot(s, 4, 2, False)
    s["plot_owner"][plot], s["plot_height"][plot] = 4, 2
    s["alea_supply"] -= 2


def _pending_outside_its_decision(s):
    plot = next(p for p in range(42) if s["plot_shops"][p])
    s["pending_tile"] = s["plot_shops"][plot].pop()  # taken back from its plot: every count kept
    s["shops_placed"] -= 1


def _queue_with_a_closed_district(s):
    d = _emptied(s, _without_skyscrapers(s, exclude=(s["auc_loc"],)))
    _close(s, d)
    if d not in s["auc_queue"]:
        s["auc_queue"].insert(0, d)


def _last_tile_placed_but_the_game_goes_on(s):
    plot = next(p for p in range(42) if len(s["plot_shops"][p]) == 1 and s["plot_height"][p] == 0)
    s["plot_shops"][plot].append(s["pending_tile"])
    s.update(pending_tile=-1, shops_placed=s["shops_placed"] + 1, decision=CHOOSE_ACTION_DECISION)


def _a_placed_shop_in_the_box(s):
    plot = next(p for p in range(42) if s["plot_shops"][p])
    s["box"].append(s["plot_shops"][plot].pop())


def _auction_in_a_closed_district(s):
    loc = s["auc_loc"]
    _close(s, _emptied(s, loc))
    s["markers"][0][loc] = s["markers"][1][loc] = False
    s["auc_allowed"] = [31] * 3  # every color, as the emptied district allows (R22)


def _cards_laid_at_rest(s):
    kind = next(k for k in range(15) if s["hands"][0][k])  # a colored card from seat 0's hand
    s["hands"][0][kind] -= 1
    s["auc_cards"][0][kind] = 1
    s["auc_total"][0], s["auc_color"][0] = (4, 5, 6)[kind % 3], kind // 3


def _seat_0_bids_as_much_as_the_high_bid(s):
    assert s["auc_high"] == 24 and s["auc_allowed"][0] >> 1 & 1  # a brown 6 and three black 6s from its hand
    for kind, count in ((5, 1), (17, 3)):
        s["hands"][0][kind] -= count
        s["auc_cards"][0][kind] = count
    s["auc_total"][0], s["auc_color"][0], s["auc_passed"][0] = 24, 1, False


def _every_pile_in_seat_0s_hand(s):
    for color, pile in enumerate(s["piles"]):
        for value in pile:
            s["hands"][0][color * 3 + value] += 1
    s["piles"], s["pile_known"] = [[] for _ in range(5)], [0] * 5


def _alea_drew_before_bidding(s):
    s["black"].remove(0)  # a face-down black 4 of the pile in Alea's draw
    s["auc_alea_cards"] = [0]


R = "saved game: "
CONSISTENCY = [  # (position, edit of state s and config c, whole message; None: accepted)
    ("turn", lambda s, c: s["pile_known"].__setitem__(0, len(s["piles"][0])), None),
    ("turn", lambda s, c: s["pile_known"].__setitem__(0, len(s["piles"][0]) + 1),
     R + "state.pile_known[0] = 8 exceeds the pile's 7 cards"),
    ("turn", lambda s, c: s["row"].__setitem__(1, 0),  # a tile of type 1 made a tenth of type 0
     R + "shops per type [10, 8, 9, 9] (plots, row, box, unused, pending) plus 0 removed must be 9 of each type, 36 "
         "in all (R2)"),
    ("turn", lambda s, c: _a_placed_shop_in_the_box(s),
     R + "state.box holds 1 tiles; the row's 0 emptied groups of several tiles sent one each (R9)"),
    ("last_tile", lambda s, c: _last_tile_placed_but_the_game_goes_on(s),
     R + "the row is empty in decision 'choose action'; placing its last tile ends the game (R27)"),
    ("over", lambda s, c: s["central_park_draw"].__setitem__(0, 3),  # no tile of type 3 in the box
     R + "state.central_park_draw = [3, 0, 1] with state.box [1, 2, 1, 0, 1, 2, 0, 1]: the final scoring draws 3 of "
         "the box's tiles (R27; none before the end or at truncation)"),
    ("turn", lambda s, c: _shop_on_the_missing_plot(s),
     R + "plot 5 does not exist on the 5-plot board but holds shops or skyscrapers"),
    ("turn6", lambda s, c: (s["plot_owner"].__setitem__(5, 0), s["plot_height"].__setitem__(5, 1)),
     R + "plot 5 is the colorless shop plot but holds skyscrapers (R8)"),
    ("turn", lambda s, c: _skyscraper_on_a_shop(s), R + "plot 3 holds both shops and skyscrapers (R17)"),
    ("alea_in", lambda s, c: _alea_plot_of_two(s), R + "plot 0: Alea's plots hold one skyscraper each (R26), got 2"),
    ("turn", lambda s, c: (s["plot_owner"].__setitem__(0, 0), s["plot_height"].__setitem__(0, 1),
                           s["plot_owner"].__setitem__(1, 0), s["plot_height"].__setitem__(1, 1)),
     R + "seat 0 owns two plots in district 0 (R11)"),
    ("turn", lambda s, c: _close_emptied(s), None),  # one stop, its district empty
    ("turn", lambda s, c: _close_emptied(s, marker=0),
     R + "district 2 is closed but holds shops, skyscrapers or markers (R24)"),
    ("turn", lambda s, c: _close_emptied(s, marker=1),
     R + "district 2 is closed but holds shops, skyscrapers or markers (R24)"),
    ("turn", lambda s, c: _close(s, _without_skyscrapers(s)),
     R + "district 2 is closed but holds shops, skyscrapers or markers (R24)"),
    ("turn", lambda s, c: _close_with_skyscrapers_only(s),
     R + "district 0 is closed but holds shops, skyscrapers or markers (R24)"),
    ("turn", lambda s, c: s["removed_skyscrapers"].__setitem__(4, 1),
     R + "Alea has 1 skyscrapers; it must have 0 (R26)"),
    ("alea_in", lambda s, c: s.update(alea_supply=s["alea_supply"] - 1),
     R + "Alea has 17 skyscrapers; it must have 18 (R26)"),
    ("turn", lambda s, c: s["scores"].__setitem__(0, 1062), None),  # 8*18*(4+2) + 2*5*18 + 18 (R15-R19, R24, R27)
    ("turn", lambda s, c: s["scores"].__setitem__(0, 1063),
     R + "state.scores[0] = 1063 is more VP than a game can reach by turn 4: at most 1062 with 18 skyscrapers per "
         "color (R15-R19, R24, R27)"),
    ("draw0", lambda s, c: (_close_emptied(s), _close_emptied(s)),
     R + "two building stops end the game (R27), but it is not over"),
    ("turn", lambda s, c: s.update(actor=-1),
     R + "state.actor = -1 in decision 'choose action' (-1 exactly when the game is over)"),
    ("turn", lambda s, c: s.update(terminated=True),
     R + "state.terminated = True, state.truncated = False in decision 'choose action' (exactly one of them once the "
         "game is over)"),
    ("over", lambda s, c: s.update(truncated=True),
     R + "state.terminated = True, state.truncated = True in decision 'game over' (exactly one of them once the game "
         "is over)"),
    ("turn", lambda s, c: s.update(winners=[0]),
     R + "state.winners = [0]: the winners are known exactly when the game is over"),
    ("over", lambda s, c: s.update(winners=s["winners"] * 2),
     R + "state.winners = [3, 3] must be distinct seats in increasing order"),
    ("over", lambda s, c: s.update(winners=[2]),
     R + "state.winners = [2], but the leaders by VP, then cards in hand, are [3] (R28)"),
    ("turn", lambda s, c: c.update(max_turns=s["turn"]),
     R + "state.turn = 4 with max_turns 4 in decision 'choose action'"),
    ("turn", lambda s, c: s.update(setup_order=[0], supply=[s["supply"][0] - 1] + s["supply"][1:]),
     R + "state.setup_order = [0] in decision 'choose action' (seats still to place exactly during setup)"),
    ("setup2", lambda s, c: s.update(setup_order=[1, 0, 0, 1]),
     R + "state.setup_order = [1, 0, 0, 1] at turn 0 is not what remains, before turn 0, of the starting order "
         "[0, 1, 1, 0] (R11)"),
    ("setup2", lambda s, c: s.update(turn=1),
     R + "state.setup_order = [0, 1, 1, 0] at turn 1 is not what remains, before turn 0, of the starting order "
         "[0, 1, 1, 0] (R11)"),
    ("setup2", lambda s, c: s.update(actor=1), R + "state.actor = 1, but seat 0 places the next starting skyscraper"),
    ("turn", lambda s, c: s.update(turn=0),
     R + "state.active = 1, but turn 0 from state.first_player 0 is seat 0's (R11)"),
    ("turn", lambda s, c: s.update(actor=2),
     R + "state.actor = 2, but decision 'choose action' is the active seat 1's"),
    ("plot0", lambda s, c: None, None),  # tile type 0 pending: a tile is pending
    ("turn", lambda s, c: _pending_outside_its_decision(s),
     R + "state.pending_tile = 0 in decision 'choose action' (a tile is pending exactly when its plot is asked)"),
    ("turn", lambda s, c: s.update(final_move=True),
     R + "state.final_move = True in decision 'choose action' (only the phase-3 move and its auctions come after it)"),
    ("turn", lambda s, c: s.update(turn_action=2),
     R + "state.turn_action = 2 with state.final_move = False in decision 'choose action'; it must be one of [-1] "
         "(-1 none yet, 0-3 actions A-D)"),
    ("draw0", lambda s, c: None, None),
    ("draw0", lambda s, c: _every_pile_in_seat_0s_hand(s), R + "no legal action for seat 0 in decision 'draw color'"),  # action A's second draw (R14): turn_action 0, first_draw 0
    ("turn", lambda s, c: s.update(first_draw=0),
     R + "state.first_draw = 0 in decision 'choose action' before phase 2 (R14)"),
    ("bid", lambda s, c: s.update(auc_loc=-1), R + "decision 'bid' needs an auction, but state.auc_loc is -1"),
    ("bid", lambda s, c: s["auc_color"].__setitem__(1, 0),
     R + "state.auc_color[1] = 0 is not a color seat 1 may bid here (R22)"),
    ("bid", lambda s, c: s.update(auc_cp_color=0), R + "state.auc_cp_color = 0 outside a Central Park auction (R36)"),
    ("bid_cp", lambda s, c: None, None),
    ("bid_by_beige", lambda s, c: s.update(auc_comm=-1),
     R + "state.auc_comm = -1: the commissioner that started the auctions stands in City Hall"),
    ("bid_by_beige", lambda s, c: s.update(auc_comm=0),
     R + "state.auc_comm = 0: the commissioner that started the auctions stands in City Hall"),
    ("bid", lambda s, c: s.update(auc_queue=[6, 6]),
     R + "state.auc_queue = [6, 6] must list distinct open locations still to auction"),
    ("bid", lambda s, c: s.update(auc_queue=[4, 6]),
     R + "state.auc_queue = [4, 6] must list distinct open locations still to auction"),
    ("bid", lambda s, c: _queue_with_a_closed_district(s),
     R + "state.auc_queue = [2, 6, 7] must list distinct open locations still to auction"),
    ("bid", lambda s, c: s.update(auc_total=[0, 25, 0]),
     R + "state.auc_total[1] = 25, but the cards laid add up to 24"),
    ("bid", lambda s, c: s.update(auc_color=[-1, 4, -1]),
     R + "state.auc_color[1] = 4 does not match the cards laid [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1] "
         "(R21)"),
    ("bid", lambda s, c: s["auc_color"].__setitem__(2, 0),
     R + "state.auc_color[2] = 0 does not match the cards laid [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] "
         "(R21)"),
    ("bid", lambda s, c: s["auc_passed"].__setitem__(1, True), R + "seat 1 passed but still has cards laid (R21)"),
    ("turn", lambda s, c: _cards_laid_at_rest(s), R + "seat 0 has cards laid but no auction is on"),
    ("bid_on_an_empty_district", lambda s, c: _auction_in_a_closed_district(s),
     R + "state.auc_loc = 6 is a closed district"),
    ("bid", lambda s, c: s.update(auc_high=25),
     R + "state.auc_total[1] = 24 with state.auc_high = 25 held by state.auc_high_bidder 1: the high bid is its "
         "bidder's bid on the table, above every other confirmed one (R21)"),
    ("bid", lambda s, c: _seat_0_bids_as_much_as_the_high_bid(s),  # R21: every confirmed bid beat the one before
     R + "state.auc_total[0] = 24 with state.auc_high = 24 held by state.auc_high_bidder 1: the high bid is its "
         "bidder's bid on the table, above every other confirmed one (R21)"),
    ("bid", lambda s, c: s["auc_last_bid"].__setitem__(0, 1),
     R + "state.auc_last_bid = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], state.auc_bid_color = -1 while "
         "bidding: they record the winning bid, once the auction is won"),
    ("alea_not_yet", lambda s, c: s.update(auc_turns=1), None),
    ("alea_not_yet", lambda s, c: s.update(auc_turns=2),
     R + "Alea has not bid yet (state.auc_alea_state 0) after 2 bidding turns with cards [] drawn (R25)"),
    ("alea_not_yet", lambda s, c: _alea_drew_before_bidding(s),
     R + "Alea has not bid yet (state.auc_alea_state 0) after 0 bidding turns with cards [0] drawn (R25)"),
    ("bid", lambda s, c: s["auc_passed"].__setitem__(2, True),
     R + "state.actor = 2 bids, but has passed or the auction is won"),
    ("bid", lambda s, c: s.update(auc_winner=1), R + "state.actor = 2 bids, but has passed or the auction is won"),
    ("bid", lambda s, c: s.update(actor=1),
     R + "state.actor = 1 bids, but holds the high bid: the others bid or pass first (R21)"),
    ("build", lambda s, c: s.update(auc_high_bidder=0),
     R + "state.auc_winner = 1 builds, but state.actor is 1 and state.auc_high_bidder 0"),
    ("build", lambda s, c: (s.update(auc_winner=0), s["auc_color"].__setitem__(1, -1)),
     R + "state.auc_winner = 0 builds, but state.actor is 1 and state.auc_high_bidder 1"),
    ("build", lambda s, c: s.update(auc_bid_color=-1),
     R + "state.auc_bid_color = -1: the winner builds on the plot of a color they may bid (R22, R23)"),
    ("build", lambda s, c: s.update(auc_bid_color=0),
     R + "state.auc_bid_color = 0: the winner builds on the plot of a color they may bid (R22, R23)"),
    ("build", lambda s, c: s["auc_color"].__setitem__(1, 4),
     R + "state.auc_last_bid = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1] in color state.auc_bid_color = 1 "
         "is not the winner's bid: state.auc_high 24 in their color 4 (R21, R23, R36)"),
    ("build_cp", lambda s, c: s.update(auc_cp_color=3),
     R + "state.auc_last_bid = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] in color state.auc_bid_color = 2 "
         "is not the winner's bid: state.auc_high 5 in their color 2 (R21, R23, R36)"),
    ("alea_in", lambda s, c: s.update(auc_alea_state=2),
     R + "state.auc_high_bidder = 4 and state.auc_alea_state = 2 disagree"),
    ("bid_by_beige", lambda s, c: s.update(auc_high=5), R + "state.auc_high = 5 without a high bidder"),
]


@pytest.mark.parametrize("case", range(len(CONSISTENCY)))
def test_each_consistency_check_refuses_what_it_checks_with_its_whole_message(case):
    kind, edit, message = CONSISTENCY[case]
    data = json.loads(_position(kind))
    assert Game.from_dict(copy.deepcopy(data)).to_dict() == data  # the position as real play reached it
    edit(data["state"], data["config"])
    if message is None:
        Game.from_dict(data)
    else:
        assert refusal(data) == (SavedGameError, message)
