"""Observations: layout, relative seats, and no leak of hidden information (R30, R31)."""

import numpy as np
import pytest

from fifthave_env.engine import ALEA, Game, GameConfig
from fifthave_env.engine.cards import NUM_KINDS
from fifthave_env.observation import OBS_SIZE, VIEWS, Observer, views

CONFIGS = [(n, b) for n in (2, 3, 4) for b in (5, 6)]


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


def hide_differently(game, seat, rng):
    """A copy of ``game`` that differs only in what ``seat`` cannot know."""
    g = game.clone()
    g.rng = np.random.default_rng(rng.integers(1 << 30))
    for q in range(g.n):
        if q == seat:
            continue
        hand, known = g.hands[q], g.known[q]
        for color in range(6):
            kinds = range(color * 3, color * 3 + 3)
            unknown = [k for k in kinds for _ in range(hand[k] - known[k])]
            if not unknown:
                continue
            # re-deal the values of this color's unknown cards; the color count stays public
            for k in kinds:
                hand[k] = known[k]
            for _ in unknown:
                hand[color * 3 + int(rng.integers(3))] += 1
    unseen = [i for i, e in enumerate(g.black) if e < 3]
    values = [g.black[i] for i in unseen]
    rng.shuffle(values)
    for i, v in zip(unseen, values):
        g.black[i] = v
    for c, pile in enumerate(g.piles):
        hidden = pile[g.pile_known[c]:len(pile) - 1]
        rng.shuffle(hidden)
        pile[g.pile_known[c]:len(pile) - 1] = hidden
    g.unused_tiles = [int(t) for t in rng.integers(0, 4, size=len(g.unused_tiles))]
    g.touch()
    return g


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_hidden_information_never_changes_an_observation(num_players, board):
    rng = np.random.default_rng(0)
    changed_something = 0
    for game in random_positions(num_players, board, seed=num_players * 10 + board, count=18):
        for seat in range(num_players):
            other = hide_differently(game, seat, rng)
            changed_something += other.to_dict()["state"] != game.to_dict()["state"]
            a = Observer(game.config).observe(game, seat)
            b = Observer(other.config).observe(other, seat)
            assert np.array_equal(a, b), f"seat {seat} sees a hidden difference"
    assert changed_something > 0


def test_what_a_seat_may_know_does_change_its_observation():
    game = random_positions(4, 5, seed=1, count=3)[-1]
    base = Observer(game.config).observe(game, 0)
    mine = game.clone()
    mine.hands[0][0] += 1  # own hand: private but known to seat 0
    assert not np.array_equal(Observer(mine.config).observe(mine, 0), base)
    top = game.clone()
    top.piles[2][-1] = (top.piles[2][-1] + 1) % 3  # top of a colored pile is public
    assert not np.array_equal(Observer(top.config).observe(top, 0), base)
    opponent = game.clone()
    opponent.hands[1][0] += 1  # a card more of a color in an opponent's hand is public (R31)
    assert not np.array_equal(Observer(opponent.config).observe(opponent, 0), base)


def test_views_cover_the_vector_exactly_and_name_every_feature():
    assert sum(int(np.prod(shape)) for _, shape, _ in VIEWS) == OBS_SIZE
    assert len({name for name, _, _ in VIEWS}) == len(VIEWS)
    assert all(meaning for _, _, meaning in VIEWS)
    v = views(np.arange(OBS_SIZE, dtype=np.float32))
    assert v["decision"][0] == 0 and v["winning_bid"][-1] == OBS_SIZE - 1


def test_observation_is_relative_to_the_seat():
    game = random_positions(4, 5, seed=2, count=6)[-1]
    game.scores[:] = [50, 0, 25, 100]
    game.touch()
    for seat in range(4):
        v = views(Observer(game.config).observe(game, seat))
        assert v["score"].tolist() == [game.scores[(seat + i) % 4] / 50 for i in range(4)]
        assert v["known_cards"][0].tolist() == game.hands[seat]
        assert v["is_my_decision"][0] == (game.actor == seat)
        for plot in range(42):
            if game.plot_height[plot]:
                owner = game.plot_owner[plot]
                expected = 4 if owner == ALEA else (owner - seat) % 4
                assert v["plot_owner"][plot].argmax() == expected


def test_padding_for_fewer_seats_is_zero():
    game = random_positions(2, 6, seed=3, count=4)[-1]
    v = views(Observer(game.config).observe(game, 1))
    assert v["player_present"].tolist() == [1, 1, 0, 0]
    assert not v["known_cards"][2:].any() and not v["score"][2:].any()
    assert v["alea"][0] == 1
    assert v["plot_exists"].sum() == 42


def test_observation_matches_the_game_after_board_changes():
    """The board part is cached; it must follow every change, for every seat."""
    game = Game(GameConfig(num_players=3), seed=5)
    observer = Observer(game.config)
    rng = np.random.default_rng(5)
    while not game.is_over:
        for seat in (game.actor, (game.actor + 1) % 3):  # the cache is shared by all seats
            cached = observer.observe(game, seat)
            fresh = Observer(game.config).observe(game, seat)
            assert np.array_equal(cached, fresh)
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def test_observations_are_copies_not_views_of_a_buffer():
    game = Game(GameConfig(), seed=0)
    observer = Observer(game.config)
    first = observer.observe(game, 0)
    kept = first.copy()
    game.apply(game.legal_actions()[0])
    observer.observe(game, 1)
    assert np.array_equal(first, kept)


def test_known_cards_follow_face_up_draws_and_passed_bids():
    game = Game(GameConfig(num_players=3), seed=7)
    rng = np.random.default_rng(7)
    while not game.is_over:
        for q in range(3):
            assert all(0 <= game.known[q][k] <= game.hands[q][k] for k in range(NUM_KINDS))
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_alea_has_its_own_owner_slot_in_every_seats_view(num_players):
    game = Game(GameConfig(num_players=num_players), seed=0)
    plot = next(p for p in range(42) if game.plot_color[p] >= 0 and not game.plot_shops[p])
    game.plot_owner[plot], game.plot_height[plot] = ALEA, 1
    game.auc_loc, game.auc_high_bidder, game.auc_high = 3, ALEA, 12
    game.touch()
    for seat in range(num_players):
        v = views(Observer(game.config).observe(game, seat))
        assert v["plot_owner"][plot].tolist() == [0, 0, 0, 0, 1]
        assert v["high_bidder"].tolist() == [0, 0, 0, 0, 1]
