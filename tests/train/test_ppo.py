"""PipelinedMaskablePPO's own update computes what sb3-contrib's MaskablePPO.train computes: on the same
rollout and the same global numpy seed (the minibatch order), the same weights, optimizer state and logs."""

import copy

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import DummyVecEnv

from fifthave_env.gym_env import FifthAvenueEnv
from fifthave.train.hints import AdvisedPolicy
from fifthave.train.policy_agent import ActorNet
from fifthave.train.policy_forward import RolloutForward, mlp_first_layers, policy_latents
from fifthave.train import ppo
from fifthave.train.ppo import PipelinedMaskablePPO

N_ENVS, N_STEPS = 2, 48


def make_models(policy="MlpPolicy", **settings):
    env = DummyVecEnv([lambda: FifthAvenueEnv(num_players=4)] * N_ENVS)
    kwargs = dict(n_steps=N_STEPS, batch_size=32, n_epochs=2, seed=3, device="cpu",
                  policy_kwargs={"net_arch": {"pi": [32, 16], "vf": [24]}}, **settings)
    if policy is AdvisedPolicy:
        # Advice features: the last 147 observation entries stand in for them (only the shapes matter here).
        kwargs["policy_kwargs"]["advice_size"] = 147
    ours = PipelinedMaskablePPO(policy, env, **kwargs)
    theirs = MaskablePPO(policy, env, **kwargs)
    theirs.policy.load_state_dict(ours.policy.state_dict())
    return ours, theirs


def fill_rollout(model, seed=0):
    """A rollout of random legal play in real games, with the policy's own values and log-probabilities."""
    rng = np.random.default_rng(seed)
    envs = [FifthAvenueEnv(num_players=4) for _ in range(N_ENVS)]
    observations = [env.reset(seed=seed + i)[0] for i, env in enumerate(envs)]
    starts = np.ones(N_ENVS, dtype=bool)
    buffer = model.rollout_buffer
    buffer.reset()
    for _ in range(N_STEPS):
        obs = np.array(observations)
        masks = np.array([env.action_masks() for env in envs])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        with torch.no_grad():
            values, log_probs, _ = model.policy.evaluate_actions(torch.as_tensor(obs), torch.as_tensor(actions),
                                                                 action_masks=masks)
        rewards = np.zeros(N_ENVS, dtype=np.float32)
        dones = np.zeros(N_ENVS, dtype=bool)
        for i, env in enumerate(envs):
            observations[i], rewards[i], terminated, truncated, _ = env.step(actions[i])
            if terminated or truncated:
                dones[i] = True
                observations[i] = env.reset()[0]
        rewards += rng.normal(0, 0.5, N_ENVS).astype(np.float32)  # a signal for the value loss
        buffer.add(obs, actions.reshape(-1, 1), rewards, starts, values.flatten(), log_probs, action_masks=masks)
        starts = dones
    with torch.no_grad():
        last_values = model.policy.predict_values(torch.as_tensor(np.array(observations)))
    buffer.compute_returns_and_advantage(last_values=last_values, dones=starts)


def train_both(ours, theirs, seed=7, fill=True):
    if fill:
        fill_rollout(ours)
    theirs.rollout_buffer = copy.deepcopy(ours.rollout_buffer)
    logs = []
    for model in (ours, theirs):
        model.set_logger(configure(None, []))
        model._current_progress_remaining = 1.0
        model.policy.set_training_mode(False)  # as a rollout leaves it: the update sets training mode
        np.random.seed(seed)
        model.train()
        logs.append(dict(model.logger.name_to_value))
    return logs


def assert_same_update(ours, theirs, logs):
    for (name, a), (_, b) in zip(ours.policy.state_dict().items(), theirs.policy.state_dict().items()):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5, msg=name)
    assert ours._n_updates == theirs._n_updates
    assert ours.policy.training == theirs.policy.training
    state_ours = ours.policy.optimizer.state_dict()["state"]
    state_theirs = theirs.policy.optimizer.state_dict()["state"]
    for k in state_theirs:
        torch.testing.assert_close(state_ours[k]["exp_avg"], state_theirs[k]["exp_avg"], rtol=1e-3, atol=1e-6)
    assert logs[0].keys() == logs[1].keys()
    assert ours.logger.name_to_excluded == theirs.logger.name_to_excluded  # the output formats each key skips
    for key, value in logs[1].items():
        assert logs[0][key] == pytest.approx(value, rel=1e-3, abs=1e-5), key


@pytest.mark.parametrize("settings", [{}, {"clip_range_vf": 0.1, "ent_coef": 0.05, "normalize_advantage": False},
                                      {"clip_range": lambda progress: 0.3 * progress,  # schedules, read at the
                                       "clip_range_vf": lambda progress: 0.2 * progress}])  # progress remaining
def test_our_update_gives_the_weights_of_maskableppo_train(settings):
    ours, theirs = make_models(**settings)
    before = [p.detach().clone() for p in ours.policy.parameters()]
    logs = train_both(ours, theirs)
    assert_same_update(ours, theirs, logs)
    assert all(not torch.equal(a, b) for a, b in zip(before, ours.policy.parameters()))  # the test can fail
    # A second rollout and update on top of the first (optimizer state carried over).
    logs = train_both(ours, theirs, seed=8)
    assert_same_update(ours, theirs, logs)


def test_target_kl_stops_early_at_the_same_minibatch():
    ours, theirs = make_models(target_kl=1e-6, learning_rate=1e-2)
    logs = train_both(ours, theirs)
    assert_same_update(ours, theirs, logs)
    assert ours._n_updates == 1  # stopped in the first epoch


def test_nearly_equal_advantages_are_normalized_with_the_epsilon_added_to_their_std():
    # sb3: (advantages - mean) / (std + 1e-8); advantages a few 1e-8 apart show the epsilon's sign and size
    ours, theirs = make_models()
    fill_rollout(ours)
    buffer = ours.rollout_buffer
    buffer.advantages = np.random.default_rng(0).normal(0, 1e-8, buffer.advantages.shape).astype(np.float32)
    logs = train_both(ours, theirs, fill=False)
    assert_same_update(ours, theirs, logs)


def test_without_a_batch_size_each_epoch_is_one_minibatch_of_the_whole_rollout():
    # sb3's RolloutBuffer.get(None): the whole rollout at once (a batch_size set to None after construction)
    ours, theirs = make_models()
    ours.batch_size = theirs.batch_size = None
    logs = train_both(ours, theirs)
    assert_same_update(ours, theirs, logs)
    assert ours._n_updates == 2


def test_a_policy_with_its_own_extractor_uses_the_generic_forward():
    ours, theirs = make_models(AdvisedPolicy)
    assert ours._fast_update_applies() and mlp_first_layers(ours.policy) is None
    logs = train_both(ours, theirs)
    assert_same_update(ours, theirs, logs)


def test_the_mlp_first_layers_apply_to_the_mlp_policy(monkeypatch):
    ours, theirs = make_models()
    assert mlp_first_layers(ours.policy) is not None

    def generic_forward(*args):
        raise AssertionError("the update of an MLP policy took the generic forward, not its first layers' columns")

    monkeypatch.setattr(ppo, "policy_latents", generic_forward)
    logs = train_both(ours, theirs)
    assert_same_update(ours, theirs, logs)


def test_rollout_draws_are_legal_and_follow_the_masked_softmax(monkeypatch):
    model, _ = make_models()
    logits = torch.tensor([[0.0, 1.0, 2.0, 3.0, -1.0], [5.0, 0.0, 0.0, 0.0, 0.0]]).repeat(20_000, 1)
    masks = np.array([[True, False, True, True, False], [False, True, True, False, True]]).repeat(20_000, 0)
    masks = masks.reshape(2, 20_000, 5).transpose(1, 0, 2).reshape(-1, 5)
    torch.manual_seed(0)
    actions, log_probs = model._draw(logits, masks)
    assert masks[np.arange(len(masks)), actions].all()
    expected = torch.log_softmax(torch.where(torch.as_tensor(masks), logits, torch.tensor(-1e8)), -1)
    torch.testing.assert_close(log_probs, expected.gather(1, torch.as_tensor(actions)[:, None]).flatten())
    for row in (0, 1):
        counts = np.bincount(actions[row::2], minlength=5) / 20_000
        np.testing.assert_allclose(counts, expected[row].exp().numpy(), atol=0.01)
    # The extreme uniform draws (torch.rand gives multiples of 2**-24 in [0, 1)): the first and the last legal
    # action, never an illegal one beside them.
    for draw, expected_actions in ((0.0, [0, 1]), (1 - 2 ** -24, [3, 4])):
        monkeypatch.setattr(torch, "rand", lambda *shape: torch.full(shape, draw))
        actions, _ = model._draw(logits[:2] * 0, masks[:2])
        assert actions.tolist() == expected_actions


@pytest.mark.parametrize("policy, activation, in_numpy", [("MlpPolicy", torch.nn.Tanh, True),
                                                         (AdvisedPolicy, torch.nn.Tanh, True),
                                                         ("MlpPolicy", torch.nn.ELU, False)])
def test_the_rollout_forward_pass_gives_the_policy_outputs(policy, activation, in_numpy):
    model, _ = make_models(policy)
    model.policy.mlp_extractor.policy_net[1] = activation()
    obs = np.array([FifthAvenueEnv(num_players=4).reset(seed=s)[0] for s in range(8)])
    forward = RolloutForward(model.policy)
    assert (forward.actor is not None) == in_numpy

    def expected():
        with torch.no_grad():
            latent_pi, latent_vf = policy_latents(model.policy, torch.as_tensor(obs))
            return model.policy.action_net(latent_pi), model.policy.value_net(latent_vf).flatten()

    for got, want in zip(forward(obs), expected()):
        torch.testing.assert_close(torch.from_numpy(got), want)
    with torch.no_grad():  # new weights: the same after a refresh
        for parameter in model.policy.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    forward.refresh()
    for got, want in zip(forward(obs), expected()):
        torch.testing.assert_close(torch.from_numpy(got), want)


def test_one_and_two_update_threads_give_the_same_weights():
    """The update picks its thread count by speed (``_threads_for_update``); runs reproduce because the weights do
    not depend on it."""
    weights = []
    for threads in (1, 2):
        model, _ = make_models()
        model.batch_size = N_ENVS * N_STEPS
        torch.manual_seed(0)  # layers wide enough for two threads to split the products
        model.policy = type(model.policy)(model.observation_space, model.action_space, lambda _: 3e-4,
                                          net_arch={"pi": [256, 256], "vf": [256, 256]})
        fill_rollout(model)
        model.set_logger(configure(None, []))
        model._current_progress_remaining = 1.0
        np.random.seed(7)
        saved = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            model._train_fast()
        finally:
            torch.set_num_threads(saved)
        weights.append(model.policy.state_dict())
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_the_update_uses_the_faster_thread_count_and_tries_the_other_again():
    model, _ = make_models()
    model.update_threads = 2
    chosen = []
    for seconds in {1: 1.0, 2: 0.5}.values():
        chosen.append(model._threads_for_update())
        model._update_seconds[chosen[-1]] = seconds
    assert chosen == [1, 2]
    chosen = [model._threads_for_update() for _ in range(2 * model.RETRY_EVERY + 2)]
    assert chosen == ([2] * model.RETRY_EVERY + [1]) * 2
    model.update_threads = 1
    assert {model._threads_for_update() for _ in range(20)} == {1}


def seat_observations(count, seed):
    """``count`` consecutive observations of the learner's seat in one game (random legal moves)."""
    env = FifthAvenueEnv(num_players=4)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    observations = [obs]
    while len(observations) < count:
        obs, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(env.action_masks())))
        assert not (terminated or truncated)
        observations.append(obs)
    return np.array(observations)


def test_tracked_logits_read_only_the_weights_of_the_values_that_changed():
    model, _ = make_models()
    observations = seat_observations(40, seed=3)
    expected = ActorNet(model.policy).logits(observations)
    net, memory = ActorNet(model.policy), [None, None]
    for row, obs in enumerate(observations):
        np.testing.assert_allclose(net.logits_tracked(obs[None], [memory])[0], expected[row], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(memory[1], observations[-1] @ net.layers[0][0], rtol=1e-5, atol=1e-5)

    # Poison the rows of the first weight matrix a call must not read: its logits stay the same, the full
    # product (what evaluation agents use) reads them. The first call reads the nonzero entries' rows ...
    first, second = observations[:2]
    net, memory = ActorNet(model.policy), [None, None]
    net.layers[0][0][first == 0] = np.nan
    np.testing.assert_allclose(net.logits_tracked(first[None], [memory])[0], expected[0], rtol=1e-5, atol=1e-5)
    assert np.isnan(net.logits(first)).all()
    # ... a later one only those of the values that changed since the seat's last call.
    net = ActorNet(model.policy)
    net.logits_tracked(first[None], [memory])
    net.layers[0][0][second == first] = np.nan
    assert 0 < (second != first).sum() < 100
    np.testing.assert_allclose(net.logits_tracked(second[None], [memory])[0], expected[1], rtol=1e-5, atol=1e-5)
    assert np.isnan(net.logits(second)).all()


def test_tracked_logits_of_a_seat_do_not_depend_on_the_batch():
    """The first layer of a seat follows its own observations only (a resumed run replays them one at a time)."""
    model, _ = make_models()
    net = ActorNet(model.policy)
    games = [seat_observations(30, seed) for seed in (4, 5)]
    alone = [[None, None], [None, None]]
    together = [[None, None], [None, None]]
    for step in range(30):
        for g in (0, 1):
            net.logits_tracked(games[g][step][None], [alone[g]])
        net.logits_tracked(np.stack([games[0][step], games[1][step]]), together)
        assert all(np.array_equal(a[1], b[1]) for a, b in zip(alone, together))


def test_the_update_leaves_the_buffer_flattened_and_ready_as_sb3s_get_does():
    # RolloutBuffer.get flattens the arrays once and marks them ready; our update flattens them itself and
    # must mark them the same way, or a second read (sb3's get, another update) flattens them again
    ours, _ = make_models()
    fill_rollout(ours)
    reference = copy.deepcopy(ours.rollout_buffer)
    first = ours._rollout_tensors()
    assert ours.rollout_buffer.generator_ready
    again = ours._rollout_tensors()
    assert all(torch.equal(first[name], again[name]) for name in first)
    next(reference.get(8))  # sb3's flattening
    for name in ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks"):
        assert np.array_equal(getattr(ours.rollout_buffer, name), getattr(reference, name)), name
