"""The candidate-value fit: its listwise term (``listwise_weight``, issue 35), the tie and the end bonus."""

import dataclasses
import math

import numpy as np
import pytest
import torch

from fifthave.train.candidate_values import CandidateValueConfig, collect, fit, fit_loss, listwise_loss
from fifthave.train.values_agent import save_values

TINY = dict(samples=1, observation_layout=0, games=2, held_out_games=1, workers=1, embedding_width=16, epochs=2,
            ensemble=1, eval_games=0)

# two decisions: candidates 0-1 of decision 0, candidates 2-4 of decision 1
PREDICTED = torch.tensor([1.0, 0.0, 5.0, 5.0, 2.0])
TARGETS = torch.tensor([0.0, 1.0, 0.0, 0.0, -1.0])
OWNER = torch.tensor([0, 0, 1, 1, 1])


def cross_entropy(predicted, targets, temperature):
    """By hand: -sum_i softmax(targets / T)_i log softmax(predicted / T)_i of one decision."""
    p = [math.exp(t / temperature) for t in targets]
    q = [math.exp(x / temperature) for x in predicted]
    return -sum(pi / sum(p) * math.log(qi / sum(q)) for pi, qi in zip(p, q))


@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_listwise_loss_is_the_mean_over_decisions_of_each_decisions_softmax_cross_entropy(temperature):
    expected = (cross_entropy([1, 0], [0, 1], temperature) + cross_entropy([5, 5, 2], [0, 0, -1], temperature)) / 2
    got = listwise_loss(PREDICTED, TARGETS, OWNER, 2, temperature)
    assert got.item() == pytest.approx(expected, rel=1e-6)


def test_listwise_loss_is_least_at_the_labels_plus_a_constant_per_decision():
    # the cross-entropy's gradient is softmax(predicted) - softmax(targets) per decision: 0 there, and only there
    for shift, least in ((torch.tensor([3.0, 3.0, -2.0, -2.0, -2.0]), True), (torch.tensor([0.0, 1.0, 0, 0, 0]), False)):
        predicted = (TARGETS + shift).requires_grad_()
        listwise_loss(predicted, TARGETS, OWNER, 2, 1.0).backward()
        assert torch.allclose(predicted.grad, torch.zeros(5), atol=1e-7) == least


def test_large_values_do_not_overflow():
    loss = listwise_loss(torch.tensor([1000.0, 0.0]), torch.tensor([0.0, 1000.0]), torch.tensor([0, 0]), 1, 1.0)
    assert loss.item() == pytest.approx(1000.0)


def test_the_fit_loss_is_the_squared_error_unless_listwise_weight_is_set():
    mse = torch.nn.functional.mse_loss(PREDICTED, TARGETS)
    default = CandidateValueConfig()
    assert default.mse_weight == 1 and default.listwise_weight == 0  # the committed runs' fit, bit for bit
    assert torch.equal(fit_loss(default, PREDICTED, TARGETS, OWNER, 2), mse)
    both = CandidateValueConfig(mse_weight=0.5, listwise_weight=2.0, listwise_temperature=0.5)
    expected = 0.5 * mse + 2.0 * listwise_loss(PREDICTED, TARGETS, OWNER, 2, 0.5)
    assert fit_loss(both, PREDICTED, TARGETS, OWNER, 2).item() == pytest.approx(expected.item(), rel=1e-6)
    for weight in (0.25, 2.0, 3.0):  # any weight scales the squared error, not only the ones written above
        scaled = fit_loss(CandidateValueConfig(mse_weight=weight), PREDICTED, TARGETS, OWNER, 2)
        assert scaled.item() == pytest.approx(weight * mse.item(), rel=1e-6)


def test_config_refuses_bad_loss_fields():
    with pytest.raises(ValueError, match="listwise_weight must be a number from 0.0"):
        CandidateValueConfig(listwise_weight=-1)
    with pytest.raises(ValueError, match="listwise_temperature must be a number above 0.0"):
        CandidateValueConfig(listwise_temperature=0)
    with pytest.raises(ValueError, match="mse_weight and listwise_weight are both 0"):
        CandidateValueConfig(mse_weight=0)


def test_a_listwise_fit_is_seeded_and_differs_from_the_squared_error_fit(tmp_path):
    config = CandidateValueConfig(**TINY)
    rng = np.random.default_rng(0)
    held_out, data = collect(config, 1, rng, log=print), collect(config, 2, rng)
    quiet = dict(log=lambda *a, **k: None)
    digests = []
    for k, settings in enumerate([{}, dict(listwise_weight=1.0), dict(listwise_weight=1.0)]):
        net = fit(dataclasses.replace(config, **settings), data, held_out, **quiet)
        digests.append(save_values(tmp_path / f"{k}.npz", net, dataclasses.asdict(config), {}))
    assert digests[1] == digests[2] != digests[0]


def test_head_width_sets_the_value_heads_units_and_the_agent_file_plays_it(tmp_path):
    from fifthave.train.values_agent import load_values
    config = CandidateValueConfig(**dict(TINY, epochs=1), head_width=8)
    rng = np.random.default_rng(0)
    held_out, data = collect(config, 1, rng), collect(config, 1, rng)
    net = fit(config, data, held_out, log=lambda *a, **k: None)
    assert net.members[0].head[1].out_features == 8
    save_values(tmp_path / "v.npz", net, dataclasses.asdict(config), {})
    played, _, _, meta = load_values(tmp_path / "v.npz")
    assert meta["architecture"]["head"] == 8
    observations, features, owners, _ = data
    with torch.no_grad():
        expected = net(*(torch.as_tensor(a) for a in (observations, features, owners))).numpy()
    assert np.allclose(played.values(observations[0], features[owners == 0]), expected[owners == 0], atol=1e-5)
    with pytest.raises(ValueError, match="head_width must be an int >= 1"):
        CandidateValueConfig(head_width=0)


def test_tie_bonus_raises_the_first_candidate_of_decisions_whose_labels_are_all_equal():
    from fifthave.train.candidate_values import with_tie_bonus
    owners = np.array([0, 0, 1, 1, 1, 2, 2, 3])  # decision 1 has a difference; 3 has one candidate
    targets = np.array([0.0, 0.0, 1.0, -1.0, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)
    got = with_tie_bonus(owners, targets, 0.5)
    assert got.tolist() == [0.5, 0.0, 1.0, -1.0, 0.0, 0.5, 0.0, 0.5]
    assert targets[0] == 0.0  # a copy: the stored labels stay as searched
    # the bonus is added to the tied value, whatever it is (labels relative to another candidate tie at 0; others
    # need not)
    assert with_tie_bonus(np.array([0, 0]), np.array([2.0, 2.0], dtype=np.float32), 0.5).tolist() == [2.5, 2.0]


def test_a_tie_bonus_fit_is_the_fit_of_the_raised_labels(tmp_path):
    from fifthave.train.candidate_values import with_tie_bonus
    config = CandidateValueConfig(**dict(TINY, epochs=1))
    rng = np.random.default_rng(0)
    held_out, data = collect(config, 1, rng), collect(config, 1, rng)
    quiet = dict(log=lambda *a, **k: None)
    raised = (*data[:3], with_tie_bonus(data[2], data[3], 0.3))
    digests = [save_values(tmp_path / f"{k}.npz", net, dataclasses.asdict(config), {}) for k, net in enumerate([
        fit(dataclasses.replace(config, tie_bonus=0.3), data, held_out, **quiet),
        fit(config, raised, held_out, **quiet), fit(config, data, held_out, **quiet)])]
    assert digests[0] == digests[1] != digests[2]
    with pytest.raises(ValueError, match="tie_bonus must be a number from 0.0"):
        CandidateValueConfig(tie_bonus=-0.1)


def test_end_bonus_raises_the_candidates_that_bring_the_end_nearer_and_so_takes_their_ties():
    from fifthave.train.candidate_values import ends_nearer, with_end_bonus, with_tie_bonus
    from fifthave_env.engine.actions import BUILD, DECLARE_STOP, NUM_ACTIONS
    # decision 0: the A/B/C/D choice, all tied (a lost game); 1: a build after winning, all tied; 2: A/B/D with
    # the search preferring D to B by more than the bonus; 3: a tie with no such candidate (C, D)
    firsts = [0, 1, 2, 3, BUILD, BUILD + 3, DECLARE_STOP, 0, 1, 3, 2, 3]
    owners = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3])
    features = np.zeros((len(firsts), NUM_ACTIONS + 20), dtype=np.float32)
    features[np.arange(len(firsts)), firsts] = 1.0
    assert ends_nearer(features).tolist() == [f in (1, DECLARE_STOP) for f in firsts]
    targets = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0.25, 0.5, 0, 0], dtype=np.float32)
    raised = with_end_bonus(features, targets, 0.2)
    assert raised.tolist() == pytest.approx([0, 0.2, 0, 0, 0, 0, 0.2, 0, 0.45, 0.5, 0, 0])  # added to the label
    assert targets.tolist() == pytest.approx([0, 0, 0, 0, 0, 0, 0, 0, 0.25, 0.5, 0, 0])  # a copy: labels as searched
    # fit() adds it before the tie bonus: decisions 0 and 1 are no longer ties, 3 still is
    assert with_tie_bonus(owners, raised, 0.1).tolist() == pytest.approx(
        [0, 0.2, 0, 0, 0, 0, 0.2, 0, 0.45, 0.5, 0.1, 0])


def test_an_end_bonus_fit_is_the_fit_of_the_raised_labels(tmp_path):
    from fifthave.train.candidate_values import ends_nearer, with_end_bonus, with_tie_bonus
    config = CandidateValueConfig(**dict(TINY, epochs=1, groups=["choose", "board"]))
    rng = np.random.default_rng(0)
    held_out, data = collect(config, 1, rng), collect(config, 1, rng)
    targets = data[3].copy()
    targets[data[2] == data[2][ends_nearer(data[1])][0]] = 0.0  # as if lost at its first A/B/C/D choice with B
    data = (*data[:3], targets)
    raised = with_tie_bonus(data[2], with_end_bonus(data[1], data[3], 0.3), 0.1)
    # the labels tell the bonuses' order apart: the end bonus first, the tie is B's, not A's
    assert (raised != with_end_bonus(data[1], with_tie_bonus(data[2], data[3], 0.1), 0.3)).any()
    quiet = dict(log=lambda *a, **k: None)
    digests = [save_values(tmp_path / f"{k}.npz", net, dataclasses.asdict(config), {}) for k, net in enumerate([
        fit(dataclasses.replace(config, end_bonus=0.3, tie_bonus=0.1), data, held_out, **quiet),
        fit(config, (*data[:3], raised), held_out, **quiet),
        fit(dataclasses.replace(config, tie_bonus=0.1), data, held_out, **quiet)])]
    assert digests[0] == digests[1] != digests[2]
    with pytest.raises(ValueError, match="end_bonus must be a number from 0.0"):
        CandidateValueConfig(end_bonus=-0.1)


def test_the_stall_bonus_adds_to_the_end_bonus_from_the_stall_turn_on():
    from fifthave.train.candidate_values import end_bonuses, with_end_bonus
    from fifthave_env.engine.actions import CHOOSE_ACTION, NUM_ACTIONS
    from fifthave_env.engine.game import ACTION_B
    from fifthave_env.observation import OBS_SIZES, views
    # three A/B/C/D choices (A, B each) at turns 59, 60 and 200 of the labelled games' 300
    observations = np.zeros((3, OBS_SIZES[1]), np.float32)
    for o, turn in zip(observations, (59, 60, 200)):
        views(o)["progress"][0] = turn / 300
    owners = np.array([0, 0, 1, 1, 2, 2])
    features = np.zeros((6, NUM_ACTIONS), np.float32)
    features[np.arange(6), CHOOSE_ACTION + np.array([0, ACTION_B] * 3)] = 1.0
    config = CandidateValueConfig(end_bonus=0.05, stall_bonus=0.5, stall_turn=60)
    raised = with_end_bonus(features, np.zeros(6, np.float32), end_bonuses(config, observations, owners))
    assert raised.tolist() == pytest.approx([0, 0.05, 0, 0.55, 0, 0.55])  # B only, and more from turn 60
    assert end_bonuses(dataclasses.replace(config, stall_bonus=0.0), observations, owners) == 0.05
    for name, value, allowed in (("stall_bonus", -0.5, "a number from 0.0"), ("stall_turn", 0, "an int from 1 to 300"),
                                 ("stall_turn", 301, "an int from 1 to 300")):
        with pytest.raises(ValueError, match=f"{name} must be {allowed}"):
            CandidateValueConfig(**{name: value})


def test_a_stall_bonus_fit_is_the_fit_of_the_raised_labels(tmp_path):
    from fifthave.train.candidate_values import end_bonuses, with_end_bonus
    config = CandidateValueConfig(**dict(TINY, epochs=1, groups=["choose", "board"], stall_turn=4))
    rng = np.random.default_rng(0)
    held_out, data = collect(config, 1, rng), collect(config, 1, rng)
    late = dataclasses.replace(config, end_bonus=0.1, stall_bonus=0.3)
    bonuses = end_bonuses(late, data[0], data[2])
    assert set(np.unique(bonuses)) == {0.1, 0.4}  # the game has decisions both before and after turn 4
    quiet = dict(log=lambda *a, **k: None)
    digests = [save_values(tmp_path / f"{k}.npz", net, dataclasses.asdict(config), {}) for k, net in enumerate([
        fit(late, data, held_out, **quiet),
        fit(config, (*data[:3], with_end_bonus(data[1], data[3], bonuses)), held_out, **quiet),
        fit(dataclasses.replace(config, end_bonus=0.1), data, held_out, **quiet)])]
    assert digests[0] == digests[1] != digests[2]
