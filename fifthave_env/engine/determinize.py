"""Determinization: a full game drawn from what one seat knows (R30, R31).

``determinize(game, seat, rng)`` returns a new :class:`Game` that agrees with
``game`` on everything ``seat`` knows and redraws everything else at random, so
that search agents (IS-MCTS, determinized search) and OpenSpiel's resampler can
play the game forward without seeing what the seat cannot see.

What the seat knows is what its observation holds (R30, R31), kept exactly:
the board, the row, the box, commissioners and markers, scores and stocks, the
auction on the table, its own hand, every opponent's hand size per color and
their cards known exactly, each colored pile's size, top card and the cards
known to lie under it (in the order they went under, R39), the black pile's
size and the cards in it that were seen (Alea's, face up).

What is redrawn, card by card kind within each color (black included):

* the values of the opponents' cards that are not known exactly, and
* the colored piles between the known bottom cards and the top card, and
* the black draw pile's unseen cards,

as one uniformly random arrangement of the cards of that color that nobody
(but their holder) has seen over those places. Every arrangement consistent
with the public record is equally likely: colored cards reach hands and piles
only through shuffles and face-up moves, so the unseen cards of a color are
exchangeable (the opponents' own choices, which might hint at their cards, are
not modelled). The generator of the sample is new, drawn from ``rng``, so the
draws to come (a black reshuffle, the Central Park box at the end) are fresh.

Not redrawn: the 9 unused shop tiles. They never come into play, and their
types follow from the public setup (9 of each type minus the 27 tiles shown).

The result depends only on what ``seat`` knows and on ``rng``: two games that
differ only in hidden parts give the same sample for the same generator state
(slots are filled in a fixed order from the sorted hidden cards).
"""

from typing import TYPE_CHECKING

import numpy as np

from .cards import BLACK, NUM_COLORS

if TYPE_CHECKING:  # game imports this module
    from .game import Game

_UNSEEN = 3  # black pile entries below 3 are face down and unseen (cards.FACE_DOWN)


def determinize(game: "Game", seat: int, rng: np.random.Generator) -> "Game":
    """A copy of ``game`` with everything ``seat`` cannot know redrawn from ``rng``.

    ``seat`` is a seat index (0..n-1); ``rng`` a ``numpy.random.Generator``.
    The input game is not changed.
    """
    if not 0 <= seat < game.n:
        raise ValueError(f"seat must be in 0..{game.n - 1} for a {game.n}-player game, got {seat!r}")
    sample = game._copy_state()  # a clone but for the generator, drawn anew below
    others = [q for q in range(sample.n) if q != seat]
    for color in range(NUM_COLORS + 1):
        _redeal(sample, others, color, rng)
    sample.rng = np.random.default_rng(rng.integers(1 << 63))
    # Only cards were redrawn: the sample keeps the game's board_token and plots_token, so the
    # views' per-board valuations (fifthave_env.seat_view) are shared by all samples of one position.
    sample.cards_token = object()
    return sample


class SeatSampler:
    """``sampler(rng)``: a determinization of ``game`` (as it is at the call) for ``seat``.

    The one way a game runner hands a live game to a searching agent: the agent
    calls it and gets samples that hold only what its seat knows.
    """

    __slots__ = ("_game", "_seat")

    def __init__(self, game: "Game", seat: int) -> None:
        self._game = game
        self._seat = seat

    def __call__(self, rng):
        return determinize(self._game, self._seat, rng)


def _redeal(g, others, color, rng) -> None:
    """Redraw the hidden cards of one color (``BLACK`` for black) in place."""
    kinds = range(color * 3, color * 3 + 3)
    hidden = []  # value indices of the hidden cards
    hand_slots = []  # (seat, number of its cards of this color not known exactly)
    for q in others:
        hand, known = g.hands[q], g.known[q]
        unknown = 0
        for k in kinds:
            u = hand[k] - known[k]
            if u:
                hidden.extend([k - color * 3] * u)
                hand[k] = known[k]
                unknown += u
        if unknown:
            hand_slots.append((q, unknown))
    if color == BLACK:
        pile = g.black
        pile_slots = [i for i, entry in enumerate(pile) if entry < _UNSEEN]
        hidden.extend(pile[i] for i in pile_slots)
    else:
        pile = g.piles[color]
        pile_slots = list(range(g.pile_known[color], len(pile) - 1))
        hidden.extend(pile[i] for i in pile_slots)
    if not hidden:
        return
    hidden.sort()  # the sample must not depend on where the hidden cards really are
    values = [hidden[i] for i in rng.permutation(len(hidden))]
    pos = 0
    for q, unknown in hand_slots:
        hand = g.hands[q]
        for v in values[pos:pos + unknown]:
            hand[color * 3 + v] += 1
        pos += unknown
    for i, v in zip(pile_slots, values[pos:]):
        pile[i] = v
