"""A picture of a game for ``render_mode="rgb_array"`` / ``"human"`` and for replays.

``render_image(game)`` returns an ``(720, 1280, 3)`` uint8 array (``scale``
multiplies both sides); ``board_image(game)`` returns the same picture as a
``PIL.Image``. Left: the board as the rules describe it (R5, R6): City Hall,
the seven districts in three columns with the commissioner routes between
them, Central Park. Each district is a ring of plots (R7) colored like the
cards that name them, holding shops (letters B/J/G/P) and skyscrapers (a tower
in the owner's color with the height on it). Right: the players, the piles,
the shop row and the Central Park box, the auction in progress and a hand.

Drawn with Pillow rather than matplotlib: the layout is fixed, so plain
shapes at known coordinates are all it needs, there is no figure state to
manage, and a frame takes about 15 ms on one core (replays draw hundreds).
Shapes are drawn at twice the size and scaled down, which smooths their
edges; the parts every picture shares and the rendered texts are cached.
"""

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .engine.auction import ALEA, ALEA_IN, ALEA_NOT_YET
from .engine.board import (
    CENTRAL_PARK,
    DISTRICT_NAMES,
    LOCATION_NAMES,
    NUM_DISTRICTS,
    PLOTS_PER_DISTRICT,
    SHOP_NAMES,
    SHOP_PLOT,
    SUCCESSORS,
)
from .engine.cards import BLACK, CARD_COLOR_NAMES, KIND_COLOR, KIND_VALUE, NUM_COLORS, NUM_KINDS
from .engine.game import DECISION_NAMES, Game
from .render_text import SHOP_LETTERS

WIDTH, HEIGHT = 1280, 720
_SUPERSAMPLE = 2

CARD_RGB = ((150, 150, 150), (140, 90, 55), (140, 90, 190), (240, 145, 40), (70, 165, 75), (35, 35, 35))
SEAT_RGB = ((215, 40, 50), (35, 100, 205), (245, 200, 0), (250, 250, 250))
ALEA_RGB = (60, 60, 60)
SHOP_RGB = ((255, 170, 200), (255, 230, 120), (140, 220, 230), (200, 175, 240))
COMMISSIONER_RGB = ((255, 255, 255), (225, 195, 140))
INK = (30, 30, 35)
PAPER = (246, 242, 232)
PANEL = (236, 231, 219)
ROUTE = (170, 160, 140)
HIGHLIGHT = (235, 170, 0)
# The colors that must survive a reduction to a small palette (GIF frames in ``replay``).
KEY_COLORS = (*CARD_RGB, *SEAT_RGB, ALEA_RGB, *SHOP_RGB, *COMMISSIONER_RGB, INK, PAPER, PANEL, ROUTE, HIGHLIGHT,
              (255, 255, 255))

# Board geometry (output pixels at scale 1).
PLOT_RADIUS = 24
RING_RADIUS = 52
DISTRICT_RADIUS = RING_RADIUS + PLOT_RADIUS + 9
DISTRICT_CENTERS = ((215, 252), (215, 457), (405, 150), (405, 355), (405, 560), (595, 252), (595, 457))
CITY_HALL_BOX = (14, 275, 112, 435)
CENTRAL_PARK_BOX = (690, 225, 795, 485)
PANEL_LEFT = 815


def _box_center(box):
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


LOCATION_CENTERS = DISTRICT_CENTERS + (_box_center(CENTRAL_PARK_BOX), _box_center(CITY_HALL_BOX))


def plot_center(plot: int, board: int = 5) -> tuple[float, float]:
    """Pixel ``(x, y)`` (scale 1) of a plot's center; position 0 is at the top, then clockwise."""
    d, p = divmod(plot, PLOTS_PER_DISTRICT)
    if p >= board:
        raise ValueError(f"plot {plot} does not exist on the {board}-plot board")
    angle = -np.pi / 2 + 2 * np.pi * p / board
    cx, cy = DISTRICT_CENTERS[d]
    return cx + RING_RADIUS * np.cos(angle), cy + RING_RADIUS * np.sin(angle)


@functools.lru_cache(maxsize=None)
def _font(size: int):
    return ImageFont.load_default(size=size)


def _text_rgb(fill):
    """Black or white, whichever reads better on ``fill``."""
    r, g, b = fill[:3]
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


def _owner_rgb(owner):
    return ALEA_RGB if owner == ALEA else SEAT_RGB[owner]


@functools.lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, anchor):
    """The text as an alpha mask and its offset from the anchor point (drawing text is the slow part)."""
    font = _font(size)
    left, top, right, bottom = font.getbbox(text, anchor=anchor)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask, left, top


class _Pen:
    """ImageDraw in output pixels: every coordinate and size is multiplied by the supersampling factor."""

    def __init__(self, image, factor) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.k = factor

    def _xy(self, *values):
        return [v * self.k for v in values]

    def rect(self, box, fill=None, outline=None, width: float = 1, radius: float = 0) -> None:
        self.draw.rounded_rectangle(self._xy(*box), radius=radius * self.k, fill=fill, outline=outline,
                                    width=max(1, round(width * self.k)) if outline else 0)

    def circle(self, x, y, r, fill=None, outline=None, width: float = 1) -> None:
        self.draw.ellipse(self._xy(x - r, y - r, x + r, y + r), fill=fill, outline=outline,
                          width=max(1, round(width * self.k)) if outline else 0)

    def line(self, points, fill, width: float = 1) -> None:
        self.draw.line([v * self.k for point in points for v in point], fill=fill, width=round(width * self.k),
                       joint="curve")

    def polygon(self, points, fill=None, outline=None, width: float = 1) -> None:
        self.draw.polygon([v * self.k for point in points for v in point], fill=fill, outline=outline,
                          width=max(1, round(width * self.k)) if outline else 0)

    def text(self, x, y, text: str, size: int = 14, fill=INK, anchor: str = "la") -> None:
        mask, left, top = _text_mask(text, size * self.k, anchor)
        self.image.paste(fill, (round(x * self.k) + left, round(y * self.k) + top), mask)

    def text_width(self, text: str, size: int = 14):
        return self.draw.textlength(text, font=_font(size * self.k)) / self.k


def board_image(game: Game, hands: str | int = "actor", caption: str | None = None, scale: float = 1.0) -> Image.Image:
    """The game as a ``PIL.Image`` (RGB, ``1280 x 720`` times ``scale``).

    ``hands`` picks whose exact hand is shown (everything else drawn is public, R30):
    ``"actor"`` the seat asked now (as the ansi renderer), ``"none"``, or a seat number.
    ``caption`` is a line of text at the bottom, e.g. the action just played.
    """
    if hands != "actor" and hands != "none" and not (
            isinstance(hands, (int, np.integer)) and not isinstance(hands, bool) and 0 <= hands < game.n):
        raise ValueError(f"hands must be 'actor', 'none' or a seat in 0..{game.n - 1}, got {hands!r}")
    if not scale > 0:
        raise ValueError(f"scale must be positive, got {scale!r}")
    k = _SUPERSAMPLE
    image = _background().copy()
    pen = _Pen(image, k)
    _draw_header(pen, game)
    for d in range(NUM_DISTRICTS):
        _draw_district(pen, game, d)
    _draw_central_park(pen, game)
    _draw_commissioners(pen, game)
    _draw_panel(pen, game, hands)
    if caption:
        pen.rect((0, HEIGHT - 26, PANEL_LEFT - 10, HEIGHT), fill=(255, 255, 255))
        pen.text(12, HEIGHT - 13, caption, size=15, anchor="lm")
    image = image.reduce(k)
    if scale != 1:
        image = image.resize((round(WIDTH * scale), round(HEIGHT * scale)), Image.Resampling.LANCZOS)
    return image


def render_image(game: Game, hands: str | int = "actor", caption: str | None = None, scale: float = 1.0) -> np.ndarray:
    """The picture of :func:`board_image` as an ``(H, W, 3)`` uint8 numpy array."""
    return np.asarray(board_image(game, hands=hands, caption=caption, scale=scale))


# ---- the board ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _background():
    """What every picture shares: the header bar, the routes, City Hall, the legend, the side panel."""
    image = Image.new("RGB", (WIDTH * _SUPERSAMPLE, HEIGHT * _SUPERSAMPLE), PAPER)
    pen = _Pen(image, _SUPERSAMPLE)
    pen.rect((0, 0, WIDTH, 40), fill=(45, 45, 55))
    pen.text(14, 20, "Fifth Avenue", size=22, fill=(255, 255, 255), anchor="lm")
    _draw_routes(pen)
    _draw_city_hall(pen)
    _draw_legend(pen)
    pen.rect((PANEL_LEFT, 40, WIDTH, HEIGHT), fill=PANEL)
    return image


def _draw_header(pen, g) -> None:
    info = (f"{g.n} players · {g.config.board}-plot board · turn {g.turn} · "
            f"shops placed {g.shops_placed}/12 · stops {g.stops}/2")
    pen.text(170, 21, info, size=15, fill=(210, 210, 210), anchor="lm")
    if g.is_over:
        who = " and ".join(f"seat {p}" for p in g.winners)
        status = f"game over ({'truncated' if g.truncated else 'finished'}): {who} {'win' if len(g.winners) > 1 else 'wins'}"
    else:
        status = f"seat {g.actor} to play: {DECISION_NAMES[g.decision]}"
    pen.text(WIDTH - 14, 21, status, size=16, fill=(255, 225, 120), anchor="rm")


def _edge_point(loc, toward):
    """Where a route from ``loc`` toward the point ``toward`` leaves its circle or box."""
    x, y = LOCATION_CENTERS[loc]
    dx, dy = toward[0] - x, toward[1] - y
    length = float(np.hypot(dx, dy))
    if loc < NUM_DISTRICTS:
        reach = DISTRICT_RADIUS + 3
    else:
        box = CENTRAL_PARK_BOX if loc == CENTRAL_PARK else CITY_HALL_BOX
        reach = min((box[2] - box[0]) / 2 / max(abs(dx) / length, 1e-9),
                    (box[3] - box[1]) / 2 / max(abs(dy) / length, 1e-9)) + 3
    return x + dx / length * reach, y + dy / length * reach


def _arrow(pen, start, end, fill, width: int = 3) -> None:
    pen.line([start, end], fill=fill, width=width)
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = float(np.hypot(dx, dy))
    ux, uy = dx / length, dy / length
    back = (end[0] - 11 * ux, end[1] - 11 * uy)
    pen.polygon([end, (back[0] - 6 * uy, back[1] + 6 * ux), (back[0] + 6 * uy, back[1] - 6 * ux)], fill=fill)


def _draw_routes(pen) -> None:
    """R6: the commissioners' moves, left to right, and the way home that starts the auctions."""
    for src, dests in SUCCESSORS.items():
        if src == CENTRAL_PARK:
            continue
        for dest in dests:
            a = _edge_point(src, LOCATION_CENTERS[dest])
            b = _edge_point(dest, LOCATION_CENTERS[src])
            _arrow(pen, a, b, ROUTE)
    cp_box, ch_box = CENTRAL_PARK_BOX, CITY_HALL_BOX
    bottom = HEIGHT - 40
    home = [((cp_box[0] + cp_box[2]) / 2, cp_box[3] + 3), ((cp_box[0] + cp_box[2]) / 2, bottom),
            ((ch_box[0] + ch_box[2]) / 2, bottom)]
    pen.line(home, fill=ROUTE, width=3)
    _arrow(pen, home[-1], ((ch_box[0] + ch_box[2]) / 2, ch_box[3] + 3), ROUTE)
    pen.text(300, bottom - 10, "back to City Hall: auctions", size=13, fill=(130, 120, 100), anchor="lm")


def _draw_district(pen, g, d) -> None:
    cx, cy = DISTRICT_CENTERS[d]
    auctioned = g.auc_loc == d
    pen.circle(cx, cy, DISTRICT_RADIUS, fill=(252, 250, 244) if not g.closed[d] else (200, 196, 188),
               outline=HIGHLIGHT if auctioned else (120, 112, 100), width=5 if auctioned else 2)
    pen.text(cx, cy - DISTRICT_RADIUS - 11, f"{d} {DISTRICT_NAMES[d]}", size=14, anchor="mm")
    for p in range(g.config.board):
        _draw_plot(pen, g, d * PLOTS_PER_DISTRICT + p)
    if g.closed[d]:
        pen.rect((cx - 46, cy - 13, cx + 46, cy + 13), fill=(70, 66, 60), radius=5)
        pen.text(cx, cy, "CLOSED", size=15, fill=(255, 255, 255), anchor="mm")
    # Markers (R18): where a commissioner has been since its last auctions.
    for c in (0, 1):
        if g.markers[c][d]:
            _flag(pen, cx + 66 + 18 * c, cy - DISTRICT_RADIUS - 10, COMMISSIONER_RGB[c])


def _draw_plot(pen, g, plot) -> None:
    x, y = plot_center(plot, g.config.board)
    color = g.plot_color[plot]
    owner = g.plot_owner[plot]
    height = g.plot_height[plot]
    closed = g.closed[plot // PLOTS_PER_DISTRICT]
    if color == SHOP_PLOT:
        pen.circle(x, y, PLOT_RADIUS, fill=(255, 255, 255) if not closed else (165, 160, 152),
                   outline=(120, 112, 100), width=2)
        pen.circle(x, y, PLOT_RADIUS - 5, outline=(190, 180, 165), width=1)
    else:
        fill = CARD_RGB[color] if not closed else (165, 160, 152)
        pen.circle(x, y, PLOT_RADIUS, fill=fill, outline=_owner_rgb(owner) if height else INK,
                   width=4 if height else 1.5)
    shops = g.plot_shops[plot]
    if shops:
        top = y - 8 if not height else y - PLOT_RADIUS + 2
        for i, t in enumerate(shops):
            sx = x - 8.5 * (len(shops) - 1) + 17 * i
            _shop_tile(pen, sx, top if height else y, t, size=15)
    if height:
        _tower(pen, x, y + (6 if shops else 2), _owner_rgb(owner), str(height), size=1.0)


def _shop_tile(pen, x, y, shop_type, size: int = 15) -> None:
    h = size / 2
    pen.rect((x - h, y - h, x + h, y + h), fill=SHOP_RGB[shop_type], outline=INK, width=1.2, radius=3)
    pen.text(x, y + 0.5, SHOP_LETTERS[shop_type], size=round(size * 0.75), anchor="mm")


def _tower(pen, x, y, fill, label: str, size: float = 1.0) -> None:
    """A skyscraper: a block with a setback top; ``label`` written on it."""
    w, h = 11 * size, 14 * size
    pen.polygon([(x - w, y + h), (x - w, y - h + 5 * size), (x - w / 2, y - h + 5 * size), (x - w / 2, y - h),
                 (x + w / 2, y - h), (x + w / 2, y - h + 5 * size), (x + w, y - h + 5 * size), (x + w, y + h)],
                fill=fill, outline=INK, width=1.5)
    if label:
        pen.text(x, y + 3 * size, label, size=round(14 * size), fill=_text_rgb(fill), anchor="mm")


def _draw_city_hall(pen) -> None:
    box = CITY_HALL_BOX
    pen.rect(box, fill=(215, 210, 200), outline=(120, 112, 100), width=2, radius=8)
    pen.text((box[0] + box[2]) / 2, box[1] + 16, "City Hall", size=15, anchor="mm")


def _draw_central_park(pen, g) -> None:
    box = CENTRAL_PARK_BOX
    auctioned = g.auc_loc == CENTRAL_PARK
    pen.rect(box, fill=(150, 200, 130), outline=HIGHLIGHT if auctioned else (80, 120, 70),
             width=5 if auctioned else 2, radius=8)
    x0, cx = box[0], (box[0] + box[2]) / 2
    pen.text(cx, box[1] + 14, "Central Park", size=14, anchor="mm")
    towers = [(p, count) for p, count in enumerate(g.cp_skyscrapers) if count]
    for i, (p, count) in enumerate(towers):
        tx, ty = x0 + 28 + 50 * (i % 2), box[1] + 52 + 40 * (i // 2)
        _tower(pen, tx, ty, SEAT_RGB[p], str(count), size=1.0)
    # The box (R9): the tiles that will be drawn for Central Park's final scoring (R27).
    pen.text(cx, box[1] + 128, f"box ({len(g.box)})", size=13, anchor="mm")
    for i, t in enumerate(sorted(g.box)):
        row, col = divmod(i, 5)
        _shop_tile(pen, x0 + 16 + 18 * col, box[1] + 146 + 18 * row, t, size=15)
    if g.central_park_draw:
        pen.text(cx, box[1] + 190, "drawn at the end", size=12, anchor="mm")
        for i, t in enumerate(g.central_park_draw):
            _shop_tile(pen, x0 + 34 + 18 * i, box[1] + 208, t, size=15)


def _draw_commissioners(pen, g) -> None:
    """The white and beige commissioners: pawns beside their district, inside City Hall or Central Park."""
    for c in (0, 1):
        loc = g.comm_pos[c]
        both_here = g.comm_pos[1 - c] == loc
        if loc < NUM_DISTRICTS:
            cx, cy = DISTRICT_CENTERS[loc]
            x, y = cx - DISTRICT_RADIUS + 2 + (22 * c if both_here else 0), cy + DISTRICT_RADIUS - 12
        else:
            box = CENTRAL_PARK_BOX if loc == CENTRAL_PARK else CITY_HALL_BOX
            x, y = (box[0] + box[2]) / 2 + (12 * (2 * c - 1) if both_here else 0), box[3] - 22
        _pawn(pen, x, y, COMMISSIONER_RGB[c])


def _pawn(pen, x, y, fill) -> None:
    pen.polygon([(x - 10, y + 14), (x - 5, y - 2), (x + 5, y - 2), (x + 10, y + 14)], fill=fill, outline=INK, width=1.5)
    pen.circle(x, y - 7, 7, fill=fill, outline=INK, width=1.5)


def _flag(pen, x, y, fill) -> None:
    """A commissioner's marker: a flag whose foot is at ``(x, y + 10)``."""
    pen.line([(x, y + 10), (x, y - 10)], fill=INK, width=2)
    pen.polygon([(x, y - 10), (x + 14, y - 5), (x, y)], fill=fill, outline=INK, width=1.2)


def _draw_legend(pen) -> None:
    x, y = 16, 62
    _pawn(pen, x + 8, y + 6, COMMISSIONER_RGB[0])
    _pawn(pen, x + 30, y + 6, COMMISSIONER_RGB[1])
    pen.text(x + 46, y + 6, "commissioners", size=12, anchor="lm")
    _flag(pen, x + 4, y + 40, COMMISSIONER_RGB[0])
    _flag(pen, x + 26, y + 40, COMMISSIONER_RGB[1])
    pen.text(x + 46, y + 40, "markers", size=12, anchor="lm")
    _tower(pen, x + 15, y + 76, PAPER, "2", size=0.9)
    pen.text(x + 46, y + 76, "skyscrapers", size=12, anchor="lm")
    _shop_tile(pen, x + 15, y + 108, 0)
    pen.text(x + 46, y + 108, "shop", size=12, anchor="lm")


# ---- the side panel ----------------------------------------------------------------------


def _card(pen, x, y, color, label: str, w: int = 20, h: int = 27) -> None:
    fill = CARD_RGB[color]
    pen.rect((x, y, x + w, y + h), fill=fill, outline=INK, width=1, radius=3)
    if label:
        pen.text(x + w / 2, y + h / 2, label, size=13, fill=_text_rgb(fill), anchor="mm")


def _section(pen, y, title) -> None:
    pen.text(PANEL_LEFT + 10, y, title, size=15, fill=(90, 80, 60), anchor="lm")
    pen.line([(PANEL_LEFT + 12 + pen.text_width(title, 15) + 8, y), (WIDTH - 12, y)], fill=(190, 180, 160), width=1)


def _draw_panel(pen, g, hands) -> None:
    y = _draw_players(pen, g, 58)
    y = _draw_piles_and_row(pen, g, y + 8)
    y = _draw_auction(pen, g, y + 8)
    seat = g.actor if hands == "actor" else (None if hands == "none" else hands)
    if seat is not None and 0 <= seat < g.n:
        _section(pen, y + 8, f"hand of seat {seat}")
        _card_row(pen, PANEL_LEFT + 14, y + 22, g.hands[seat])


def _card_row(pen, x, y, counts: Sequence[int]):
    """Cards by kind with their counts, e.g. ``[5] x2``, wrapping at the panel's edge; returns the end ``(x, y)``."""
    left = x
    for kind in range(NUM_KINDS):
        if counts[kind]:
            if x > WIDTH - 60:
                x, y = left, y + 32
            _card(pen, x, y, KIND_COLOR[kind], str(KIND_VALUE[kind]))
            x += 22
            if counts[kind] > 1:
                pen.text(x, y + 14, f"x{counts[kind]}", size=12, anchor="lm")
                x += 20
            x += 4
    return x, y


def _draw_players(pen, g, y):
    _section(pen, y, "players")
    y += 14
    row_h = 44
    for p in range(g.n):
        top = y + row_h * p
        if p == g.actor:
            pen.rect((PANEL_LEFT + 6, top, WIDTH - 6, top + row_h - 4), fill=(255, 236, 170), radius=6)
        _tower(pen, PANEL_LEFT + 26, top + 21, SEAT_RGB[p], "", size=0.9)
        star = "  (winner)" if g.is_over and p in g.winners else ""
        pen.text(PANEL_LEFT + 44, top + 13, f"seat {p}{star}", size=15, anchor="lm")
        pen.text(PANEL_LEFT + 44, top + 31, f"res {g.reserve[p]} · sup {g.supply[p]} · park {g.cp_skyscrapers[p]}",
                 size=12, fill=(80, 75, 65), anchor="lm")
        pen.text(PANEL_LEFT + 228, top + 20, f"{g.scores[p]}", size=22, anchor="rm")
        pen.text(PANEL_LEFT + 231, top + 24, "VP", size=11, fill=(80, 75, 65), anchor="lm")
        # Cards per color: public by R31.
        hand = g.hands[p]
        x = PANEL_LEFT + 258
        for color in range(NUM_COLORS + 1):
            count = sum(hand[color * 3:color * 3 + 3])
            _card(pen, x + 33 * color, top + 7, color, str(count), w=26, h=28)
    y += row_h * g.n
    if g.has_alea:
        pen.text(PANEL_LEFT + 14, y + 8, f"Alea (dummy bidder): {g.alea_supply} skyscrapers left", size=12,
                 fill=(80, 75, 65), anchor="lm")
        _tower(pen, PANEL_LEFT + 265, y + 8, ALEA_RGB, "", size=0.55)
        y += 16
    return y


def _draw_piles_and_row(pen, g, y):
    _section(pen, y, "piles")
    top = y + 12
    for c in range(NUM_COLORS):
        pile = g.piles[c]
        x = PANEL_LEFT + 14 + 52 * c
        _card(pen, x, top, c, str(KIND_VALUE[c * 3 + pile[-1]]) if pile else "-", w=24, h=32)
        pen.text(x + 28, top + 16, str(len(pile)), size=12, anchor="lm")
    x = PANEL_LEFT + 14 + 52 * NUM_COLORS
    _card(pen, x, top, BLACK, "?", w=24, h=32)
    pen.text(x + 28, top + 16, f"{len(g.black)}", size=12, anchor="lm")

    y = top + 48
    _section(pen, y, "shop row")
    top = y + 12
    x = PANEL_LEFT + 14
    active = g._active_group()
    for i in range(len(g.group_start) - 1):
        lo, hi = g.group_start[i], g.group_start[i + 1]
        width = 18 * (hi - lo)
        if i == active:
            pen.rect((x - 3, top - 3, x + width + 1, top + 23), outline=HIGHLIGHT, width=3, radius=4)
        for s in range(lo, hi):
            sx = x + 18 * (s - lo) + 9
            if g.row[s] >= 0:
                _shop_tile(pen, sx, top + 10, g.row[s], size=16)
            else:
                pen.rect((sx - 7, top + 3, sx + 7, top + 17), outline=(185, 175, 160), width=1, radius=3)
        x += width + 9
    key = "  ".join(f"{letter} {name}" for letter, name in zip(SHOP_LETTERS, SHOP_NAMES))
    pen.text(PANEL_LEFT + 14, top + 38, key, size=12, fill=(80, 75, 65), anchor="lm")
    return top + 50


def _draw_auction(pen, g, y):
    if g.auc_loc < 0:
        return y
    where = LOCATION_NAMES[g.auc_loc]
    _section(pen, y, f"auction: {where}" + (" (full: stop possible)" if g.auc_full else ""))
    top = y + 14
    high = "no bid yet" if g.auc_high_bidder < 0 else (
        f"high bid {g.auc_high} by " + ("Alea" if g.auc_high_bidder == ALEA else f"seat {g.auc_high_bidder}"))
    if g.auc_cp_color >= 0:
        high += f" · park color {CARD_COLOR_NAMES[g.auc_cp_color]}"
    pen.text(PANEL_LEFT + 14, top + 6, high, size=13, anchor="lm")
    top += 16
    for p in range(g.n):
        _tower(pen, PANEL_LEFT + 22, top + 14, SEAT_RGB[p], "", size=0.6)
        cards = g.auc_last_bid if g.auc_winner == p else g.auc_cards[p]  # the winner has paid already
        if g.auc_passed[p]:
            state = "passed"
        elif g.auc_color[p] < 0:
            state = "no cards laid"
        elif g.auc_winner == p:
            state = f"= {sum(KIND_VALUE[k] * cards[k] for k in range(NUM_KINDS))}, won"
        else:
            state = f"= {g.auc_total[p]}" + (" (high bid)" if g.auc_high_bidder == p else "")
        x = PANEL_LEFT + 36
        if g.auc_color[p] >= 0 and not g.auc_passed[p]:
            x, top = _card_row(pen, x, top + 1, cards)
            top -= 1
        pen.text(x + 4, top + 14, state, size=13, fill=(80, 75, 65), anchor="lm")
        top += 30
    if g.has_alea and g.auc_alea_state != ALEA_NOT_YET:
        _tower(pen, PANEL_LEFT + 22, top + 14, ALEA_RGB, "", size=0.6)
        x = PANEL_LEFT + 36
        for v in g.auc_alea_cards:
            _card(pen, x, top + 1, BLACK, str(KIND_VALUE[BLACK * 3 + v]))
            x += 24
        total = sum(KIND_VALUE[BLACK * 3 + v] for v in g.auc_alea_cards)
        pen.text(x + 4, top + 14, f"Alea {total}: {'in' if g.auc_alea_state == ALEA_IN else 'out'}", size=13,
                 fill=(80, 75, 65), anchor="lm")
        top += 30
    if g.auc_winner >= 0:
        who = "Alea" if g.auc_winner == ALEA else f"seat {g.auc_winner}"
        pen.text(PANEL_LEFT + 14, top + 8, f"won by {who}: building", size=13, anchor="lm")
        top += 18
    return top


# ---- a window for render_mode="human" -----------------------------------------------------

_NON_WINDOW_BACKENDS = {"agg", "cairo", "pdf", "pgf", "ps", "svg", "template"}


class ImageWindow:
    """A matplotlib window showing one frame at a time (``render_mode="human"``).

    Raises RuntimeError when matplotlib is not installed (it is an optional extra) or has no
    window backend (no display, or the non-interactive backend ``Agg``); use
    ``render_mode="rgb_array"`` there.
    """

    def __init__(self) -> None:
        try:
            import matplotlib.pyplot as plt
        except ImportError as error:  # the core install has no matplotlib; the env must still run
            raise RuntimeError(
                f"render_mode='human' shows the board with matplotlib, which is not installed ({error}): "
                "pip install matplotlib (or the 'analysis' extra), or use render_mode='rgb_array' and show "
                "the array yourself, e.g. PIL.Image.fromarray(env.render()).save('board.png')."
            ) from error

        backend = plt.get_backend().lower()
        if backend in _NON_WINDOW_BACKENDS or "inline" in backend:
            raise RuntimeError(
                f"render_mode='human' needs a window, but matplotlib's backend is {plt.get_backend()!r} "
                "(no display?). Use render_mode='rgb_array' and show or save the array yourself, e.g. "
                "plt.imshow(env.render()) in a notebook or PIL.Image.fromarray(env.render()).save('board.png')."
            )
        self._plt = plt
        self.figure, self.axes = plt.subplots(figsize=(WIDTH / 100, HEIGHT / 100), dpi=100)
        self.figure.subplots_adjust(0, 0, 1, 1)
        self.axes.set_axis_off()
        self._artist: Any = None  # matplotlib's AxesImage after the first frame

    def show(self, frame: np.ndarray) -> None:
        if self._artist is None:
            self._artist = self.axes.imshow(frame)
        else:
            self._artist.set_data(frame)
        self._plt.pause(0.001)  # draws the frame and keeps the window responsive

    def close(self) -> None:
        self._plt.close(self.figure)
