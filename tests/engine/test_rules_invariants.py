"""Component counts over whole random games: cards (R1), shop tiles (R2, R10), commissioners'
markers and building-stop markers (R4).

tests/engine/test_properties.py checks totals (110 cards, 36 shops, skyscrapers per owner) over many
games; these tests check the finer counts the rulings fix: every card *kind* and every shop
*type* stays accounted for wherever it goes, the 9 unused tiles never move, a commissioner never
has more than its three markers out, and there are never more than two stops.
"""

import numpy as np
import pytest

from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.board import NUM_DISTRICTS, PLOTS_PER_DISTRICT, SHOPS_PER_TYPE
from fifthave_env.engine.cards import BLACK, BLACK_COUNTS, COLORED_PER_COLOR, NUM_COLORS, NUM_KINDS

CONFIGS = [(n, board) for n in (2, 3, 4) for board in (5, 6)]
GAMES = 30  # per configuration; a game is ~500 steps, ~15 ms checked
COLUMNS = ((0, 1), (2, 3, 4), (5, 6))  # R5
EXPECTED_KINDS = [COLORED_PER_COLOR[k % 3] for k in range(NUM_COLORS * 3)] + list(BLACK_COUNTS)  # R1


def cards_by_kind(g):
    """Every card, wherever it is: hands, the bids on the table, Alea's draw, the piles."""
    counts = [0] * NUM_KINDS
    for seat_cards in g.hands + g.auc_cards:
        for k in range(NUM_KINDS):
            counts[k] += seat_cards[k]
    for v in g.auc_alea_cards:
        counts[BLACK * 3 + v] += 1
    for c, pile in enumerate(g.piles):
        for v in pile:
            counts[c * 3 + v] += 1
    for entry in g.black:
        counts[BLACK * 3 + entry % 3] += 1
    return counts


def shops_by_type(g, removed):
    """Every shop tile: on the board, in the row, in the box, unused, in hand (taken, not yet
    placed), or removed by a stop (``removed``, tracked by the test)."""
    counts = list(removed)
    for shops in g.plot_shops:
        for t in shops:
            counts[t] += 1
    for t in g.row + g.box + g.unused_tiles:
        if t >= 0:
            counts[t] += 1
    if g.pending_tile >= 0:
        counts[g.pending_tile] += 1
    return counts


def check_markers(g):
    """R4: two commissioners with three markers each. A trip leaves at most one marker per column
    (R5, R18), so never more than three of a color are out; markers lie only in open districts;
    two building-stop markers: at most two stops, each closing one district."""
    assert len(g.comm_pos) == 2 and len(g.markers) == 2
    for markers in g.markers:
        assert sum(markers) <= 3
        for column in COLUMNS:
            assert sum(markers[d] for d in column) <= 1
        assert not any(markers[d] and g.closed[d] for d in range(NUM_DISTRICTS))
    assert g.stops <= 2 and sum(g.closed) == g.stops


def play_and_check(num_players, board, seed, seen):
    g = Game(GameConfig(num_players=num_players, board=board), seed=seed)
    rng = np.random.default_rng(1000 + seed)
    unused = list(g.unused_tiles)
    removed = [0] * 4
    assert cards_by_kind(g) == EXPECTED_KINDS
    assert shops_by_type(g, removed) == [SHOPS_PER_TYPE] * 4
    while not g.is_over:
        closed_before = list(g.closed)
        shops_before = [list(s) for s in g.plot_shops]
        legal = g.legal_actions()
        g.apply(legal[int(rng.integers(len(legal)))])
        for d in range(NUM_DISTRICTS):
            if g.closed[d] and not closed_before[d]:  # a stop: the district's shops leave the game (R24)
                for plot in range(d * PLOTS_PER_DISTRICT, (d + 1) * PLOTS_PER_DISTRICT):
                    for t in shops_before[plot]:
                        removed[t] += 1
                        seen["removed shops"] += 1
                seen["stops"] += 1
        assert cards_by_kind(g) == EXPECTED_KINDS  # R1
        assert shops_by_type(g, removed) == [SHOPS_PER_TYPE] * 4  # R2
        assert sum(removed) == g.removed_shops  # the engine's own count of shops out of the game
        assert g.unused_tiles == unused  # R10: out of the game, untouched
        check_markers(g)  # R4
        seen["markers out"] = max(seen["markers out"], max(map(sum, g.markers)))
        seen["box"] += bool(g.box)
        seen["alea cards"] += bool(g.auc_alea_cards)
    if g.stops == 2:
        seen["two stops"] += 1
        assert g.terminated  # R4 / R27: the second stop ends the game


@pytest.mark.parametrize("num_players, board", CONFIGS)
def test_r1_r2_r4_r10_components_conserved_over_random_games(num_players, board):
    """R1 (every card kind), R2 (9 tiles of each shop type), R4 (three markers per commissioner,
    two stop markers), R10 (the 9 unused tiles never move), after every step of random games."""
    seen = dict.fromkeys(("stops", "removed shops", "markers out", "box", "alea cards", "two stops"), 0)
    for seed in range(GAMES):
        play_and_check(num_players, board, seed, seen)
    # the games reach the places the counts could go wrong
    assert seen["stops"] and seen["removed shops"] and seen["box"] and seen["markers out"] == 3
    assert bool(seen["alea cards"]) == (num_players == 2)
