"""Scenario builders for the rules tests: set up a chosen position, then play named actions.

The tests edit a :class:`Game`'s fields directly (an empty board, chosen hands,
a stacked black pile, commissioners placed by hand) and then drive it only
through ``game.apply``. Every helper that edits state ends with
``game.touch()``, which also drops the game's cached legal actions.

Card names are those of :func:`engine.cards.kind_name` (``"gray 4"``,
``"black 6"``); action names those of :func:`engine.action_name`
(``"bid gray 4"``, ``"move white -> City Hall"``).
"""

import numpy as np

from fifthave_env.engine import Game, GameConfig, action_from_name
from fifthave_env.engine.board import CENTRAL_PARK, CITY_HALL, NUM_PLOTS, PLOTS_PER_DISTRICT, SHOP_NAMES
from fifthave_env.engine.cards import COLOR_NAMES, NUM_KINDS, VALUES, kind_name
from fifthave_env.engine.game import CHOOSE_ACTION_DECISION, MOVE_DECISION

KIND_OF_NAME = {kind_name(k): k for k in range(NUM_KINDS)}
WHITE, BEIGE = 0, 1

__all__ = [
    "BEIGE", "CENTRAL_PARK", "CITY_HALL", "WHITE", "auction_round", "cards", "clear_board", "hand_of",
    "legal_names", "new_game", "play", "plot_of", "put_shops", "put_skyscrapers", "set_hand",
    "stack_black", "stack_pile", "start_move", "start_turn", "started_game",
]


def new_game(num_players=3, board=5, seed=0, **config):
    """A fresh game, still in setup (starting skyscrapers not placed)."""
    return Game(GameConfig(num_players=num_players, board=board, **config), seed=seed)


def started_game(num_players=3, board=5, seed=0, **config):
    """A game past setup on an empty board: no shops, no skyscrapers, seat 0 to choose an action.

    The starting skyscrapers are placed (lowest legal plot) and then cleared away
    with every starting shop, so a test puts exactly what it needs on the board.
    Hands, piles, row and supplies are those the seed dealt.
    """
    game = new_game(num_players, board, seed, **config)
    while game.decision != CHOOSE_ACTION_DECISION:
        game.apply(game.legal_actions()[0])
    clear_board(game)
    start_turn(game, 0)
    return game


def clear_board(game):
    """Remove every shop and skyscraper from the plots (they simply vanish)."""
    for plot in range(NUM_PLOTS):
        game.plot_shops[plot] = []
        game.plot_owner[plot] = -1
        game.plot_height[plot] = 0
    for owned in game.owned:
        owned[:] = [-1] * len(owned)
    game.touch()


def plot_of(game, district, color):
    """The plot of ``district`` with plot color ``color`` (a name); ``None`` names the shop plot."""
    if color is None:
        return game.shop_plot_of[district]
    return game.color_plot[district][COLOR_NAMES.index(color)]


def put_skyscrapers(game, owner, plot, count):
    """``count`` skyscrapers of ``owner`` (a seat or ALEA) on ``plot``; does not touch reserves."""
    game.plot_owner[plot] = owner
    game.plot_height[plot] = count
    if owner < game.n:
        game.owned[owner][plot // PLOTS_PER_DISTRICT] = plot
    game.touch()


def put_shops(game, plot, *shop_names):
    game.plot_shops[plot] = [SHOP_NAMES.index(s) for s in shop_names]
    game.touch()


def cards(*names):
    """A list of 18 counts from card names, e.g. ``cards("gray 4", "gray 4", "black 6")``."""
    counts = [0] * NUM_KINDS
    for name in names:
        counts[KIND_OF_NAME[name]] += 1
    return counts


def set_hand(game, seat, *names):
    """Replace a seat's hand (the cards simply appear; known cards are reset to none)."""
    game.hands[seat] = cards(*names)
    game.known[seat] = [0] * NUM_KINDS
    game.touch()


def hand_of(game, seat):
    """A seat's hand as a sorted list of card names."""
    return sorted(kind_name(k) for k in range(NUM_KINDS) for _ in range(game.hands[seat][k]))


def stack_black(game, *values):
    """Make the black pile exactly ``values`` (4/5/6), the first one drawn first, all face down."""
    game.black = [VALUES.index(v) for v in reversed(values)]
    game.black_seen = [0, 0, 0]
    game.black_faceup = 0
    game.touch()


def stack_pile(game, color, *values):
    """Make a colored pile exactly ``values`` (4/5/6), the first one on top."""
    c = COLOR_NAMES.index(color)
    game.piles[c] = [VALUES.index(v) for v in reversed(values)]
    game.pile_known[c] = 0
    game.touch()


def start_turn(game, seat):
    """Make it ``seat``'s turn, at the start (choose A/B/C/D)."""
    game.active = game.actor = seat
    game.turn_action = -1
    game.first_draw = -1
    game.final_move = False
    game.decision = CHOOSE_ACTION_DECISION
    game.touch()


def start_move(game, seat, final=True):
    """Make it ``seat``'s commissioner move: phase 3 if ``final`` (the turn ends after it), else action C's."""
    game.active = game.actor = seat
    game.turn_action = 0 if final else 2
    game.first_draw = -1
    game.final_move = final
    game.decision = MOVE_DECISION
    game.touch()


def auction_round(game, seat, districts, commissioner=WHITE, other_at=CITY_HALL):
    """Start the auctions: ``commissioner`` visited ``districts`` and ``seat`` moves it home.

    The commissioner is put in Central Park with a marker in each district, the
    other one at ``other_at``; ``seat`` plays its phase-3 move to City Hall. The
    first auction (the first district, or Central Park) is then open.
    """
    game.comm_pos[commissioner] = CENTRAL_PARK
    game.comm_pos[1 - commissioner] = other_at
    for d in range(len(game.markers[commissioner])):
        game.markers[commissioner][d] = d in districts
    start_move(game, seat)
    play(game, f"move {('white', 'beige')[commissioner]} -> City Hall")


def play(game, *names):
    """Apply actions given by name, in order, for whoever is asked."""
    for name in names:
        game.apply(action_from_name(name, game.plot_color))


def legal_names(game):
    """The legal actions now, as a set of names."""
    return {game.describe(a) for a in game.legal_actions()}


CONFIGS = [(n, b) for n in (2, 3, 4) for b in (5, 6)]
"""Every (players, board) configuration."""


def random_positions(num_players, board, seed, count, skip=37):
    """Games cloned at every ``skip``-th decision of random legal play."""
    game = Game(GameConfig(num_players=num_players, board=board), seed=seed)
    rng = np.random.default_rng(seed)
    positions = []
    step = 0
    while not game.is_over and len(positions) < count:
        if step % skip == 0:
            positions.append(game.clone())
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        step += 1
    return positions
