"""Invariants over random legal games in every configuration (2/3/4 players x 5/6-plot board).

After every step: all 110 cards, 36 shops and every skyscraper are accounted
for, the board is consistent (``check_board``), scores never decrease, a running game always offers a legal action, and
sampled illegal ids are refused. Every few steps the refusal is also checked to
leave ``to_dict()`` unchanged and every legal id is checked to be accepted (on
clones). Every game must end: terminated, or truncated at ``max_turns``.

The default run plays 200 games per configuration; ``-m slow`` plays 1000.
All randomness is seeded: a failure names the configuration and game seed.
"""

import numpy as np
import pytest

from fifthave_env.engine import NUM_ACTIONS, Game, GameConfig, IllegalActionError
from fifthave_env.engine.auction import ALEA
from fifthave_env.engine.board import NO_PLOT, NUM_DISTRICTS, PLOTS_PER_DISTRICT, TOTAL_SHOPS
from fifthave_env.engine.cards import TOTAL_CARDS
from fifthave_env.engine.game import CHOOSE_ACTION_DECISION

CONFIGS = [(n, board) for n in (2, 3, 4) for board in (5, 6)]
DEEP_CHECK_EVERY = 100  # steps between to_dict / accept-every-legal-id checks
MAX_STEPS = 100_000  # far above any game: a guard against a loop that never ends


def cards_in_game(g):
    total = sum(map(sum, g.hands)) + sum(map(sum, g.auc_cards)) + len(g.auc_alea_cards)
    return total + sum(map(len, g.piles)) + len(g.black)


def shops_in_game(g):
    on_board = sum(map(len, g.plot_shops))
    in_row = sum(1 for t in g.row if t >= 0)
    pending = 1 if g.pending_tile >= 0 else 0
    return on_board + in_row + len(g.box) + len(g.unused_tiles) + g.removed_shops + pending


def skyscrapers_by_owner(g):
    """Skyscrapers accounted for, per owner id (seats, then Alea at index ALEA)."""
    counts = [0] * (ALEA + 1)
    for owner, height in zip(g.plot_owner, g.plot_height):
        if height:
            counts[owner] += height
    for p in range(g.n):
        score_marker = 1
        still_to_place = g.setup_order.count(p)  # starting skyscrapers during setup (R11)
        counts[p] += (g.supply[p] + g.reserve[p] + g.cp_skyscrapers[p] + g.removed_skyscrapers[p]
                      + score_marker + still_to_place)
    counts[ALEA] += g.alea_supply + g.removed_skyscrapers[ALEA]
    return counts


def check_accounting(g, per_color):
    assert cards_in_game(g) == TOTAL_CARDS
    assert shops_in_game(g) == TOTAL_SHOPS
    expected = [per_color] * g.n + [0] * (ALEA - g.n) + [per_color if g.has_alea else 0]
    assert skyscrapers_by_owner(g) == expected
    assert min(map(min, g.hands)) >= 0


def check_board(g):
    """Plots hold shops or skyscrapers, never both (R17, R23-R24); one plot per seat per district
    (R11); never a skyscraper on the shop plot (R8); Alea's plots hold one each (R26); closed
    districts are empty and unmarked (R24)."""
    owned_seen = [[-1] * NUM_DISTRICTS for _ in range(g.n)]
    for plot, (owner, height, shops) in enumerate(zip(g.plot_owner, g.plot_height, g.plot_shops)):
        if g.plot_color[plot] == NO_PLOT:
            assert owner == -1 and not height and not shops
            continue
        assert len(shops) <= 2 and (owner == -1) == (height == 0) and not (shops and height)
        if height:
            assert g.plot_color[plot] >= 0
            if owner == ALEA:
                assert height == 1
            else:
                d = plot // PLOTS_PER_DISTRICT
                assert owned_seen[owner][d] == -1
                owned_seen[owner][d] = plot
    assert owned_seen == g.owned
    for d in range(NUM_DISTRICTS):
        if g.closed[d]:
            base = d * PLOTS_PER_DISTRICT
            assert not any(g.plot_height[base:base + PLOTS_PER_DISTRICT])
            assert not any(g.plot_shops[base:base + PLOTS_PER_DISTRICT])
            assert not g.markers[0][d] and not g.markers[1][d]


def check_refusals(g, rng, legal, deep):
    legal_set = set(legal)
    illegal = [int(a) for a in rng.integers(-2, NUM_ACTIONS + 2, size=3) if a not in legal_set]
    before = g.to_dict() if deep else None
    for a in illegal:
        try:
            g.apply(a)
        except IllegalActionError:
            continue
        raise AssertionError(f"illegal action {a} was accepted in decision {g.decision}")
    if deep:
        assert g.to_dict() == before
        for a in legal:
            g.clone().apply(a)  # every legal id is accepted


def play_checked_game(config, seed):
    g = Game(config, seed=seed)
    rng = np.random.default_rng(seed)
    per_color = config.skyscrapers_per_color
    check_accounting(g, per_color)
    scores = g.scores[:]
    for step in range(MAX_STEPS):
        if g.is_over:
            break
        legal = g.legal_actions()
        assert legal, f"no legal action in decision {g.decision}"
        assert legal == sorted(set(legal))
        check_refusals(g, rng, legal, deep=step % DEEP_CHECK_EVERY == 0)
        g.apply(legal[int(rng.integers(len(legal)))])
        check_accounting(g, per_color)
        check_board(g)
        assert all(new >= old for new, old in zip(g.scores, scores))
        scores = g.scores[:]
    assert g.is_over and g.terminated != g.truncated
    assert g.legal_actions() == [] and g.actor == -1 and g.winners
    if g.truncated:
        assert g.turn == config.max_turns
    return g


def run_games(num_players, board, games):
    config = GameConfig(num_players=num_players, board=board)
    ends = {"terminated": 0, "truncated": 0}
    for seed in range(games):
        g = play_checked_game(config, seed)
        ends["terminated" if g.terminated else "truncated"] += 1
    assert ends["terminated"] > 0
    return ends


@pytest.mark.parametrize("num_players, board", CONFIGS)
def test_random_games_keep_every_invariant(num_players, board):
    run_games(num_players, board, 200)


@pytest.mark.slow
@pytest.mark.parametrize("num_players, board", CONFIGS)
def test_random_games_keep_every_invariant_long(num_players, board):
    run_games(num_players, board, 1000)


def test_short_max_turns_truncates_every_game():
    config = GameConfig(num_players=3, max_turns=5)
    for seed in range(20):
        g = play_checked_game(config, seed)
        assert g.truncated and g.turn == 5


def test_apply_takes_int_ids_only_numpy_ints_included():
    g = Game(GameConfig(num_players=3), seed=0)
    first = g.legal_actions()[0]
    before = g.to_dict()
    for bad in (float(first), str(first), None, [first], np.float32(first)):
        with pytest.raises(IllegalActionError, match="an action is an int id"):
            g.apply(bad)
    assert g.to_dict() == before
    g.apply(np.int64(first))
    assert g.plot_height[first - 4] == 1  # the first starting skyscraper stands on that plot
    while g.decision != CHOOSE_ACTION_DECISION:
        g.apply(g.legal_actions()[0])
    assert 1 in g.legal_actions()  # action B
    with pytest.raises(IllegalActionError, match="an action is an int id"):
        g.apply(True)  # True == 1, but it is not an action id
