"""The target_kl early stop, as sb3-contrib's MaskablePPO.train does it: in each minibatch the
approximate KL ``mean((ratio - 1) - log ratio)`` is computed before the gradient step, and
training stops (that minibatch not applied, no further epoch) as soon as it exceeds
``1.5 * target_kl``. The KLs of the minibatches are read from sb3-contrib's own update on the
same rollout and minibatch order; target_kl is then set just above and just below
max(KL) / 1.5, where a different factor or comparison would stop elsewhere."""

import numpy as np
import pytest
import torch
from stable_baselines3.common.logger import configure

from test_ppo import assert_same_update, fill_rollout, make_models, train_both

SEED = 7


def minibatch_kls():
    """sb3-contrib's approximate KL of each minibatch of an update without early stop."""
    _, theirs = make_models(learning_rate=1e-2)
    fill_rollout(theirs)
    kls, batches = [], []
    buffer_get, evaluate = theirs.rollout_buffer.get, theirs.policy.evaluate_actions

    def get(batch_size=None):
        for batch in buffer_get(batch_size):
            batches.append(batch)
            yield batch

    def evaluate_actions(*args, **kwargs):
        values, log_prob, entropy = evaluate(*args, **kwargs)
        log_ratio = (log_prob - batches[-1].old_log_prob).detach()
        kls.append(float(torch.mean((torch.exp(log_ratio) - 1) - log_ratio)))
        return values, log_prob, entropy

    theirs.rollout_buffer.get = get
    theirs.policy.evaluate_actions = evaluate_actions
    theirs.set_logger(configure(None, []))
    theirs._current_progress_remaining = 1.0
    np.random.seed(SEED)
    theirs.train()
    return kls


@pytest.fixture(scope="module")
def kls():
    values = minibatch_kls()
    assert len(values) == 6 and values[0] == pytest.approx(0, abs=1e-7)  # 96 samples, 32 a batch, 2 epochs
    assert max(values) > 1e-4
    return values


def test_no_stop_while_the_kl_stays_below_one_and_a_half_target_kl(kls):
    target = max(kls) / 1.5 * 1.02  # every KL above target_kl somewhere, none above 1.5 target_kl
    ours, theirs = make_models(learning_rate=1e-2, target_kl=target)
    logs = train_both(ours, theirs, seed=SEED)
    assert theirs._n_updates == 2  # the reference ran both epochs
    assert_same_update(ours, theirs, logs)


def test_stop_at_the_first_minibatch_above_one_and_a_half_target_kl(kls):
    target = max(kls) / 1.5 * 0.98
    first = next(i for i, kl in enumerate(kls) if kl > 1.5 * target)
    ours, theirs = make_models(learning_rate=1e-2, target_kl=target)
    logs = train_both(ours, theirs, seed=SEED)
    assert theirs._n_updates == first // 3 + 1  # stopped in the epoch of that minibatch
    assert_same_update(ours, theirs, logs)


def test_the_early_stop_is_reported_as_sb3_contrib_reports_it(kls, capsys):
    # with verbose >= 1 MaskablePPO.train prints the epoch and the KL it stopped at
    ours, theirs = make_models(learning_rate=1e-2, target_kl=max(kls) / 1.5 * 0.98)
    ours.verbose = theirs.verbose = 1
    capsys.readouterr()
    train_both(ours, theirs, seed=SEED)
    out = capsys.readouterr().out
    assert out.startswith("Early stopping at step ") and " due to reaching max kl: " in out and out.count("\n") == 2
    assert out[:len(out) // 2] == out[len(out) // 2:]  # ours, then sb3-contrib's: the same line
