"""The bidding lab: paired comparisons, luck bookkeeping, auction replays, the two new strategies."""

import json

import numpy as np
import pytest

from fifthave.agents import HeuristicAgent, bidlab, bidlab_cli, stats
from fifthave.agents.bidding import BIDDING_STRATEGIES, AuctionSituation, MajorityBidding, ReachBidding, opponent_reach
from fifthave.agents.search import SearchAgent
from fifthave.agents.tournament import agent_factory
from fifthave.agents.view import SeatView
from fifthave_env.engine.cards import BLACK, FACE_UP, KIND_VALUE, NUM_COLORS, SEEN_FACE_DOWN
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.observation import OBS_SIZES, Observer
from fifthave_env.random_agent import RandomAgent


def test_a_strategy_compared_with_itself_differs_by_zero():
    result = bidlab.compare("heuristic", ValueCopy(), num_players=3, deals=3, seed=5)
    assert result["deals"] == 3 and result["settings"]["candidate"] == "heuristic-value-copy"
    for metric in ("win", "vp"):
        r = result[metric]
        assert r["difference"] == 0 and r["ci_low"] <= 0 <= r["ci_high"]  # common random numbers: the same games
        assert r["unpaired_ci_low"] < 0 < r["unpaired_ci_high"]
    assert result["variance_reduction"] is None  # nothing left to compare


class ValueCopy(BIDDING_STRATEGIES["value"]):
    name = "value-copy"


def test_identical_seeds_give_identical_json(tmp_path):
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        bidlab_cli.main(["compare", "--candidate", "aggressive", "--players", "3", "--deals", "2", "--seed", "2",
                     "--workers", "1", "--json", str(path)])
    assert paths[0].read_bytes() == paths[1].read_bytes()
    data = json.loads(paths[0].read_text())
    for key in ("deals", "difference", "ci_low", "ci_high", "unpaired_ci_low", "unpaired_ci_high",
                "variance_reduction"):
        assert key in data
    assert data["settings"]["candidate"] == "heuristic-aggressive" and data["deals"] == 2
    assert data["difference"] == pytest.approx(data["win"]["difference"])


def test_seat_orders_and_bad_arguments():
    result = bidlab.compare("heuristic", "heuristic-hoarder", num_players=3, deals=2, seat_orders="all")
    assert result["settings"]["games_per_deal"] == 6
    with pytest.raises(ValueError, match="3 players need 2 opponents"):
        bidlab.compare("heuristic", "heuristic-hoarder", num_players=3, opponents=["random"], deals=2)
    with pytest.raises(ValueError, match="deals must be at least 2"):
        bidlab.compare("heuristic", "heuristic-hoarder", num_players=3, deals=1)
    with pytest.raises(ValueError, match="orders_per_deal must be 1..6"):
        bidlab.compare("heuristic", "heuristic-hoarder", num_players=3, deals=2, seat_orders="sample",
                       orders_per_deal=7)


def test_expected_black_draw_follows_what_is_unseen():
    unseen = [0, 2, 2]  # values 4, 6, 6, face down and unseen; the top is last
    assert bidlab._expected_draw(unseen) == pytest.approx(16 / 3)
    assert bidlab._expected_draw([1 + 3 * SEEN_FACE_DOWN] + unseen) == pytest.approx(16 / 3)  # seen cards lie below
    assert bidlab._expected_draw(unseen + [1 + 3 * SEEN_FACE_DOWN]) == 5  # a card seen going under: no luck
    assert bidlab._expected_draw([0, 1 + 3 * FACE_UP]) == 4.5  # a face-up top: the pile is reshuffled (R16)
    assert bidlab._expected_draw([]) is None


def test_the_luck_meter_does_not_change_the_game_and_sums_to_the_draws():
    plain = bidlab.new_game(4, 5, 300, seed=3, deal=0)
    metered = bidlab.new_game(4, 5, 300, seed=3, deal=0)
    meter = bidlab.LuckMeter(metered)
    start = list(meter.luck)

    def agents():
        made = []
        for seat in range(4):
            agent = HeuristicAgent()
            agent.reset(plain.config, seat, np.random.default_rng(seat))
            made.append(agent)
        return made

    bidlab.play_out(plain, agents())
    bidlab.play_out(metered, agents(), meter)
    assert metered.scores == plain.scores and metered.hands == plain.hands
    assert meter.luck != start  # black cards were drawn
    assert "draw_black" not in json.dumps(meter.saved_state())
    assert sum(meter.relative(p) for p in range(4)) == pytest.approx(0, abs=1e-9)


class _LayoutOneRandom(RandomAgent):
    """Reads layout 1 (like the candidate-value agents) and checks that it gets it."""

    observation_layout = 1
    needs_observation = True  # unlike RandomAgent, it reads it

    def act(self, observation, action_mask):
        assert observation.shape == (OBS_SIZES[1],)
        return super().act(observation, action_mask)


def test_play_out_seats_agents_as_the_tournament_does():
    """Each agent sees its own layout and a search agent gets its sampler (before, it played as the
    heuristic without a word, and a layout-1 agent got layout 0)."""
    game = bidlab.new_game(4, 5, 300, seed=4, deal=0)
    searcher = SearchAgent(rollouts=2, depth=0)
    agents = [searcher, _LayoutOneRandom(), HeuristicAgent(), _LayoutOneRandom()]
    for seat, agent in enumerate(agents):
        agent.reset(game.config, seat, np.random.default_rng(seat))
    bidlab.play_out(game, agents, bidlab.LuckMeter(game))  # the search clones the metered game
    assert game.is_over and searcher.searched > 0


def test_auction_effect_intervals_resample_deals_not_games(monkeypatch):
    # 20 deals x 3 seat orders x 2 positions; the deal decides the effect, so 20 units, not 60 games
    rng = np.random.default_rng(0)
    deal_effect = rng.normal(0, 2, 20)
    positions = [{"deal": k, "rotation": r} for k in range(20) for r in range(3) for _ in range(2)]

    def replay(job):
        position, index = job[0], job[1]
        value = 10 + deal_effect[position["deal"]] + 0.01 * index
        return {"deal": position["deal"], "rotation": position["rotation"], "vp": {"value": 10.0, "reach": value},
                "win": {}}
    monkeypatch.setattr(bidlab, "_replay_all", replay)
    result = bidlab.auction_effects(positions, strategies=(ReachBidding(),), alternatives=(), resamples=4000)
    assert result["source_deals"] == 20 and result["source_games"] == 60 and result["positions"] == 120
    effect = result["strategies"]["reach"]
    effects = np.array([replay((p, i))["vp"]["reach"] - 10 for i, p in enumerate(positions)])
    by_deal = stats.cluster_bootstrap_mean(effects, [p["deal"] for p in positions], 4000, 0)
    by_game = stats.cluster_bootstrap_mean(effects, [(p["deal"], p["rotation"]) for p in positions], 4000, 0)
    assert (effect["effect_vp"], effect["effect_ci_low"], effect["effect_ci_high"]) == pytest.approx(by_deal)
    assert by_deal[2] - by_deal[1] > 1.3 * (by_game[2] - by_game[1])


def test_auction_replays_are_deterministic_and_report_effects_and_regret():
    lab = bidlab._Lab([agent_factory("heuristic")], [agent_factory("heuristic")] * 2, 3, 5, 300, 0, "cyclic", 3, 10)
    positions = bidlab.play_deal(lab, 0)["positions"][:3]
    assert positions and all(p["game"]["state"]["decision"] == BID_DECISION for p in positions)
    again = bidlab.replay_position(positions[0], ReachBidding(), seed=1, index=0)
    assert again == bidlab.replay_position(positions[0], ReachBidding(), seed=1, index=0)
    result = bidlab.auction_effects(positions, strategies=("value", "aggressive"), alternatives=(0.0, 1.5))
    assert result["positions"] == 3 and result["bids"] == ["value", "pass", "value x1.5"]
    value = result["strategies"]["value"]
    assert value["effect_vp"] == 0 and value["regret_vp"] >= 0
    assert result["strategies"]["aggressive"]["regret_vp"] >= 0


def _bid_view(seed=4):
    """A real 3-player game stopped at its first bid decision, and the seat asked."""
    game = bidlab.new_game(3, 5, 300, seed=seed, deal=0)
    agents = [HeuristicAgent() for _ in range(3)]
    for seat, agent in enumerate(agents):
        agent.reset(game.config, seat, np.random.default_rng(seat))
    observer = Observer(game.config)
    while game.decision != BID_DECISION:
        game.apply(int(agents[game.actor].act(observer.observe(game, game.actor), game.action_mask())))
    return game, observer


def test_opponent_reach_is_exact_when_every_card_is_known():
    game, observer = _bid_view()
    seat = game.actor
    for p in range(game.n):  # R31: pretend every card of every hand is known exactly
        game.known[p] = list(game.hands[p])
    game.touch()
    view = SeatView(observer.observe(game, seat), game.action_mask(), game.config)
    for slot in range(1, game.n):
        hand = game.hands[(seat + slot) % game.n]
        black = sum(KIND_VALUE[k] * hand[k] for k in range(BLACK * 3, BLACK * 3 + 3))
        colored = max(sum(KIND_VALUE[k] * hand[k] for k in range(c * 3, c * 3 + 3)) for c in range(NUM_COLORS)
                      if sum(hand[c * 3:c * 3 + 3]))
        assert opponent_reach(view, slot) == black + colored


def test_majority_bidding_adds_the_value_of_the_lead_a_build_buys():
    game, observer = _bid_view()
    view = SeatView(observer.observe(game, game.actor), game.action_mask(), game.config)
    d = view.auction_location
    assert 0 <= d < 5, "the first auction of this deal is in a district"
    seen = {}

    class Spy(MajorityBidding):
        def limit(self, situation, worth):
            seen.setdefault("worth", situation.worth)
            return worth

    Spy(majority_weight=0.5, points_per_vp=2.0).plan(
        AuctionSituation(view, lambda b: 3.0 * b, (1, 2, 3), tuple(view.allowed_colors)))
    scores = view.district_scores(d)
    rival = max(scores[1:])
    mine = view.my_plot(d)
    per = view.plot_value(mine) if mine >= 0 else max(
        view.plot_value(p) for p in view.tables.district_plots[d]
        if view.is_empty(p) and view.tables.plot_color[p] in view.allowed_colors)
    for b in (1, 2, 3):  # 0.5 x 2 card points per VP of district lead gained
        lead_gained = max(0, scores[0] + b * per - rival) - max(0, scores[0] - rival)
        assert seen["worth"](b) == pytest.approx(3.0 * b + lead_gained)
    assert any(seen["worth"](b) > 3.0 * b for b in (1, 2, 3))  # the case tested does buy a lead


@pytest.mark.parametrize("name", ["reach", "majority"])
def test_new_strategies_are_registered_and_play(name):
    assert name in BIDDING_STRATEGIES
    agent = agent_factory(f"heuristic-{name}")()
    assert agent.name == f"heuristic-{name}" and agent.bidding.name == name
    result = bidlab.compare("heuristic", f"heuristic-{name}", num_players=3, deals=2, seed=1)
    assert 0 <= result["win"]["candidate"] <= 1
