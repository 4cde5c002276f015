"""Tournaments: reproducible for a seed whatever the workers, exact seat rotation, statistics, outputs."""

import csv
import functools
import json
import os
import time
from collections import Counter

import numpy as np
import pytest

from fifthave.agents import GreedyAgent, HeuristicAgent, RandomAgent
from fifthave.agents.stats import bradley_terry_elo, seat_ranks, wilson_interval
from fifthave.agents.tournament import (
    TABLE_COLUMNS,
    AgentError,
    AuctionStatistics,
    TournamentResult,
    agent_factory,
    deal_game,
    deal_seatings,
    fork_pool,
    main,
    parse_lineup,
    play_game,
    run_tournament,
    summarize,
)
from fifthave_env import IllegalActionError
from fifthave_env.engine.actions import BID_ADD, BID_CONFIRM, DECLARE_STOP, ActionTypeError
from fifthave_env.engine.cards import KIND_VALUE
from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION
from fifthave_env.runner import GameHooks, play

LINEUP = [("heuristic", HeuristicAgent), ("greedy", GreedyAgent), ("random", RandomAgent)]


def without_timing(records):
    return [{k: v for k, v in r.items() if k not in ("act_seconds", "act_calls")} for r in records]


def test_identical_seeds_give_identical_results_whatever_the_number_of_workers():
    one = run_tournament(LINEUP, games=6, seed=11, workers=1)
    two = run_tournament(LINEUP, games=6, seed=11, workers=2)
    assert one.table == two.table
    assert without_timing(one.records) == without_timing(two.records)
    other = run_tournament(LINEUP, games=6, seed=12, workers=1)
    assert without_timing(other.records) != without_timing(one.records)


def _matmul_threads(_):
    import torch

    a = torch.ones(256, 256)
    return float((a @ a).sum()), torch.get_num_threads()


def test_pool_workers_forked_from_a_torch_process_run_torch_on_one_thread():
    """A forked child entering the parent's OpenMP pool hangs (it did, before): workers use one thread."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        a = torch.ones(256, 256)
        (a @ a).sum()  # the parent's thread pool is up
        with fork_pool(2) as pool:
            results = [job.result(timeout=60) for job in [pool.submit(_matmul_threads, i) for i in range(4)]]
    finally:
        torch.set_num_threads(threads)
    assert results == [(256.0 ** 3, 1)] * 4


def _touch_after_a_while(path):
    time.sleep(0.02)
    open(path, "w").close()
    return path


def test_leaving_a_pool_on_an_error_drops_the_work_not_started(tmp_path):
    """An error in the caller (a worker's error surfaces there) ends the pool: pieces not started are dropped,
    those under way finish (killing a worker while it sends a result once hung the pool for good)."""
    paths = [str(tmp_path / f"{k}.done") for k in range(200)]
    with pytest.raises(RuntimeError, match="stop here"):
        with fork_pool(2) as pool:
            for _ in pool.map(_touch_after_a_while, paths):
                raise RuntimeError("stop here")
    done = sum(os.path.exists(path) for path in paths)
    assert 1 <= done < 50


def test_seat_rotation_is_exact_and_deals_share_a_seed():
    result = run_tournament(LINEUP, games=9, seed=0)
    seats = Counter((entry, seat) for r in result.records for seat, entry in enumerate(r["entries"]))
    assert seats == {(entry, seat): 3 for entry in range(3) for seat in range(3)}
    for r in result.records:
        assert r["deal"] == r["game"] // 3 and r["rotation"] == r["game"] % 3


def starting_state(game):
    """What a deal fixes before anyone acts: the shuffled piles, hands, shops, board and generator."""
    return json.dumps(game.to_dict(), sort_keys=True)


def test_the_games_of_a_deal_start_from_the_same_state_and_deals_differ(monkeypatch):
    import fifthave.agents.tournament as tournament

    starts = {}
    make_game = tournament.deal_game  # the env's reset game (test_a_deal_starts_with_the_game_the_env_resets_to)

    def recording_deal_game(*args):
        game = make_game(*args)
        starts[len(starts)] = starting_state(game)
        return game
    monkeypatch.setattr(tournament, "deal_game", recording_deal_game)
    run_tournament(LINEUP, games=9, seed=0)
    assert len(starts) == 9
    for deal in range(3):
        assert starts[3 * deal] == starts[3 * deal + 1] == starts[3 * deal + 2]
    assert len({starts[0], starts[3], starts[6]}) == 3


class Scripted:
    """Plays the first legal id until its ``fail_at``-th act call, then answers ``answer(legal)``."""

    name = "scripted"

    def __init__(self, answer, fail_at=0):
        self.answer, self.fail_at = answer, fail_at

    def reset(self, config, seat, rng):
        self.calls = 0

    def act(self, observation, action_mask):
        legal = [int(a) for a in action_mask.nonzero()[0]]
        self.calls += 1
        return self.answer(legal) if self.calls > self.fail_at else legal[0]


def broken(legal):
    raise ZeroDivisionError("the agent's own bug")


def float_of_legal(legal):
    return legal[0] + 0.9  # int() would play legal[0]


def illegal_id(legal):
    return next(a for a in range(147) if a not in legal)


@pytest.mark.parametrize("answer,cause", [(broken, ZeroDivisionError), (float_of_legal, ActionTypeError),
                                          (illegal_id, IllegalActionError)])
@pytest.mark.parametrize("workers", [1, 2])
def test_an_agent_that_raises_or_plays_an_illegal_action_stops_the_tournament_naming_itself(answer, cause,
                                                                                             workers):
    lineup = [("random", RandomAgent), ("bad one", functools.partial(Scripted, answer, fail_at=3))]
    with pytest.raises(AgentError) as caught:
        run_tournament(lineup, games=4, seed=7, workers=workers)
    message = str(caught.value)
    assert "agent 'bad one' (entry 1, seat " in message
    assert "game 0 (deal 0, rotation 0; tournament seed 7, env seed " in message
    assert "in decision '" in message
    if workers == 1:
        assert isinstance(caught.value.__cause__, cause)
    else:
        assert cause.__name__ in str(caught.value.__cause__)  # the worker's traceback text


def test_a_float_action_is_refused_not_truncated():
    setup = tournament_setup([("random", RandomAgent), ("float", functools.partial(Scripted, float_of_legal))])
    with pytest.raises(AgentError, match=r"agent 'float' \(entry 1, seat 1\) failed in game 0 .*an action is "
                                         r"an int id.* got \d+\.9 of type float"):
        play_game(setup, 0)


def true_for_action_b(legal):
    return True if 1 in legal else legal[0]  # int() would play id 1, action B


def test_a_bool_is_refused_not_played_as_an_action_id():
    setup = tournament_setup([("random", RandomAgent), ("bool", functools.partial(Scripted, true_for_action_b))])
    with pytest.raises(AgentError, match=r"agent 'bool' .*in decision 'choose action'.*got True of type bool"):
        play_game(setup, 0)


def tournament_setup(lineup, seed=0):
    import fifthave.agents.tournament as tournament

    return tournament._Setup([label for label, _ in lineup], [factory for _, factory in lineup], len(lineup), 5,
                             300, seed)


def test_auction_statistics_are_consistent():
    result = run_tournament(LINEUP, games=6, seed=4)
    for r in result.records:
        assert sum(r["auctions_won"]) <= r["auctions"]
        for seat in range(3):
            assert r["auctions_entered"][seat] >= r["auctions_won"][seat]  # a winner confirmed a bid
            assert r["bid_points_won"][seat] >= 4 * r["cards_spent"][seat]
            assert r["cards_spent"][seat] >= r["auctions_won"][seat]
    assert sum(sum(r["auctions_won"]) for r in result.records) > 0
    assert {row["agent"] for row in result.table} == {"heuristic", "greedy", "random"}
    assert all(set(row) == set(TABLE_COLUMNS) for row in result.table)


class EagerBidder:
    """Confirms whenever it may, else lays a card, else plays at random: it raises again and again in an auction."""

    name = "eager"

    def reset(self, config, seat, rng):
        self.rng = rng

    def act(self, observation, action_mask):
        if action_mask[BID_CONFIRM]:
            return BID_CONFIRM
        cards = [a for a in np.flatnonzero(action_mask) if BID_ADD <= a < BID_CONFIRM]
        return int(cards[0]) if cards else int(self.rng.choice(np.flatnonzero(action_mask)))


def test_an_auction_counts_once_as_entered_however_often_a_seat_raises_in_it():
    result = run_tournament([("a", EagerBidder), ("b", EagerBidder), ("c", EagerBidder)], games=3, seed=0)
    for r in result.records:
        assert r["auctions"] > 0
        assert all(0 < entered <= r["auctions"] for entered in r["auctions_entered"])


class _BidTrace(GameHooks):
    """Every decision as (kind, seat, action, auction location before it, decision after it, the winner and the
    cards paid after it)."""

    def __init__(self):
        self.rows, self.location = [], -1

    def choose_agent(self, game, seat, agent):
        self.location = game.auc_loc
        return agent

    def applied(self, decision):
        g = decision.game
        self.rows.append((decision.kind, decision.seat, decision.action, self.location, g.decision, g.auc_winner,
                          list(g.auc_last_bid)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auction_statistics_count_exactly_what_the_decisions_did(seed):
    """AuctionStatistics against a recount from the decisions: an auction is a run of bidding decisions at one
    location (red on keeping one auction's confirmed seats into the next and on counting a stop twice;
    a new auction at the location of the one before, after other decisions, did not occur in 22 games checked)."""
    n = 4
    game = deal_game(n, 5, 1000, seed)
    agents = [HeuristicAgent(bidding) for bidding in ("value", "aggressive", "conservative", "value")]
    for seat, agent in enumerate(agents):
        agent.reset(game.config, seat, np.random.default_rng([seed, seat]))
    statistics, trace = AuctionStatistics(n), _BidTrace()
    play(game, agents, [statistics, trace])
    auctions, entered, won, points, cards, stops = 0, [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
    confirmed, previous = set(), None  # the seats that confirmed in this auction; the last bid decision's location
    for index, (kind, seat, action, location, after, winner, paid) in enumerate(trace.rows):
        if kind == BID_DECISION:
            if previous is None or location != previous:  # the first bid decision of an auction
                auctions, confirmed = auctions + 1, set()
            previous = location
            if action == BID_CONFIRM and seat not in confirmed:
                confirmed.add(seat)
                entered[seat] += 1
            if after == BUILD_DECISION:
                won[winner] += 1
                points[winner] += sum(v * k for v, k in zip(KIND_VALUE, paid))
                cards[winner] += sum(paid)
        else:
            previous = None
            stops[seat] += action == DECLARE_STOP
    assert auctions > 3 and sum(won) > 0
    assert (statistics.auctions, statistics.entered, statistics.won, statistics.bid_points, statistics.cards_spent,
            statistics.stops) == (auctions, entered, won, points, cards, stops)


def record(scores, winners, entries, game=0, cards=None):
    n = len(scores)
    zeros = [0] * n
    return {"game": game, "deal": 0, "rotation": 0, "entries": entries, "scores": scores, "winners": winners,
            "cards_in_hand": cards or zeros,
            "truncated": False, "turns": 10, "auctions": 2, "auctions_entered": [1] * n,
            "auctions_won": [1] + zeros[1:], "bid_points_won": [10] + zeros[1:], "cards_spent": [2] + zeros[1:],
            "stops_declared": zeros, "act_seconds": [0.0] * n, "act_calls": zeros}


def test_ranks_share_places_on_ties_and_winners_come_first():
    assert seat_ranks(record([10, 30, 20], [1], [0, 1, 2])) == [3, 1, 2]
    assert seat_ranks(record([30, 30, 5], [0, 1], [0, 1, 2])) == [1.5, 1.5, 3]
    assert seat_ranks(record([30, 30, 5], [1], [0, 1, 2], cards=[2, 4, 0])) == [2, 1, 3]  # seat 1 won on cards
    # R28's order for every place: a VP tie below the winner goes to the most cards; a tie on both is shared
    assert seat_ranks(record([40, 20, 20, 20], [0], [0, 1, 2, 3], cards=[0, 3, 5, 3])) == [1, 3.5, 2, 3.5]


def test_summary_counts_shared_wins_as_shares_and_pools_labels():
    records = [record([30, 30, 5], [0, 1], [0, 1, 2]), record([40, 10, 20], [0], [0, 1, 2], game=1)]
    table = {row["agent"]: row for row in summarize(records, ["a", "b", "b"], 3)}
    assert table["a"]["win_rate"] == pytest.approx(0.75)  # 1/2 + 1 over 2 games
    assert table["b"]["seat_games"] == 4
    assert table["b"]["win_rate"] == pytest.approx(0.125)
    assert table["a"]["mean_vp"] == 35 and table["a"]["mean_winning_bid"] == 10
    assert table["a"]["vp_per_card"] == pytest.approx(70 / 4)
    assert table["a"]["elo"] > 1500 > table["b"]["elo"]


def test_wilson_interval_matches_known_values():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 20)[0] == 0.0


def test_bradley_terry_is_symmetric_for_equal_records_and_finite_for_a_clean_sweep():
    even = [record([20, 10], [0], [0, 1]), record([10, 20], [1], [0, 1], game=1)]
    ratings = bradley_terry_elo(["a", "b"], even, ["a", "b"])
    assert ratings["a"] == pytest.approx(ratings["b"])
    sweep = [record([20, 10], [0], [0, 1], game=g) for g in range(20)]
    ratings = bradley_terry_elo(["a", "b"], sweep, ["a", "b"])
    assert 1500 < ratings["a"] < 2500 and ratings["a"] - 1500 == pytest.approx(1500 - ratings["b"])


def test_bad_arguments_are_explained():
    with pytest.raises(ValueError, match="games must be a positive multiple of num_players \\(3\\)"):
        run_tournament(LINEUP, games=10)
    with pytest.raises(ValueError, match="4 players need 4 entries, got 3"):
        run_tournament(LINEUP, num_players=4, games=8)
    with pytest.raises(ValueError, match="board must be 5 or 6"):
        run_tournament(LINEUP, board=7, games=3)
    with pytest.raises(ValueError, match="unknown agent 'wizard'"):
        parse_lineup(["wizard"])
    assert parse_lineup(["heuristic", "random*3"]) == ["heuristic", "random", "random", "random"]


def test_console_command_writes_table_json_and_plot(tmp_path, capsys):
    stem = tmp_path / "h_vs_r"
    main(["--agents", "heuristic", "random", "--games", "4", "--workers", "1", "--quiet", "--out", str(stem)])
    printed = capsys.readouterr().out
    assert "heuristic" in printed and "win rate" in printed
    assert "entered: auctions per game the agent confirmed a bid in" in printed  # the columns' legend
    with open(f"{stem}.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["agent"] for r in rows] == ["heuristic", "random"]
    data = json.loads((tmp_path / "h_vs_r.json").read_text())
    assert data["settings"]["games"] == 4 and len(data["games"]) == 4
    assert (tmp_path / "h_vs_r.png").stat().st_size > 1000


def test_saved_results_can_be_summarized_again_without_replaying(tmp_path, capsys):
    stem = tmp_path / "h_vs_r"
    main(["--agents", "heuristic", "random", "--games", "4", "--workers", "1", "--quiet", "--out", str(stem)])
    saved = json.loads((tmp_path / "h_vs_r.json").read_text())
    stale = dict(saved, table=[dict(row, win_ci_low=-1.0) for row in saved["table"]])  # as an older version left it
    (tmp_path / "h_vs_r.json").write_text(json.dumps(stale))
    (tmp_path / "h_vs_r.csv").unlink()
    main(["--resummarize", str(stem)])
    again = json.loads((tmp_path / "h_vs_r.json").read_text())
    assert again["table"] == saved["table"] and again["games"] == saved["games"]
    assert (tmp_path / "h_vs_r.csv").exists() and "heuristic" in capsys.readouterr().out
    assert TournamentResult.load(stem).table == saved["table"]


def test_console_command_rejects_a_bad_lineup(capsys):
    with pytest.raises(SystemExit):
        main(["--agents", "heuristic", "random", "--games", "3"])
    assert "multiple of num_players" in capsys.readouterr().err


def test_seat_orders_all_and_sample():
    assert deal_seatings(3, "all") == [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
    assert deal_seatings(3, "cyclic") == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    sample = deal_seatings(4, "sample", seed=3, deal=7, orders_per_deal=5)
    assert len(sample) == 5 and len({tuple(s) for s in sample}) == 5
    assert sample == deal_seatings(4, "sample", seed=3, deal=7, orders_per_deal=5)
    assert sample != deal_seatings(4, "sample", seed=3, deal=8, orders_per_deal=5)
    result = run_tournament(LINEUP, games=6, seed=0, seat_orders="all")
    assert [r["entries"] for r in result.records] == deal_seatings(3, "all")
    assert result.settings["seat_orders"] == "all"
    with pytest.raises(ValueError, match="games per deal with seat_orders='all' \\(6\\)"):
        run_tournament(LINEUP, games=9, seat_orders="all")
    with pytest.raises(ValueError, match="seat_orders must be one of cyclic, all, sample"):
        run_tournament(LINEUP, games=3, seat_orders="random")


def test_an_agent_winning_every_game_gets_an_interval_up_to_one_and_a_plot(tmp_path):
    records = [dict(record([30, 10], [0], [0, 1], game=g), deal=g) for g in range(100)]
    table = {row["agent"]: row for row in summarize(records, ["a", "b"], 2)}
    assert table["a"]["win_rate"] == 1.0 and table["a"]["win_ci_high"] == 1.0 and table["a"]["win_ci_low"] < 1.0
    assert table["b"]["win_rate"] == 0.0 and table["b"]["win_ci_low"] == 0.0 and table["b"]["win_ci_high"] > 0.0
    assert table["a"]["elo_ci_low"] == pytest.approx(table["a"]["elo"], abs=0.01) == table["a"]["elo_ci_high"]
    result = TournamentResult({"labels": ["a", "b"], "num_players": 2, "board": 5, "games": 100, "seed": 0},
                              list(table.values()), records)
    result.plot(tmp_path / "sweep.png")  # used to fail: 'yerr' must not contain negative values
    assert (tmp_path / "sweep.png").stat().st_size > 1000


def test_one_deal_gives_no_interval_on_how_deals_vary():
    # heuristic against 3 random players, 4 games of one deal: it used to report 1.0 (0.51-1.00)
    result = run_tournament([agent_factory("heuristic")] + [agent_factory("random")] * 3, games=4, seed=0)
    row = result.row("heuristic")
    assert (row["win_ci_low"], row["win_ci_high"]) == (0.0, 1.0)
    assert row["vp_ci_low"] is None and row["vp_ci_high"] is None
    assert "heuristic" in result.format_table()


def test_a_label_in_every_seat_wins_its_fair_share_exactly():
    records = [dict(record([30, 10, 20], [0] if g % 3 else [0, 2], [0, 1, 2], game=g), deal=g // 3) for g in range(30)]
    row = summarize(records, ["a", "a", "a"], 3)[0]
    assert row["win_rate"] == pytest.approx(1 / 3)
    assert row["win_ci_low"] == row["win_ci_high"] == 1 / 3


def test_mean_vp_interval_is_clustered_by_deal():
    # the deal decides the VP of all its games: 10 deals, not 40 independent games
    records = [dict(record([30 + 5 * deal, 10], [0], [0, 1], game=4 * deal + r), deal=deal)
               for deal in range(10) for r in range(4)]
    row = summarize(records, ["a", "b"], 2)[0]
    per_deal = 30 + 5 * np.arange(10)
    half = 2.262157 * per_deal.std(ddof=1) / np.sqrt(10)  # t with 9 df over the 10 deal means
    assert row["mean_vp"] == pytest.approx(52.5)
    assert (row["vp_ci_low"], row["vp_ci_high"]) == pytest.approx((52.5 - half, 52.5 + half))


def test_win_rate_interval_is_clustered_by_deal():
    # deals decide: the label wins all 4 games of a deal or none, so 40 games are 10 units, not 40
    records = [dict(record([30, 10] if deal % 2 else [10, 30], [0] if deal % 2 else [1], [0, 1], game=4 * deal + r),
                    deal=deal) for deal in range(10) for r in range(4)]
    row = summarize(records, ["a", "b"], 2)[0]
    naive = wilson_interval(20, 40)
    assert row["win_ci_high"] - row["win_ci_low"] > 1.5 * (naive[1] - naive[0])


class LayoutChecker(HeuristicAgent):
    """A HeuristicAgent that asks for layout 1 and checks it gets it, with layout 0 as its first part."""

    observation_layout = 1
    reads_view = False  # decides from its observation (through act), not from a seat view
    seen = []

    def act(self, observation, action_mask):
        from fifthave_env.observation import OBS_SIZES

        assert len(observation) == OBS_SIZES[1]
        LayoutChecker.seen.append(observation[OBS_SIZES[0]:].any())
        return super().act(observation[:OBS_SIZES[0]], action_mask)


def test_an_agent_asking_for_layout_1_gets_it_and_plays_as_with_layout_0():
    """The derived views are extra: a HeuristicAgent reading only the layout-0 part plays the same games."""
    LayoutChecker.seen = []
    checked = run_tournament([LayoutChecker] + [HeuristicAgent] * 3, num_players=4, games=4, seed=3)
    plain = run_tournament([HeuristicAgent] * 4, num_players=4, games=4, seed=3)
    assert LayoutChecker.seen and any(LayoutChecker.seen)
    assert [r["scores"] for r in checked.records] == [r["scores"] for r in plain.records]


@pytest.mark.parametrize("num_players,board,max_turns", [(2, 5, 300), (3, 6, 40), (4, 5, 300)])
def test_a_deal_starts_with_the_game_the_env_resets_to(num_players, board, max_turns):
    from fifthave_env import fifth_avenue_v0

    for env_seed in (0, 7, 2**63 + 5):
        env = fifth_avenue_v0.env(num_players=num_players, board=board, max_turns=max_turns)
        env.reset(seed=env_seed)
        game = deal_game(num_players, board, max_turns, env_seed)
        assert game.config == env.unwrapped.config
        assert game.to_dict() == env.unwrapped.game.to_dict()  # the state and the generator's


def test_deal_win_shares_averages_a_deals_games_splitting_shared_wins_and_losing_truncated_games():
    from fifthave.agents.tournament import deal_win_shares
    records = [  # entry e sits in seat entries.index(e); winners are seats
        {"deal": 0, "entries": [0, 1, 2], "winners": [0], "truncated": False},      # won: 1
        {"deal": 0, "entries": [1, 0, 2], "winners": [0, 1], "truncated": False},   # shared with entry 1: 1/2
        {"deal": 0, "entries": [2, 1, 0], "winners": [2], "truncated": True},       # truncated (R29): a loss
        {"deal": 1, "entries": [1, 2, 0], "winners": [0], "truncated": False},      # entry 1 won: 0 for entry 0
        {"deal": 1, "entries": [0, 2, 1], "winners": [2], "truncated": False},      # entry 1 won again
    ]
    assert deal_win_shares(records) == {0: 1.5 / 3, 1: 0.0}
    assert deal_win_shares(records, entry=1) == {0: 0.5 / 3, 1: 1.0}
