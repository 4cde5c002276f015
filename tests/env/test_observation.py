"""Observations: layout, relative seats, and no leak of hidden information (R30, R31)."""

import numpy as np
import pytest

from fifthave_env.engine import ALEA, Game, GameConfig
from fifthave_env.engine.game import BUILD_DECISION
from fifthave_env.engine.cards import NUM_KINDS
from fifthave_env.engine.determinize import determinize
from fifthave_env.observation import LATEST, LAYOUTS, OBS_SIZE, OBS_SIZES, VIEWS, VIEWS_V0, Observer, views
from rules_helpers import CONFIGS, random_positions


def hide_differently(game, seat, rng):
    """A copy of ``game`` that differs only in what ``seat`` cannot know: a determinization,
    plus unused tiles drawn freely (they are deducible at the table, but never observed)."""
    g = determinize(game, seat, rng)
    g.unused_tiles = [int(t) for t in rng.integers(0, 4, size=len(g.unused_tiles))]
    g.touch()
    return g


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_hidden_information_never_changes_an_observation(num_players, board):
    """Every view of the latest layout, the derived ones included (a max_bid from true hands would fail here)."""
    rng = np.random.default_rng(0)
    assert Observer(GameConfig(), version=LATEST).size == OBS_SIZE
    changed_something = 0
    for game in random_positions(num_players, board, seed=num_players * 10 + board, count=18):
        for seat in range(num_players):
            other = hide_differently(game, seat, rng)
            changed_something += other.to_dict()["state"] != game.to_dict()["state"]
            a = Observer(game.config, version=LATEST).observe(game, seat)
            b = Observer(other.config, version=LATEST).observe(other, seat)
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
    assert v["decision"][0] == 0 and v[VIEWS[-1][0]].flat[-1] == OBS_SIZE - 1


def test_layout_1_extends_layout_0_view_for_view():
    assert VIEWS == LAYOUTS[1] and LAYOUTS[1][:len(VIEWS_V0)] == VIEWS_V0 == LAYOUTS[0]
    assert OBS_SIZES[0] == 1176 and OBS_SIZES[1] == OBS_SIZE
    v0 = views(np.arange(OBS_SIZES[0], dtype=np.float32))
    assert list(v0) == [name for name, _, _ in VIEWS_V0] and v0["winning_bid"][-1] == OBS_SIZES[0] - 1
    game = random_positions(3, 6, seed=4, count=5)[-1]
    for seat in range(3):
        assert np.array_equal(Observer(game.config, version=1).observe(game, seat)[:OBS_SIZES[0]],
                              Observer(game.config, version=0).observe(game, seat))
    with pytest.raises(ValueError, match="1176 or"):
        views(np.zeros(1000, dtype=np.float32))
    with pytest.raises(ValueError, match="layout"):
        Observer(game.config, version=2)


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


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("layout", sorted(OBS_SIZES))
def test_an_observer_reused_across_games_and_gaps_matches_a_fresh_one(num_players, layout):
    """What the observer remembers (the sections it wrote, keyed by what they showed) must not
    carry over wrongly: one observer across several games, as an env keeps it across resets,
    asked at random moments only (gaps of many steps), agrees with a fresh observer."""
    config = GameConfig(num_players=num_players, board=5 + num_players % 2)
    observer = Observer(config, version=layout)
    rng = np.random.default_rng(num_players)
    for seed in range(3):
        game = Game(config, seed=seed)
        while not game.is_over:
            if rng.random() < 0.15:
                seat = int(rng.integers(num_players))
                fresh = Observer(config, version=layout).observe(game, seat)
                assert np.array_equal(observer.observe(game, seat), fresh)
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])


def test_an_observer_switching_between_a_game_and_its_clones_matches_a_fresh_one():
    """Clones keep the board and card tokens (as search uses them): an observer that last saw
    the original must still show each game as it is once either has moved on."""
    game = Game(GameConfig(num_players=4), seed=8)
    observer = Observer(game.config, version=LATEST)
    rng = np.random.default_rng(8)
    while not game.is_over:
        branches = [game, game.clone(), determinize(game, game.actor, rng)]
        for branch in branches[1:]:
            for _ in range(int(rng.integers(1, 12))):
                if branch.is_over:
                    break
                legal = branch.legal_actions()
                branch.apply(legal[rng.integers(len(legal))])
        for branch in rng.permutation(branches):
            if not branch.is_over:
                seat = branch.actor
                fresh = Observer(branch.config, version=LATEST).observe(branch, seat)
                assert np.array_equal(observer.observe(branch, seat), fresh)
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def test_the_winning_bid_follows_the_cards_not_only_the_winner():
    """Another game at the same auction figures (winner, high bid) with other winning cards: the
    observer must show the cards of the game it is given."""
    game = Game(GameConfig(num_players=3), seed=11)
    rng = np.random.default_rng(11)
    while game.decision != BUILD_DECISION:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    observer = Observer(game.config)
    observer.observe(game, 0)
    game.auc_last_bid = game.auc_last_bid[::-1]  # same winner, same high bid, other cards
    assert np.array_equal(observer.observe(game, 0), Observer(game.config).observe(game, 0))


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


def expected_views(g, seat):
    """Every view of ``seat``'s observation, written from the game and VIEWS' meanings alone (an
    independent reference for the Observer, which is optimized)."""
    from fifthave_env.engine.board import NUM_LOCATIONS, NUM_PLOTS
    from fifthave_env.observation import OWNERS

    n = g.n
    v = {name: np.zeros(shape, np.float32) for name, shape, _ in VIEWS_V0}  # derived: test_derived_views

    def rel(owner):
        return OWNERS - 1 if owner == ALEA else (owner - seat) % n

    v["decision"][g.decision] = 1
    v["is_my_decision"][0] = g.actor == seat
    for name, value in (("turn_action", g.turn_action), ("first_draw", g.first_draw),
                        ("pending_tile", g.pending_tile)):
        if value >= 0:
            v[name][value] = 1
    v["final_move"][0] = g.final_move
    v["num_players"][n - 2] = 1
    v["six_plot_board"][0] = g.config.board == 6
    v["progress"][:] = (g.turn / g.config.max_turns, g.stops / 2, g.shops_placed / 12)
    for plot in range(NUM_PLOTS):
        color = g.plot_color[plot]
        v["plot_exists"][plot] = color != -2
        if color >= 0:
            v["plot_color"][plot, color] = 1
        for t in g.plot_shops[plot]:
            v["plot_shops"][plot, t] += 1
        if g.plot_height[plot]:
            v["plot_owner"][plot, rel(g.plot_owner[plot])] = 1
            v["plot_height"][plot] = g.plot_height[plot]
    v["district_closed"][:] = g.closed
    for c in (0, 1):
        v["commissioner_at"][c, g.comm_pos[c]] = 1
        v["markers"][c] = g.markers[c]
    for slot, t in enumerate(g.row):
        if t >= 0:
            v["row"][slot, t] = 1
    group = g._active_group()
    if group >= 0:
        v["row_active"][g.group_start[group]:g.group_start[group + 1]] = 1
    for t in g.box:
        v["box"][t] += 1
    for c, pile in enumerate(g.piles):
        v["pile_size"][c] = len(pile) / 12
        if pile:
            v["pile_top"][c, pile[-1]] = 1
            for value in pile[:min(g.pile_known[c], len(pile) - 1)]:
                v["pile_known_below"][c, value] += 1
    v["black_pile"][:] = (len(g.black) / 50, g.black_faceup / 50)
    v["black_seen"][:] = g.black_seen
    for q in range(n):
        i = rel(q)
        v["player_present"][i] = 1
        v["score"][i] = g.scores[q] / 50
        v["reserve"][i] = g.reserve[q] / 18
        v["supply"][i] = g.supply[q] / 18
        v["hand_size"][i] = sum(g.hands[q])
        v["central_park"][i] = g.cp_skyscrapers[q]
        v["hand_colors"][i] = [sum(g.hands[q][c * 3:c * 3 + 3]) for c in range(6)]
        v["known_cards"][i] = g.hands[q] if q == seat else g.known[q]
    v["is_first_player"][rel(g.first_player)] = 1
    if g.actor >= 0:
        v["is_actor"][rel(g.actor)] = 1
    v["alea"][:] = (g.has_alea, g.alea_supply / 18)
    if g.auc_loc >= 0:
        v["auction_location"][g.auc_loc] = 1
        for loc in g.auc_queue:
            v["auction_queue"][loc] = 1
        v["auction_full"][0] = g.auc_full
        for q in range(n):
            i = rel(q)
            v["auction_passed"][i] = g.auc_passed[q]
            v["auction_cards"][i] = g.auc_cards[q]
            v["auction_total"][i] = g.auc_total[q] / 50
            if g.auc_color[q] >= 0:
                v["auction_color"][i, g.auc_color[q]] = 1
        v["high_bid"][0] = g.auc_high / 50
        if g.auc_high_bidder >= 0:
            v["high_bidder"][rel(g.auc_high_bidder)] = 1
        if g.has_alea:
            v["alea_bid"][g.auc_alea_state] = 1
            v["alea_bid"][3] = sum(4 + x for x in g.auc_alea_cards) / 50
            for x in g.auc_alea_cards:
                v["alea_cards"][x] += 1
        allowed = g.auc_allowed[seat] if g.auc_cp_color < 0 else 1 << g.auc_cp_color
        v["allowed_colors"][:] = [allowed >> c & 1 for c in range(5)]
        if g.auc_cp_color >= 0:
            v["central_park_color"][g.auc_cp_color] = 1
        if g.auc_winner >= 0:
            v["winning_bid"][:] = g.auc_last_bid
    assert NUM_LOCATIONS == v["commissioner_at"].shape[1]
    return v


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_every_view_of_every_seat_matches_the_game(num_players, board):
    """All views, all seats, random positions (auctions with different allowed colors per seat
    included), against the reference above; one observer per game, so its cache is exercised
    (a layout-1 observer: its derived views must not disturb the others)."""
    auctions_with_different_rows = 0
    for seed in range(2):
        game = Game(GameConfig(num_players=num_players, board=board, random_start=True), seed=seed)
        observer = Observer(game.config, version=LATEST)
        rng = np.random.default_rng(seed)
        step = 0
        while True:
            if step % 9 == 0 or game.is_over:
                for seat in rng.permutation(num_players):
                    got = views(observer.observe(game, int(seat)))
                    for name, want in expected_views(game, int(seat)).items():
                        assert np.allclose(got[name], want), f"view {name!r} of seat {seat} at step {step}"
                auctions_with_different_rows += game.auc_loc >= 0 and len(set(game.auc_allowed)) > 1
            if game.is_over:
                break
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            step += 1
    assert auctions_with_different_rows > 0


@pytest.mark.parametrize("config,version,error,match", [
    (GameConfig(), True, TypeError, r"observation layout \(version\) must be one of 0, 1, got True of type bool"),
    (GameConfig(), 1.0, TypeError, r"must be one of 0, 1, got 1.0 of type float"),
    (GameConfig(), 2, ValueError, r"must be one of 0, 1, got 2"),
    (None, 0, TypeError, r"config must be a GameConfig, got None"),
])
def test_observer_arguments_are_checked(config, version, error, match):
    with pytest.raises(error, match=match):
        Observer(config, version=version)


@pytest.mark.parametrize("seat,error", [(4, ValueError), (-1, ValueError), (True, TypeError), (1.0, TypeError),
                                        (None, TypeError)])
def test_observe_refuses_a_seat_the_game_does_not_have_before_writing_anything(seat, error):
    game = Game(GameConfig(), seed=0)
    observer = Observer(game.config)
    with pytest.raises(error, match=r"seat must be an int from 0 to 3"):
        observer.observe(game, seat)  # -1 and True gave seat 3's and seat 1's view; 4 an IndexError
    assert observer.builds == 0 and observer._board_token is None  # nothing written, nothing cached
    assert np.array_equal(observer.observe(game, np.int64(1)), Observer(game.config).observe(game, 1))
