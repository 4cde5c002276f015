"""The bidding lab's plumbing against its documented contract, mostly on synthetic per-deal data (no
games, so each test takes milliseconds): what compare_many passes on and reports, the auction
table's definitions, the replays' bids, the saved positions, the text and JSON outputs, and that
workers change nothing. Written against mutmut's survivors of issue 38 (docs/mutation.md)."""

import json

import numpy as np
import pytest

from fifthave.agents import bidlab, stats
from fifthave.agents.bidding import BIDDING_STRATEGIES, ReachBidding
from fifthave.agents.search import SearchAgent
from fifthave.agents.tournament import agent_factory, deal_seatings
from fifthave_env.engine.cards import FACE_UP, VALUES
from fifthave_env.engine.actions import move_action
from fifthave_env.engine.board import CENTRAL_PARK, CITY_HALL
from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION, MOVE_DECISION, Game, GameConfig


def fake_run_deals(captured):
    def run(lab, deals, workers):
        captured.update(lab=lab, deals=deals, workers=workers)
        rng = np.random.default_rng(7)
        arms = len(lab.arms)
        return [{"deal": d, "win": list(rng.random(arms)), "vp": list(rng.normal(40, 5, arms)),
                 "margin": list(rng.normal(0, 3, arms)), "luck": list(rng.normal(0, 2, arms)),
                 "field_vp": list(rng.normal(38, 2, arms)), "positions": [{"deal": d}]} for d in range(deals)]
    return run


def spy_analyse(monkeypatch):
    calls, real = [], bidlab._analyse
    monkeypatch.setattr(bidlab, "_analyse", lambda *args: calls.append(args) or real(*args))
    return calls


def test_compare_many_defaults_settings_and_the_arms_it_pairs(monkeypatch):
    captured = {}
    monkeypatch.setattr(bidlab, "_run_deals", fake_run_deals(captured))
    calls = spy_analyse(monkeypatch)
    monkeypatch.setattr(stats, "paired_difference",  # the defaults pass 10 000 resamples: keep the test fast
                        lambda a, b, resamples, seed: {"resamples": resamples, "seed": seed, "difference": 0.0,
                                                       "ci_low": 0.0, "ci_high": 0.0, "unpaired_ci_low": 0.0,
                                                       "unpaired_ci_high": 0.0, "variance_reduction": None,
                                                       "deals": len(a)})
    results, positions = bidlab.compare_many("heuristic", ["heuristic-aggressive", "heuristic-hoarder"])
    lab = captured["lab"]
    assert (lab.num_players, lab.board, lab.max_turns, lab.seed, lab.seat_orders, lab.orders_per_deal,
            lab.position_every) == (4, 5, 300, 0, "cyclic", 4, 0)
    assert (captured["deals"], captured["workers"], len(lab.arms), len(lab.opponents)) == (100, 1, 3, 3)
    assert results[1]["settings"] == {"baseline": "heuristic", "opponents": ["heuristic"] * 3, "num_players": 4,
                                      "board": 5, "max_turns": 300, "seed": 0, "seat_orders": "cyclic",
                                      "games_per_deal": 4, "candidate": "heuristic-hoarder"}
    assert positions == [{"deal": d} for d in range(100)]
    per_deal = fake_run_deals({})(lab, 100, 1)
    column = {key: np.array([d[key] for d in per_deal]) for key in ("win", "vp", "margin", "luck", "field_vp")}
    # the second candidate (arm 2), metric by metric: the arms, their lucks, the field control, resamples, seed
    for (a, b, luck_a, luck_b, field, resamples, seed), metric in zip(calls[3:], bidlab.METRICS):
        assert a.tolist() == column[metric][:, 0].tolist() and b.tolist() == column[metric][:, 2].tolist()
        assert luck_a.tolist() == column["luck"][:, 0].tolist() and luck_b.tolist() == column["luck"][:, 2].tolist()
        expected_field = {"win": np.full(100, 0.25), "margin": np.zeros(100), "vp": column["field_vp"][:, 0]}[metric]
        assert field.tolist() == expected_field.tolist() and (resamples, seed) == (10_000, 0)
    assert results[0]["win"]["resamples"] == 10_000


def test_compare_many_passes_every_argument_on(monkeypatch):
    captured = {}
    monkeypatch.setattr(bidlab, "_run_deals", fake_run_deals(captured))
    calls = spy_analyse(monkeypatch)
    bidlab.compare_many("heuristic", ["heuristic-aggressive"], opponents=["random", "heuristic"], num_players=3,
                        deals=3, seed=4, board=6, max_turns=50, seat_orders="sample", workers=2, resamples=30,
                        position_every=2)
    lab = captured["lab"]
    assert (lab.num_players, lab.board, lab.max_turns, lab.seed, lab.seat_orders, lab.orders_per_deal,
            lab.position_every) == (3, 6, 50, 4, "sample", 3, 2)  # sample: num_players orders when not given
    assert (captured["deals"], captured["workers"]) == (3, 2)
    assert all(call[4] is None and call[5:] == (30, 4) for call in calls)  # no field control: the opponents differ


def test_compare_many_checks_its_arguments_before_playing(monkeypatch):
    monkeypatch.setattr(bidlab, "_run_deals", lambda *args: pytest.fail("played with bad arguments"))
    with pytest.raises(ValueError) as error:
        bidlab.compare_many("heuristic", ["heuristic"], num_players=5)
    assert str(error.value) == "num_players must be 2, 3 or 4, got 5"
    with pytest.raises(ValueError) as error:
        bidlab.compare_many("heuristic", ["heuristic"], seat_orders="random")
    assert str(error.value) == "seat_orders must be one of cyclic, all, sample, got 'random'"
    with pytest.raises(ValueError, match="orders_per_deal must be 1..6"):
        bidlab.compare_many("heuristic", ["heuristic"], num_players=3, seat_orders="sample", orders_per_deal=7)


# ---- auction effects ---------------------------------------------------------------------------

def synthetic_replays(positions_count=12):
    rng = np.random.default_rng(3)
    names = ["value", "reach", "pass", "value x1.5"]
    return [{"deal": i // 3, "rotation": i % 3, "vp": {n: float(rng.integers(20, 60)) for n in names},
             "win": {n: 0.0 for n in names}} for i in range(positions_count)]


def test_auction_effects_table_by_its_definitions(monkeypatch):
    replays = synthetic_replays()
    replays[0]["vp"]["reach"] = replays[0]["vp"]["value"]  # one auction the strategy does not change
    monkeypatch.setattr(bidlab, "_replay_all", lambda job: replays[job[1]])
    result = bidlab.auction_effects([{}] * 12, strategies=(ReachBidding(),), alternatives=(0.0, 1.5), seed=3,
                                    resamples=300)
    assert (result["positions"], result["source_games"], result["source_deals"]) == (12, 12, 4)
    assert result["bids"] == ["value", "pass", "value x1.5"]
    deals = [r["deal"] for r in replays]
    bids = ["value", "pass", "value x1.5"]
    for name in ("value", "reach"):
        vp = np.array([r["vp"][name] for r in replays])
        base = np.array([r["vp"]["value"] for r in replays])
        best = np.array([max(r["vp"][b] for b in bids + [name]) for r in replays])
        effect = stats.cluster_bootstrap_mean(vp - base, deals, 300, 3)
        regret = stats.cluster_bootstrap_mean(best - vp, deals, 300, 3)
        expected = {"effect_vp": effect[0], "effect_ci_low": effect[1], "effect_ci_high": effect[2],
                    "regret_vp": regret[0], "regret_ci_low": regret[1], "regret_ci_high": regret[2],
                    "changed": float(np.mean(vp != base)),
                    "variance_reduction": None if name == "value" else
                    (vp.var(ddof=1) + base.var(ddof=1)) / (vp - base).var(ddof=1)}
        assert result["strategies"][name] == pytest.approx(expected), name
    assert result["strategies"]["reach"]["changed"] == pytest.approx(11 / 12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # one position: var(ddof=1) of one value
def test_auction_effects_defaults_and_a_single_position(monkeypatch):
    replays = synthetic_replays(1)
    monkeypatch.setattr(bidlab, "_replay_all", lambda job: dict(replays[0], jobs=job))
    seen = []
    real = stats.cluster_bootstrap_mean
    monkeypatch.setattr(stats, "cluster_bootstrap_mean", lambda *args: seen.append(args[2:]) or real(*args))
    monkeypatch.setattr(bidlab, "fork_pool", lambda *args: pytest.fail("one worker by default"))
    result = bidlab.auction_effects([{}], strategies=("reach",))
    assert result["positions"] == 1 and result["bids"] == ["value", "pass", "value x1.5"]
    assert seen and all(extra == (10_000, 0) for extra in seen)


def test_replay_all_plays_each_strategy_and_each_scale_once(monkeypatch):
    played = []

    def replay(position, bidding, seed, index):
        played.append((bidding.name, seed, index))
        return len(played), 0.5

    monkeypatch.setattr(bidlab, "replay_position", replay)
    strategies = {"value": BIDDING_STRATEGIES["value"](), "reach": ReachBidding()}
    out = bidlab._replay_all(({"deal": 4, "rotation": 2}, 7, strategies, (0.0, 1.0, 1.5), 9))
    assert played == [("value", 9, 7), ("reach", 9, 7), ("pass", 9, 7), ("value x1.5", 9, 7)]  # x1 is value
    assert out == {"deal": 4, "rotation": 2, "vp": {"value": 1, "reach": 2, "pass": 3, "value x1.5": 4},
                   "win": {"value": 0.5, "reach": 0.5, "pass": 0.5, "value x1.5": 0.5}}
    played.clear()
    bidlab._replay_all(({"deal": 0, "rotation": 0}, 0, {"reach": ReachBidding()}, (1.0,), 0))
    assert played == [("reach", 0, 0), ("value x1", 0, 0)]


@pytest.fixture(scope="module")
def positions():
    lab = bidlab._Lab([agent_factory("heuristic")], [agent_factory("heuristic")], 2, 5, 300, 0, "cyclic", 2, 4)
    return bidlab.play_deal(lab, 0)["positions"][:2]


class RecordingBidding(BIDDING_STRATEGIES["value"]):
    name = "recording"

    def __init__(self):
        self.calls = 0

    def limit(self, situation, worth):
        self.calls += 1
        return super().limit(situation, worth)


def test_a_replay_bids_with_the_strategy_and_is_reproducible_with_random_opponents(positions):
    strategy = RecordingBidding()
    bidlab.replay_position(positions[0], strategy, seed=1, index=0)
    assert strategy.calls > 0  # the focus seat bid with it
    first = bidlab.replay_position(positions[0], strategy, seed=1, index=0, rest="random")
    assert first == bidlab.replay_position(positions[0], strategy, seed=1, index=0, rest="random")
    # a bid three times the worth wins the auction: the bidder also chooses where to build (a seeded choice)
    high = [bidlab.replay_position(p, bidlab.ScaledBidding(3.0), seed=2, index=0) for p in positions]
    assert high == [bidlab.replay_position(p, bidlab.ScaledBidding(3.0), seed=2, index=0) for p in positions]


def test_scaled_bidding_scales_the_worth():
    assert bidlab.ScaledBidding(0.5).limit(None, 12) == 6 and bidlab.ScaledBidding(0).name == "pass"


def test_workers_change_nothing(positions):
    kwargs = dict(num_players=2, deals=2, seed=3, resamples=50)
    assert bidlab.compare("heuristic", "heuristic-aggressive", workers=2, **kwargs) == \
        bidlab.compare("heuristic", "heuristic-aggressive", workers=1, **kwargs)
    one = bidlab.auction_effects(positions, strategies=("value",), alternatives=(0.0,), resamples=50)
    assert bidlab.auction_effects(positions, strategies=("value",), alternatives=(0.0,), resamples=50, workers=2) == one


# ---- saved positions, text and JSON ---------------------------------------------------------------

class _Meter:
    def __init__(self):
        self.saves = 0

    def saved_state(self):
        self.saves += 1
        return {"save": self.saves}


class _Game:
    n = 3


def test_the_position_saver_keeps_every_kth_auction_start_with_its_tags():
    saved = []
    saver = bidlab._PositionSaver(_Meter(), 3, np.random.default_rng(5), {"deal": 2, "rotation": 1}, saved)
    for _ in range(7):
        saver(_Game())
    focus = np.random.default_rng(5).integers(3, size=3)
    assert saved == [{"deal": 2, "rotation": 1, "auction": k, "game": {"save": i + 1}, "focus": int(focus[i])}
                     for i, k in enumerate((0, 3, 6))]


def _metric(base, extra=()):
    r = {"candidate": base + 0.25, "baseline": base, "difference": 0.25, "ci_low": -0.125, "ci_high": 0.5,
         "unpaired_ci_low": -1.0, "unpaired_ci_high": 1.5,
         "variance_reduction_by_method": {"paired": 2.0, "paired_luck_corrected": None}}
    for name in extra:
        r[name] = {"difference": 0.125, "ci_low": -0.25, "ci_high": 0.375}
    return r


def test_format_comparison_prints_every_figure():
    result = {"settings": {"candidate": "c", "baseline": "b", "opponents": ["o1", "o2"], "num_players": 3,
                           "games_per_deal": 3, "seat_orders": "cyclic", "seed": 4},
              "deals": 10, "win": _metric(0.5, ("luck_corrected",)),
              "vp": _metric(40.0, ("field_corrected", "field_and_luck_corrected")), "margin": _metric(1.0)}
    assert bidlab.format_comparison(result) == "\n".join([
        "c vs b (focus entry; opponents o1, o2), 3 players, 10 deals x 3 seat orders (cyclic), seed 4",
        "  win share: candidate 0.750, baseline 0.500",
        "    difference +0.250  paired 95% CI [-0.125, +0.500]  unpaired [-1.000, +1.500]",
        "    luck corrected: +0.125 [-0.250, +0.375]",
        "    variance reduction vs unpaired: paired 2.00x, paired luck corrected n/a",
        "  VP: candidate 40.250, baseline 40.000",
        "    difference +0.250  paired 95% CI [-0.125, +0.500]  unpaired [-1.000, +1.500]",
        "    field corrected: +0.125 [-0.250, +0.375]",
        "    field and luck corrected: +0.125 [-0.250, +0.375]",
        "    variance reduction vs unpaired: paired 2.00x, paired luck corrected n/a",
        "  VP margin over the others' mean: candidate 1.250, baseline 1.000",
        "    difference +0.250  paired 95% CI [-0.125, +0.500]  unpaired [-1.000, +1.500]",
        "    variance reduction vs unpaired: paired 2.00x, paired luck corrected n/a",
    ])


def test_write_json_is_sorted_with_one_space_indents(tmp_path):
    bidlab.write_json(tmp_path / "out.json", {"b": [1], "a": None})
    assert (tmp_path / "out.json").read_text() == '{\n "a": null,\n "b": [\n  1\n ]\n}\n'
    assert json.loads((tmp_path / "out.json").read_text()) == {"a": None, "b": [1]}


# ---- playing: the deal's figures, the hooks, the helpers ------------------------------------------

def test_play_deal_figures_by_their_definitions():
    """Each arm's win share, VP, margin over the others' mean, relative luck and field VP: the means over
    the deal's seatings of games replayed here by hand (3 players, so the margin's n - 1 matters;
    sampled seat orders, so the seed and the deal choose them)."""
    arms = [agent_factory("heuristic"), bidlab.make_factory("heuristic-aggressive")]
    opponents = [agent_factory("random"), agent_factory("heuristic")]
    lab = bidlab._Lab(arms, opponents, 3, 5, 300, 5, "sample", 2, 2)
    out = bidlab.play_deal(lab, 1)
    assert out["deal"] == 1 and set(out) == {"deal", "win", "vp", "margin", "luck", "field_vp", "positions"}
    seatings = deal_seatings(3, "sample", 5, 1, 2)
    for arm, focus in enumerate(arms):
        figures = []
        for rotation, seats in enumerate(seatings):
            game = bidlab.new_game(3, 5, 300, 5, 1)
            agents = []
            for seat, entry in enumerate(seats):
                agent = ([focus] + opponents)[entry]()
                agent.reset(game.config, seat, np.random.default_rng([5, 1, rotation, entry]))
                agents.append(agent)
            meter = bidlab.LuckMeter(game)
            bidlab.play_out(game, agents, meter)
            me = seats.index(0)
            others = [game.scores[p] for p in range(3) if p != me]
            figures.append([bidlab.win_shares(game)[me], game.scores[me], game.scores[me] - sum(others) / 2,
                            meter.relative(me), sum(game.scores) / 3])
        expected = np.mean(figures, axis=0)
        got = [out[key][arm] for key in ("win", "vp", "margin", "luck", "field_vp")]
        assert got == pytest.approx(expected.tolist()), arm
    focus_draws = {rotation: np.random.default_rng([5, 1, rotation, 99]) for rotation in range(2)}
    assert out["positions"] and all(p["focus"] == int(focus_draws[p["rotation"]].integers(3))
                                    for p in out["positions"])


def test_win_shares_split_a_shared_win():
    class Over:
        n, winners = 3, [0, 2]
    assert bidlab.win_shares(Over()) == [0.5, 0.0, 0.5]


def test_new_game_uses_the_board_and_the_turn_limit():
    game = bidlab.new_game(3, 6, 40, seed=2, deal=1)
    assert (game.config.num_players, game.config.board, game.config.max_turns) == (3, 6, 40)


def test_ratio_is_none_only_when_the_denominator_is_rounding():
    assert bidlab._ratio(4.0, 2.0) == 2.0 and bidlab._ratio(1.0, 0.0) is None
    assert bidlab._ratio(1e-3, 1e-11) == pytest.approx(1e8)  # small, but far above 1e-9 of the numerator
    assert bidlab._ratio(1.0, 1e-10) is None


def test_make_factory_takes_names_factories_and_strategies():
    for spec in (ReachBidding, ReachBidding()):
        agent = bidlab.make_factory(spec)()
        assert agent.name == "heuristic-reach" and isinstance(agent.bidding, ReachBidding)
    factory = agent_factory("random")
    assert bidlab.make_factory(factory) is factory
    with pytest.raises(TypeError) as error:
        bidlab.make_factory(3)
    assert str(error.value) == "give an agent name, a zero-argument agent factory or a BiddingStrategy, got 3"


def test_expected_draw_reshuffles_under_a_face_up_top_of_the_lowest_value():
    assert bidlab._expected_draw([1, 0 + 3 * FACE_UP]) == pytest.approx((VALUES[0] + VALUES[1]) / 2)


def test_the_bidder_takes_only_its_seats_decisions_in_the_running_auction(positions):
    game = Game.from_dict(positions[0]["game"])
    focus, other = positions[0]["focus"], 1 - positions[0]["focus"]
    bidder, agent = object(), object()
    hooks = bidlab._PlayOutHooks(game, None, (focus, bidder), None)
    start = (game.turn, game.auc_loc)
    assert hooks.choose_agent(game, focus, agent) is bidder and hooks.choose_agent(game, other, agent) is agent
    while game.decision in (BID_DECISION, BUILD_DECISION) and game.auc_loc == start[1]:
        game.apply(int(np.flatnonzero(game.action_mask())[0]))
    assert hooks.choose_agent(game, focus, agent) is agent  # the auction is over
    while game.decision != BID_DECISION and not game.is_over:
        game.apply(int(np.flatnonzero(game.action_mask())[0]))
    assert hooks.choose_agent(game, focus, agent) is agent  # and stays over in the next auctions
    assert bidlab._PlayOutHooks(Game.from_dict(positions[0]["game"]), None, None, None).auction_loc is None


def test_on_auction_is_called_once_per_new_auction(positions):
    game = Game.from_dict(positions[0]["game"])
    start = (game.turn, game.auc_loc)
    seen = []
    agents = [agent_factory("heuristic")() for _ in range(2)]
    for seat, agent in enumerate(agents):
        agent.reset(game.config, seat, np.random.default_rng(seat))
    bidlab.play_out(game, agents, on_auction=lambda g: seen.append((g.turn, g.auc_loc)))
    assert game.is_over and seen and start not in seen  # the auction in progress is not a new one
    assert len(seen) == len(set(seen))


class _FirstLegalThenTrip:
    """The first legal action, but the turn's final move takes ``commissioner`` to City Hall."""
    needs_observation = False

    def __init__(self, game, commissioner):
        self.game, self.commissioner = game, commissioner

    def act(self, observation, mask):
        trip = move_action(self.commissioner, CITY_HALL)
        if self.game.decision == MOVE_DECISION and self.game.final_move and mask[trip]:
            return trip
        return int(np.flatnonzero(mask)[0])


def test_on_auction_sees_a_second_central_park_auction_of_the_turn_the_play_out_started_in():
    # R20: action C's trip ends with a Central Park auction; if the final move takes the other commissioner
    # from Central Park to City Hall with no marker in an open district, the next auction is again in Central
    # Park in the same turn. A play_out handed the first one's build decision must report the second.
    rng = np.random.default_rng(2)
    game = Game(GameConfig(num_players=2), rng=np.random.default_rng(2))
    while not (game.decision == BUILD_DECISION and game.auc_loc == CENTRAL_PARK and not game.final_move):
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    saved = game.to_dict()
    other = 1 - game.auc_comm
    saved["state"]["comm_pos"][other] = CENTRAL_PARK
    saved["state"]["markers"][other] = [False] * len(saved["state"]["markers"][other])
    game = Game.from_dict(saved)  # through the save file's checks
    start = (game.turn, CENTRAL_PARK)
    seen = []
    agents = [_FirstLegalThenTrip(game, other) for _ in range(2)]
    bidlab.play_out(game, agents, on_auction=lambda g: seen.append((g.turn, g.auc_loc)))
    assert seen[0] == start  # a new auction, though at the location and turn of the build decision
    assert len(seen) == len(set(seen))


def test_a_search_bidder_gets_its_seats_sampler(positions):
    game = Game.from_dict(positions[0]["game"])
    focus = positions[0]["focus"]
    searcher = SearchAgent(rollouts=2, depth=0)
    searcher.reset(game.config, focus, np.random.default_rng(0))
    agents = [agent_factory("heuristic")() for _ in range(2)]
    for seat, agent in enumerate(agents):
        agent.reset(game.config, seat, np.random.default_rng(seat))
    bidlab.play_out(game, agents, bidder=(focus, searcher))
    assert searcher.searched > 0  # without its sampler a search agent plays as the heuristic
