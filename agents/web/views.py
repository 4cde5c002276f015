"""What the browser is sent: a game's state as JSON data, whole or as one seat sees it.

The page draws what these functions hand it and knows no rule: the legal actions come with their
readable names (``Game.describe``) and what they point at on the board (a plot, a district, a card
kind), so that the page can make the board clickable without knowing which move is legal.

``state_view(game, seat)`` holds only what ``seat`` knows (R30, R31), the same facts the seat's
observation holds: the board, the row, the box, the commissioners, the scores and stocks, the top of
each pile, the cards on the auction table, the seat's own hand, and of every other hand its size per
color and the cards known exactly. ``seat=None`` is the omniscient view (every hand). The hidden
parts (other hands' unknown cards, the piles under their tops, the black pile, the generator) never
enter a seat view: ``tests/agents/test_web.py`` changes them and compares.
"""

from __future__ import annotations

from typing import Any

from fifthave_env.engine.actions import (
    BID_ADD,
    BLOCKS,
    BUILD,
    DRAW_COLOR,
    MOVE,
    NUM_ACTIONS,
    PLACE_START,
    SCORE_DISTRICT,
    SHOP_PLOT,
    SHOP_TILE,
)
from fifthave_env.engine.auction import ALEA, ALEA_IN, ALEA_NOT_YET
from fifthave_env.engine.board import (
    CENTRAL_PARK,
    COMMISSIONER_NAMES,
    DISTRICT_NAMES,
    LOCATION_NAMES,
    NUM_DISTRICTS,
    NUM_LOCATIONS,
    PLOTS_PER_DISTRICT,
    SHOP_NAMES,
    SUCCESSORS,
    parse_layout,
    plot_name,
)
from fifthave_env.engine.cards import BLACK, CARD_COLOR_NAMES, KIND_VALUE, NUM_COLORS, NUM_KINDS, kind_name
from fifthave_env.engine.game import DECISION_NAMES, Game, GameConfig
from fifthave_env import render_image as pic
from fifthave_env.render_text import SHOP_LETTERS

_BLOCK_OF = {}
for _first, _size, _block in BLOCKS:
    for _id in range(_first, _first + _size):
        _BLOCK_OF[_id] = (_block, _id - _first)


def _rgb(color):
    return "#%02x%02x%02x" % tuple(color)


def board_layout(config: GameConfig) -> dict[str, Any]:
    """The fixed picture of a configuration's board: where districts, plots, City Hall and Central Park
    are (the coordinates of ``render_image``, so that the page and the PNG frames agree), the routes
    of the commissioners (R6), and the colors and names used to draw everything."""
    colors = parse_layout(config.layout, config.board)  # color id per plot, -1 for the shop plot
    plots = []
    for d in range(NUM_DISTRICTS):
        for p in range(config.board):
            plot = d * PLOTS_PER_DISTRICT + p
            x, y = pic.plot_center(plot, config.board)
            plots.append({"plot": plot, "district": d, "x": round(float(x), 1), "y": round(float(y), 1),
                          "color": colors[plot], "name": plot_name(plot, colors)})
    return {
        "num_players": config.num_players, "board": config.board, "max_turns": config.max_turns,
        "districts": [{"name": DISTRICT_NAMES[d], "x": x, "y": y} for d, (x, y) in enumerate(pic.DISTRICT_CENTERS)],
        "plot_radius": pic.PLOT_RADIUS, "district_radius": pic.DISTRICT_RADIUS,
        "plots": plots,
        "city_hall": list(pic.CITY_HALL_BOX), "central_park": list(pic.CENTRAL_PARK_BOX),
        "routes": [[src, dest] for src, dests in SUCCESSORS.items() for dest in dests],
        "locations": list(LOCATION_NAMES), "central_park_id": CENTRAL_PARK, "num_locations": NUM_LOCATIONS,
        "card_colors": [_rgb(c) for c in pic.CARD_RGB], "card_color_names": list(CARD_COLOR_NAMES),
        "kind_values": list(KIND_VALUE), "kind_names": [kind_name(k) for k in range(NUM_KINDS)],
        "seat_colors": [_rgb(c) for c in pic.SEAT_RGB], "alea_color": _rgb(pic.ALEA_RGB),
        "shop_colors": [_rgb(c) for c in pic.SHOP_RGB], "shop_letters": SHOP_LETTERS, "shop_names": list(SHOP_NAMES),
        "commissioner_colors": [_rgb(c) for c in pic.COMMISSIONER_RGB],
        "commissioner_names": list(COMMISSIONER_NAMES),
    }


def _check_view(game, seat):
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < game.n):
        raise ValueError(f"view must be a seat in 0..{game.n - 1} or the omniscient view, got {seat!r}")


def state_view(game: Game, seat: int | None = None) -> dict[str, Any]:
    """The state to draw, as JSON data: everything (``seat=None``) or what ``seat`` knows."""
    _check_view(game, seat)
    g = game
    players = []
    for q in range(g.n):
        hand = g.hands[q]
        mine = seat is None or seat == q
        players.append({
            "seat": q, "score": g.scores[q], "reserve": g.reserve[q], "supply": g.supply[q],
            "park": g.cp_skyscrapers[q], "hand_size": sum(hand),
            "colors": [sum(hand[c * 3:c * 3 + 3]) for c in range(NUM_COLORS + 1)],  # public (R31)
            "known": list(g.known[q]),
            "cards": list(hand) if mine else None,
        })
    auction = None
    if g.auc_loc >= 0:
        seats = []
        for q in range(g.n):
            cards = g.auc_last_bid if g.auc_winner == q else g.auc_cards[q]  # the winner has paid already
            seats.append({"passed": g.auc_passed[q], "color": g.auc_color[q], "cards": list(cards),
                          "total": sum(KIND_VALUE[k] * cards[k] for k in range(NUM_KINDS))})
        alea = None
        if g.has_alea and g.auc_alea_state != ALEA_NOT_YET:
            alea = {"in": g.auc_alea_state == ALEA_IN, "cards": [KIND_VALUE[BLACK * 3 + v] for v in g.auc_alea_cards]}
        auction = {"location": g.auc_loc, "name": LOCATION_NAMES[g.auc_loc], "full": g.auc_full,
                   "high": g.auc_high, "high_bidder": "Alea" if g.auc_high_bidder == ALEA else g.auc_high_bidder,
                   "park_color": g.auc_cp_color, "seats": seats, "alea": alea,
                   "winner": "Alea" if g.auc_winner == ALEA else g.auc_winner,
                   "queue": [LOCATION_NAMES[loc] for loc in g.auc_queue]}
    groups = [g.row[g.group_start[i]:g.group_start[i + 1]] for i in range(len(g.group_start) - 1)]
    plots = [{"plot": d * PLOTS_PER_DISTRICT + p, "shops": list(g.plot_shops[d * PLOTS_PER_DISTRICT + p]),
              "owner": g.plot_owner[d * PLOTS_PER_DISTRICT + p], "height": g.plot_height[d * PLOTS_PER_DISTRICT + p]}
             for d in range(NUM_DISTRICTS) for p in range(g.config.board)]
    return {
        "view": "omniscient" if seat is None else seat,
        "turn": g.turn, "decision": DECISION_NAMES[g.decision], "actor": g.actor, "active": g.active,
        "over": g.is_over, "truncated": g.truncated, "winners": list(g.winners),
        "shops_placed": g.shops_placed, "stops": g.stops,
        "plots": plots, "closed": list(g.closed), "commissioners": list(g.comm_pos),
        "markers": [list(m) for m in g.markers],
        "row": [list(group) for group in groups], "active_group": g._active_group(), "box": sorted(g.box),
        "pending_tile": g.pending_tile, "central_park_draw": list(g.central_park_draw),
        "piles": [{"top": KIND_VALUE[c * 3 + g.piles[c][-1]] if g.piles[c] else None, "size": len(g.piles[c])}
                  for c in range(NUM_COLORS)],
        "black": len(g.black),
        "players": players,
        "alea_supply": g.alea_supply if g.has_alea else None,
        "auction": auction,
    }


def action_target(action: int) -> dict[str, Any]:
    """What an action id points at, for the page to make the board clickable: ``{"block": name, ...}``."""
    block, offset = _BLOCK_OF[action]
    target: dict[str, Any] = {"block": block}
    if action >= BID_ADD and block == "bid":
        target["kind"] = action - BID_ADD
    elif PLACE_START <= action < SHOP_TILE:
        target["plot"] = action - PLACE_START
    elif SHOP_PLOT <= action < DRAW_COLOR:
        target["plot"] = action - SHOP_PLOT
    elif SHOP_TILE <= action < SHOP_PLOT:
        target["shop"] = action - SHOP_TILE
    elif DRAW_COLOR <= action < MOVE:
        target["color"] = action - DRAW_COLOR
    elif MOVE <= action < SCORE_DISTRICT:
        target["commissioner"], target["location"] = divmod(action - MOVE, NUM_LOCATIONS)
    elif SCORE_DISTRICT <= action < BID_ADD:
        target["district"] = action - SCORE_DISTRICT
    elif BUILD <= action < BUILD + 4:
        target["build"] = action - BUILD
    return target


def legal_view(game: Game) -> list[dict[str, Any]]:
    """The legal actions of the seat asked now: id, readable name and target."""
    return [{"id": a, "name": game.describe(a), **action_target(a)} for a in game.legal_actions()]


def explanation_view(game: Game, explanation: Any) -> dict[str, Any] | None:
    """An agent's ``explain()`` report with readable names added to its candidates (``game`` is the state
    it decided in); the report itself is passed on as data, never interpreted."""
    if not isinstance(explanation, dict):
        return None
    shown = dict(explanation)
    candidates = explanation.get("candidates")
    if isinstance(candidates, list):
        named = []
        for candidate in candidates:
            if not isinstance(candidate, dict):
                continue
            actions = candidate.get("actions")
            names = [game.describe(a) for a in actions] if isinstance(actions, list) and all(
                isinstance(a, int) and not isinstance(a, bool) and 0 <= a < NUM_ACTIONS for a in actions) else []
            named.append({**candidate, "names": names})
        shown["candidates"] = named
    return shown
