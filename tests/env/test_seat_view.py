"""The seat views (fifthave_env.seat_view): the engine's state and the observation give the same
fields, the state view hides what the seat may not know (R30, R31), and the scripted agents
deciding from either make exactly the decisions recorded before the state view existed."""

import numpy as np
import pytest

from decisions_freeze import CONFIGS, SEED, fixture, game_agents
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.decisions import MOVE_DECISION
from fifthave_env.engine.determinize import determinize
from fifthave_env.observation import Observer
from fifthave_env.seat_view import SeatView, StateView

FIELDS = ("legal", "decision", "stops", "shops_placed", "progress", "progress_shops", "pending_tile", "owner",
          "height", "shop_mask", "shop_count", "empty", "district_empty", "beside_mask", "shop_room", "beside_room",
          "open_district_scores", "closed", "commissioner_at", "markers", "box_types", "box_size", "active_tiles",
          "scores", "reserve", "supply", "central_park", "hand", "known_cards", "hand_colors", "hand_points",
          "plots_owned", "districts_owned", "pile_top", "auction_location", "auction_full", "high_bid",
          "high_bidder", "table_cards", "bid_color", "my_table_cards", "my_bid_color", "allowed_colors",
          "central_park_color", "auction_passed")


def plain(value):
    """Lists and tuples compared alike."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def fields(view):
    out = {name: plain(getattr(view, name)) for name in FIELDS}
    out["district_scores"] = [view.district_scores(d) for d in range(7)]
    out["my_plot"] = [view.my_plot(d) for d in range(7)]
    return out


def positions(config, games, seed):
    """(game, seat) along seeded random play: every decision, for the actor and one other seat."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        game = Game(config, seed=seed * 100 + g)
        while not game.is_over:
            yield game, game.actor
            yield game, int((game.actor + rng.integers(1, config.num_players)) % config.num_players)
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("num_players, board", CONFIGS)
def test_the_state_view_reads_what_the_observation_holds(num_players, board):
    config = GameConfig(num_players=num_players, board=board)
    observers = {layout: Observer(config, version=layout) for layout in (0, 1)}
    checked = 0
    for game, seat in positions(config, 2, seed=num_players * 10 + board):
        layout = checked % 2  # both layouts parse alike
        observed = SeatView(observers[layout].observe(game, seat), game.action_mask(), config)
        if seat != game.actor:  # the mask is the actor's: another seat's view has no legal action
            observed.mask = np.zeros_like(observed.mask)
        state = fields(StateView(game, seat))
        if seat != game.actor:
            state["legal"] = []
        assert state == fields(observed), f"seat {seat} at turn {game.turn}, decision {game.decision}"
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("num_players, board", CONFIGS)
def test_the_state_view_is_unchanged_by_what_the_seat_cannot_know(num_players, board):
    """R30, R31: the other seats' unknown cards, the piles below what is known, the black pile's
    unseen order and the generator redrawn (a determinization for that seat): the same view."""
    config = GameConfig(num_players=num_players, board=board)
    rng = np.random.default_rng(board)
    redrawn = 0
    for i, (game, seat) in enumerate(positions(config, 1, seed=num_players * 7 + board)):
        if i % 3:
            continue
        other = determinize(game, seat, rng)
        redrawn += other.hands != game.hands or other.piles != game.piles or other.black != game.black
        mine = fields(StateView(game, seat))
        theirs = fields(StateView(other, seat))
        if seat != game.actor:
            mine["legal"] = theirs["legal"] = None
        assert mine == theirs, f"seat {seat} at turn {game.turn}"
    assert redrawn > 50  # the hidden parts really changed


def test_the_state_view_holds_nothing_but_its_fields():
    game = Game(GameConfig(), seed=1)
    view = StateView(game, 0)
    fields(view)
    public = {name for name in vars(view) if not name.startswith("_")}
    assert public <= set(FIELDS) | {"config", "n", "tables", "memo", "seat_memo"}, public - set(FIELDS)


def replay(num_players, board, path):
    """Replay the frozen games with today's agents deciding through ``path``; the first difference fails."""
    data = np.load(fixture())
    config = GameConfig(num_players=num_players, board=board)
    lengths = data[f"{num_players}x{board}_lengths"]
    actions = data[f"{num_players}x{board}_actions"].tolist()
    observer = Observer(config)
    start = 0
    for g, length in enumerate(lengths.tolist()):
        game = Game(config, seed=SEED * 1000 + g)
        agents = game_agents(config, g)
        for i, expected in enumerate(actions[start:start + length]):
            seat = game.actor
            if path == "view":
                action = agents[seat].act_view(StateView(game, seat))
            else:
                action = agents[seat].act(observer.observe(game, seat), game.action_mask())
            assert action == expected, f"game {g}, decision {i}: {agents[seat].name} chose {action}, not {expected}"
            game.apply(int(action))
        assert game.is_over
        start += length
    return start


@pytest.mark.parametrize("path", ["view", "observation"])
@pytest.mark.parametrize("num_players, board", CONFIGS)
def test_scripted_agents_make_the_recorded_decisions(num_players, board, path):
    """Every bidding strategy and the GreedyAgent, in every seat, over >= 10,000 decisions per configuration."""
    assert replay(num_players, board, path) >= 10_000


def plots_state(game):
    """What the views share per ``plots_token`` may read (seat_view._board_cache)."""
    return repr((game.plot_owner, game.plot_height, game.plot_shops, game.closed, game.stops, game.shops_placed,
                 game.row, game.box, game.cp_skyscrapers))


@pytest.mark.parametrize("num_players, board", [(2, 6), (4, 5)])
def test_the_plots_token_changes_with_every_change_of_the_plots(num_players, board):
    """The views' shared caches (owners, shops, the agents' valuations) are keyed by ``plots_token``:
    every change of what they read must renew it; a commissioner move alone keeps it (the caching pays)."""
    config = GameConfig(num_players=num_players, board=board)
    kept_at_moves = 0
    for game, seat in positions(config, 3, seed=5):
        if seat != game.actor:
            continue
        before, token, decision = plots_state(game), game.plots_token, game.decision
        clone = game.clone()
        assert clone.plots_token is token  # clones share the caches until their plots change
        clone.apply(game.legal_actions()[-1])
        if plots_state(clone) != before:
            assert clone.plots_token is not token, f"decision {decision} changed the plots, kept the token"
        elif decision == MOVE_DECISION:
            kept_at_moves += clone.plots_token is token
    assert kept_at_moves > 20
