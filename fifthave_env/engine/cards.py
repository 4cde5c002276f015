"""Bidding cards and their piles (R1, R14, R16, R31).

A card is identified by its *kind*: ``color * 3 + value_index`` with colors
``gray, brown, violet, orange, green`` (0..4), ``black`` (5) and values
``4, 5, 6`` (value index 0..2). Hands and bids are lists of 18 counts, one per kind.

Colored piles are lists with the bottom card first and the top card last; the
cards at the bottom that everyone saw go under (``pile_known``) are public (R31).
The black pile is modelled literally as one pile (R16): each entry is
``value_index + 3 * visibility`` where visibility 0 is face down and unseen,
1 face down but seen (Alea's cards, R25) and 2 face up (a winner's cards).
"""

from collections.abc import Sequence

import numpy as np


COLOR_NAMES = ("gray", "brown", "violet", "orange", "green")
BLACK = 5
NUM_COLORS = 5
CARD_COLOR_NAMES = COLOR_NAMES + ("black",)
VALUES = (4, 5, 6)
BUILD_LIMIT = (3, 2, 1)  # R1: value 4 -> 3 skyscrapers, 5 -> 2, 6 -> 1
NUM_KINDS = 18

COLORED_PER_COLOR = (5, 4, 3)  # R1: per color 5x"4", 4x"5", 3x"6"
BLACK_COUNTS = (20, 16, 14)  # R1
TOTAL_CARDS = NUM_COLORS * sum(COLORED_PER_COLOR) + sum(BLACK_COUNTS)  # 110

KIND_COLOR = tuple(k // 3 for k in range(NUM_KINDS))
KIND_VALUE = tuple(VALUES[k % 3] for k in range(NUM_KINDS))
KIND_LIMIT = tuple(BUILD_LIMIT[k % 3] for k in range(NUM_KINDS))

FACE_DOWN, SEEN_FACE_DOWN, FACE_UP = 0, 1, 2


def kind(color: int, value_index: int) -> int:
    return color * 3 + value_index


def kind_name(k: int) -> str:
    return f"{CARD_COLOR_NAMES[KIND_COLOR[k]]} {KIND_VALUE[k]}"


def new_colored_piles(rng: np.random.Generator) -> list[list[int]]:
    """Five shuffled colored piles, bottom first (R1)."""
    piles = []
    for _ in range(NUM_COLORS):
        pile = [v for v, n in enumerate(COLORED_PER_COLOR) for _ in range(n)]
        rng.shuffle(pile)
        piles.append(pile)
    return piles


def new_black_pile(rng: np.random.Generator) -> list[int]:
    pile = [v for v, n in enumerate(BLACK_COUNTS) for _ in range(n)]
    rng.shuffle(pile)
    return pile


def bid_total(cards: Sequence[int]) -> int:
    total = 0
    for k in range(NUM_KINDS):
        if cards[k]:
            total += cards[k] * KIND_VALUE[k]
    return total


def bid_limit(cards: Sequence[int]) -> int:
    """The building limit of a bid: the card with the fewest skyscrapers (R1)."""
    limit = 3
    for k in range(NUM_KINDS):
        if cards[k] and KIND_LIMIT[k] < limit:
            limit = KIND_LIMIT[k]
    return limit
