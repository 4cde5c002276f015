"""Components, the board and setup: rulings R1-R5 and R7-R12."""

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.actions import PLACE_START
from fifthave_env.engine.board import (
    CENTRAL_PARK,
    CITY_HALL,
    DEFAULT_LAYOUT_5,
    DEFAULT_LAYOUT_SOURCE,
    DISTRICT_NAMES,
    NO_PLOT,
    NUM_DISTRICTS,
    PLOTS_PER_DISTRICT,
    SHOP_PLOT,
    COMMISSIONER_NAMES,
    SHOP_NAMES,
    TOTAL_SHOPS,
    destinations,
)
from fifthave_env.engine.cards import BLACK_COUNTS, COLOR_NAMES, COLORED_PER_COLOR, KIND_LIMIT, TOTAL_CARDS, VALUES
from fifthave_env.engine.game import CHOOSE_ACTION_DECISION, PLACE_START_DECISION
from fifthave_env.engine.scoring import plot_value
from rules_helpers import hand_of, legal_names, new_game, play, plot_of, put_shops, put_skyscrapers, started_game


def test_r1_card_counts_and_build_limits():
    assert COLOR_NAMES == ("gray", "brown", "violet", "orange", "green")
    assert COLORED_PER_COLOR == (5, 4, 3) and BLACK_COUNTS == (20, 16, 14)
    assert TOTAL_CARDS == 110
    assert VALUES == (4, 5, 6)
    # value 4 -> 3 skyscrapers, 5 -> 2, 6 -> 1, for colored and black cards alike
    assert KIND_LIMIT == (3, 2, 1) * 6
    game = new_game(4, seed=3)
    for c in range(5):
        in_game = sorted(game.piles[c] + [v for p in range(4) for v in range(3) for _ in range(game.hands[p][c * 3 + v])])
        assert in_game == [0] * 5 + [1] * 4 + [2] * 3
    black = sorted(e % 3 for e in game.black) + sorted(
        v for p in range(4) for v in range(3) for _ in range(game.hands[p][15 + v]))
    assert sorted(black) == [0] * 20 + [1] * 16 + [2] * 14


def test_r2_shop_tiles_nine_of_each_type():
    """R2: four shop types, 9 of each (36), all of them in the game at setup (board, row, unused)."""
    assert SHOP_NAMES == ("boutique", "jeweler", "gallery", "perfume")
    assert TOTAL_SHOPS == 36
    game = new_game(3, seed=5)
    tiles = [t for shops in game.plot_shops for t in shops] + game.row + game.unused_tiles
    assert sorted(tiles) == sorted(list(range(4)) * 9)


@pytest.mark.parametrize("per_color", [18, 21])
def test_r3_skyscrapers_per_color_is_configuration(per_color):
    game = new_game(2, seed=1, skyscrapers_per_color=per_color)
    # R12: 1 score marker + 2 placed + 3 reserve leave per_color - 6 in the supply; Alea's supply follows R3
    assert game.supply == [per_color - 6] * 2
    assert game.reserve == [3, 3]
    assert game.alea_supply == per_color
    with pytest.raises(ValueError, match="skyscrapers_per_color must be an int from 6 to 100, got 5"):
        GameConfig(skyscrapers_per_color=5)


def test_r4_two_commissioners_start_in_city_hall_without_markers_and_no_stops():
    """R4: two commissioners, white and beige; no marker and no building-stop marker used yet.
    That a commissioner never has more than three markers out and that there are never more
    than two stops is checked over random games in test_rules_invariants.py."""
    assert COMMISSIONER_NAMES == ("white", "beige")
    game = new_game(4)
    assert game.comm_pos == [8, 8]  # white, beige in City Hall
    assert game.markers == [[False] * 7, [False] * 7]
    assert game.stops == 0 and game.closed == [False] * 7


def test_r5_district_ids_and_names():
    """R5: the seven district ids and names, in this order."""
    assert DISTRICT_NAMES == ("34th St West", "34th St East", "42nd St West", "Times Square",
                              "42nd St East", "52nd St West", "52nd St East")
    assert NUM_DISTRICTS == 7


def test_r7_default_ring_layout_and_neighbours():
    """R7: the default ring order (district 3) and position 0 touching positions 4 and 1."""
    game = new_game(3)
    assert DEFAULT_LAYOUT_5[3] == ("brown", "orange", "gray", "violet", "green")
    assert [COLOR_NAMES[game.plot_color[3 * 6 + p]] for p in range(5)] == list(DEFAULT_LAYOUT_5[3])
    # position 0 touches positions 4 and 1 of its own ring
    assert game.neighbors[3 * 6 + 0] == (3 * 6 + 4, 3 * 6 + 1)
    assert game.neighbors[3 * 6 + 5] == ()  # no sixth plot on the 5-plot board
    # every pair of colors is adjacent 3 or 4 times over the seven rings
    pairs = {}
    for ring in DEFAULT_LAYOUT_5:
        for i in range(5):
            pair = frozenset((ring[i], ring[(i + 1) % 5]))
            pairs[pair] = pairs.get(pair, 0) + 1
    assert len(pairs) == 10 and set(pairs.values()) <= {3, 4}


def test_r7_layout_is_replaceable_data_and_checked():
    """R7: the ring order is data a user may replace; a ring must hold every color once."""
    rings = tuple(("green", "orange", "violet", "brown", "gray") for _ in range(7))
    game = Game(GameConfig(num_players=3, layout=rings), seed=0)
    assert game.plot_color[0] == COLOR_NAMES.index("green")
    bad = (("gray", "gray", "violet", "orange", "green"),) + rings[1:]
    with pytest.raises(ValueError, match="each ring must hold every color exactly once"):
        GameConfig(layout=bad)


def test_r8_six_plot_board_shop_plot_is_colorless_and_only_for_shops():
    """R8, R10: on the 6-plot board the seven starting shops go on the colorless shop plots."""
    game = new_game(4, board=6, seed=2)
    for d in range(7):
        shop_plot = d * PLOTS_PER_DISTRICT + 5
        assert game.plot_color[shop_plot] == SHOP_PLOT
        assert game.neighbors[shop_plot] == (d * 6 + 4, d * 6 + 0)  # between positions 4 and 0
        assert len(game.plot_shops[shop_plot]) == 1  # the starting shop sits there
        assert all(not game.plot_shops[d * 6 + p] for p in range(5))
    start_plots = {a - PLACE_START for a in game.legal_actions()}
    assert not any(plot % 6 == 5 for plot in start_plots)  # no skyscraper on the shop plot
    assert len(start_plots) == 35


def test_r8_six_plot_board_second_shop_may_join_the_shop_plot():
    game = started_game(4, board=6)
    put_shops(game, plot_of(game, 0, None), "gallery")
    play(game, "action B")
    tile = sorted(legal_names(game))[0]
    play(game, tile)
    assert "place shop on 34th St West shop plot" in legal_names(game)
    play(game, "place shop on 34th St West shop plot")
    assert len(game.plot_shops[plot_of(game, 0, None)]) == 2


def test_r9_shop_row_groups_default_and_count():
    game = new_game(3, seed=4)
    assert game.config.row_groups == (3, 2, 3, 2, 3, 2, 3, 2)
    assert len(game.row) == 20 and game.box == []
    with pytest.raises(ValueError, match="adding up to 20"):
        GameConfig(row_groups=(3, 3))


@pytest.mark.parametrize("seed", range(40))
def test_r10_starting_shops_one_per_district_every_color_at_most_twice(seed):
    """R10: one starting shop per district, every color used at least once and at most twice,
    and 9 tiles neither placed nor in the row."""
    game = new_game(4, seed=seed)
    uses = [0] * 5
    for d in range(7):
        shop_plots = [d * 6 + p for p in range(5) if game.plot_shops[d * 6 + p]]
        assert len(shop_plots) == 1 and len(game.plot_shops[shop_plots[0]]) == 1
        uses[game.plot_color[shop_plots[0]]] += 1
    assert min(uses) >= 1 and max(uses) <= 2
    assert len(game.unused_tiles) == 9  # neither placed nor in the row: out of the game


def test_r10_starting_shop_colors_are_spread_over_all_valid_assignments():
    """R10: the starting plots are random, not a fixed pattern."""
    seen = set()
    for seed in range(300):
        game = new_game(3, seed=seed)
        seen.add(tuple(game.plot_color[p] for p in range(42) if game.plot_shops[p]))
    assert len(seen) > 250  # many different assignments, not a fixed pattern


@pytest.mark.parametrize("n, order", [(2, [0, 1, 1, 0]), (3, [0, 2, 1, 1, 2, 0]), (4, [0, 3, 2, 1, 1, 2, 3, 0])])
def test_r11_starting_placement_order(n, order):
    game = new_game(n)
    asked = []
    while game.decision == PLACE_START_DECISION:
        asked.append(game.actor)
        game.apply(game.legal_actions()[0])
    assert asked == order
    assert game.decision == CHOOSE_ACTION_DECISION and game.actor == 0  # seat 0 starts


def test_r11_random_start_rotates_the_placement_order():
    starts = set()
    for seed in range(20):
        game = new_game(4, seed=seed, random_start=True)
        first = game.first_player
        starts.add(first)
        assert game.setup_order == [(first - i) % 4 for i in range(4)] + [(first - i) % 4 for i in range(3, -1, -1)]
        while game.decision == PLACE_START_DECISION:
            game.apply(game.legal_actions()[0])
        assert game.actor == first and game.active == first
    assert starts == {0, 1, 2, 3}


def test_r11_starting_skyscraper_on_empty_plot_in_a_new_district():
    game = new_game(3, seed=0)
    shop_plots = {p for p in range(42) if game.plot_shops[p]}
    colored = {p for p in range(42) if game.plot_color[p] >= 0}
    legal = {a - PLACE_START for a in game.legal_actions()}
    assert legal == colored - shop_plots and len(legal) == 35 - 7
    first = min(legal)
    game.apply(PLACE_START + first)  # seat 0
    assert game.plot_owner[first] == 0 and game.plot_height[first] == 1 and game.owned[0][first // 6] == first
    assert game.actor == 2 and PLACE_START + first not in game.legal_actions()  # occupied now
    while game.setup_order != [0]:
        game.apply(game.legal_actions()[0])
    # seat 0's second skyscraper: never in the district where it already owns a plot
    assert game.actor == 0
    assert all((a - PLACE_START) // 6 != first // 6 for a in game.legal_actions())


def test_r12_starting_hands_reserve_and_supply():
    game = new_game(4, seed=9)
    for p in range(4):
        names = hand_of(game, p)
        assert len(names) == 9
        assert sorted(n.split()[0] for n in names) == sorted(list(COLOR_NAMES) + ["black"] * 4)
    assert game.reserve == [3] * 4 and game.supply == [12] * 4 and game.scores == [0] * 4
    assert [len(game.piles[c]) for c in range(5)] == [12 - 4] * 5
    assert len(game.black) == 50 - 16


def test_r12_starting_skyscrapers_come_on_top_of_reserve():
    game = new_game(2, seed=0)
    while game.decision == PLACE_START_DECISION:
        game.apply(game.legal_actions()[0])
    assert sum(game.plot_height) == 4
    assert game.reserve == [3, 3] and game.supply == [12, 12]
    assert NO_PLOT not in [game.plot_color[p] for p in range(42) if game.plot_height[p]]



def test_r5_columns_every_trip_visits_one_district_per_column_left_to_right():
    """R5: districts stand in three columns (0,1), (2,3,4), (5,6), City Hall left of the first,
    Central Park right of the third: every trip City Hall -> Central Park (no district closed)
    visits exactly one district of each column, in column order."""
    columns = ({0, 1}, {2, 3, 4}, {5, 6})
    trips = [[CITY_HALL]]
    finished = []
    while trips:
        trip = trips.pop()
        for dest in destinations(trip[-1], 0):
            (finished if dest == CENTRAL_PARK else trips).append(trip + [dest])
    assert sorted(trip[1:-1] for trip in finished) == [[0, 2, 5], [0, 3, 5], [0, 3, 6], [1, 3, 5], [1, 3, 6],
                                                       [1, 4, 6]]  # the routes of R6
    for trip in finished:
        visited = trip[1:-1]
        assert len(visited) == 3
        assert all(d in col for d, col in zip(visited, columns)), trip
    assert {d for trip in finished for d in trip[1:-1]} == set(range(7))


def r7_table():
    """R7's table as docs/RULINGS.md gives it (ring order, position 0 first), read from the rulings, not the engine."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "RULINGS.md").read_text()
    rows = re.findall(r"^  \| \d [^|]+\| ([a-z, ]+) \|$", text, flags=re.M)
    assert len(rows) == 7, rows  # the table moved or changed shape
    return [tuple(row.split(", ")) for row in rows]


R7_TABLE = r7_table()


@pytest.mark.parametrize("board", [5, 6])
def test_r7_default_layout_is_the_rulings_table_with_its_source_recorded(board):
    """R7: the default ring order of every district is the ruling's table; R8: the 6-plot board
    adds the shop plot at position 5. The source of the placeholder is kept as data."""
    game = new_game(3, board=board)
    for d in range(7):
        assert [COLOR_NAMES[game.plot_color[d * 6 + p]] for p in range(5)] == list(R7_TABLE[d]), d
        assert game.plot_color[d * 6 + 5] == (SHOP_PLOT if board == 6 else NO_PLOT)
    assert "R7" in DEFAULT_LAYOUT_SOURCE


@pytest.mark.parametrize("board", [5, 6])
def test_r7_each_ring_is_a_cycle_each_plot_touches_exactly_two_plots(board):
    """R7: within a district the plots form one ring: every plot has exactly two distinct
    neighbours, both in its own district, adjacency is symmetric and the ring is one cycle
    through all the district's plots (so position 0 touches the last position)."""
    game = new_game(3, board=board)
    for d in range(7):
        plots = [d * 6 + p for p in range(board)]
        for plot in plots:
            left, right = game.neighbors[plot]
            assert left != right and {left, right} <= set(plots) - {plot}
            assert plot in game.neighbors[left] and plot in game.neighbors[right]
        walk, prev, here = [plots[0]], None, plots[0]
        for _ in range(board - 1):
            nxt = [q for q in game.neighbors[here] if q != prev][0]
            walk.append(nxt)
            prev, here = here, nxt
        assert sorted(walk) == plots and plots[0] in game.neighbors[walk[-1]]


@pytest.mark.parametrize("district", range(7))
def test_r7_a_skyscraper_sees_at_most_four_shops_on_its_two_ring_neighbours(district):
    """R7 with R19: the skyscraper on ring position 0 sees the shops on position 4 (the ring wraps)
    and position 1 -- four types: 8 VP per skyscraper; shops on positions 2 and 3 do not count."""
    game = started_game(3)
    base = district * 6
    put_shops(game, base + 4, "boutique", "jeweler")
    put_shops(game, base + 1, "gallery", "perfume")
    put_shops(game, base + 2, "boutique")
    put_skyscrapers(game, 1, base + 0, 2)
    assert plot_value(game, base + 0) == 8
    game.comm_pos = [district, CITY_HALL]
    play(game, "action D", f"score {DISTRICT_NAMES[district]}")
    assert game.scores == [0, 16, 0]
    # shops two steps away (position 3) are not seen
    game = started_game(3)
    put_shops(game, base + 4, "boutique", "jeweler")
    put_shops(game, base + 3, "gallery", "perfume")
    put_skyscrapers(game, 1, base + 0, 1)
    assert plot_value(game, base + 0) == 3  # position 3 is not beside position 0: two types only


def test_r10_starting_shop_plots_are_uniform_over_the_valid_assignments():
    """R10: drawn uniformly among the assignments using every color at least once and none more
    than twice. Under that law every district's color is uniform (1/5) and any two districts
    share a color with probability 2/21 (1200 of the 12600 valid assignments); a district-by-
    district sampler that avoids colors already used twice gives 0.17 for districts 0 and 1, and
    independent plots (no constraint) 0.2."""
    games = 3000
    colors = np.array([[game.plot_color[p] for p in range(42) if game.plot_shops[p]]
                       for game in (new_game(3, seed=s) for s in range(games))])
    assert colors.shape == (games, 7)
    for d in range(7):
        freq = np.bincount(colors[:, d], minlength=5) / games
        assert np.all(np.abs(freq - 0.2) < 0.03), (d, freq)
    for d, e in itertools.combinations(range(7), 2):
        share = np.mean(colors[:, d] == colors[:, e])
        assert abs(share - 2 / 21) < 0.03, (d, e, share)


def test_r10_six_plot_board_nine_unused_tiles_and_no_starting_shop_on_a_colored_plot():
    """R10 with R8: on the 6-plot board the starting shops are on the shop plots (no color rule
    applies), and again 9 tiles stay out of the game: 7 placed + 20 in the row + 9 = 36, 9 per type."""
    for seed in range(10):
        game = new_game(3, board=6, seed=seed)
        placed = [t for d in range(7) for t in game.plot_shops[d * 6 + 5]]
        assert len(placed) == 7
        assert not any(game.plot_shops[d * 6 + p] for d in range(7) for p in range(5))
        assert len(game.unused_tiles) == 9 and len(game.row) == 20
        assert sorted(placed + game.row + game.unused_tiles) == sorted(list(range(4)) * 9)
