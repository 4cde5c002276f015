"""train/ppo.py's small pieces against what they promise, without training: the fused Adam switch, the
masked draw (sb3-contrib's MaskableCategorical: illegal logits at -1e8, each legal action with its softmax
probability) and when the fast update applies. Written against mutmut's survivors of issue 38
(docs/mutation.md)."""

import time
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402
from stable_baselines3.common.buffers import RolloutBuffer  # noqa: E402

from fifthave.train.ppo import PipelinedMaskablePPO  # noqa: E402


def net():
    return torch.nn.Linear(3, 2)


def test_cpu_adam_is_switched_to_the_fused_step_and_nothing_else_is():
    adam = torch.optim.Adam(net().parameters(), foreach=True)
    PipelinedMaskablePPO._use_fused_adam(SimpleNamespace(policy=SimpleNamespace(optimizer=adam)))
    assert [(g["fused"], g["foreach"]) for g in adam.param_groups] == [(True, False)]
    differentiable = torch.optim.Adam(net().parameters(), differentiable=True)
    PipelinedMaskablePPO._use_fused_adam(SimpleNamespace(policy=SimpleNamespace(optimizer=differentiable)))
    assert not differentiable.param_groups[0]["fused"]
    adamw = torch.optim.AdamW(net().parameters())  # not Adam itself: left as it is
    PipelinedMaskablePPO._use_fused_adam(SimpleNamespace(policy=SimpleNamespace(optimizer=adamw)))
    assert not adamw.param_groups[0]["fused"]


def test_the_draw_gives_each_legal_action_its_softmax_probability_and_its_log_probability():
    torch.manual_seed(0)
    owner = SimpleNamespace(timing={"act": 100.0})  # seconds so far: the draw adds its own
    # one action per row first: a draw of other shapes fails here at once, not after a 20 000 x 20 000 tensor
    one = PipelinedMaskablePPO._draw(owner, torch.zeros(3, 4), np.eye(4, dtype=bool)[[3, 0, 3]])
    assert list(one[0]) == [3, 0, 3] and np.allclose(one[1].numpy(), 0.0)
    act_before = owner.timing["act"]
    assert act_before > 100.0
    started = time.perf_counter()
    logits = torch.tensor([[5.0, 0.0, np.log(3.0), 9.0]]).repeat(20_000, 1)
    masks = np.tile([False, True, True, False], (20_000, 1))
    actions, log_probs = PipelinedMaskablePPO._draw(owner, logits, masks)
    assert set(actions) == {1, 2}  # never an illegal one, however large its logit
    assert np.mean(actions == 2) == pytest.approx(0.75, abs=0.01)
    expected = {1: np.log(0.25), 2: np.log(0.75)}
    assert np.allclose(log_probs.numpy(), [expected[a] for a in actions], atol=1e-5)
    assert 0 < owner.timing["act"] - act_before < time.perf_counter() - started


def test_the_fast_update_applies_only_to_sb3_contribs_masked_discrete_policy():
    class OwnEvaluation(MaskableActorCriticPolicy):
        def evaluate_actions(self, *args, **kwargs):
            return super().evaluate_actions(*args, **kwargs)

    def applies(policy_class, action_space, buffer_class):
        model = SimpleNamespace(policy=policy_class.__new__(policy_class), action_space=action_space,
                                rollout_buffer=buffer_class.__new__(buffer_class))
        return PipelinedMaskablePPO._fast_update_applies(model)

    discrete = spaces.Discrete(4)
    assert applies(MaskableActorCriticPolicy, discrete, MaskableRolloutBuffer)
    assert not applies(OwnEvaluation, discrete, MaskableRolloutBuffer)
    assert not applies(MaskableActorCriticPolicy, spaces.MultiDiscrete([2, 2]), MaskableRolloutBuffer)
    assert not applies(MaskableActorCriticPolicy, discrete, RolloutBuffer)


def test_an_update_restores_the_thread_count_and_adds_its_time():
    threads = torch.get_num_threads()
    model = SimpleNamespace(_threads_for_update=lambda: 1, _use_fused_adam=lambda: None,
                            _fast_update_applies=lambda: True, _train_fast=lambda: time.sleep(0.02),
                            _update_seconds={}, timing={"update": 5.0})
    PipelinedMaskablePPO.train(model)
    assert torch.get_num_threads() == threads
    assert 0.02 <= model._update_seconds[1] < 1.0
    assert model.timing["update"] == 5.0 + model._update_seconds[1]
