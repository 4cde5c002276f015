"""Checkpoint reading at its edges, without training: optimizer states that do not fit (each refusal in
full), missing members, the generators put back when a restore fails, where a skipped checkpoint's
warning points. Written against mutmut's survivors of issue 38 (docs/mutation.md)."""

import io
import os
import random
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from fifthave.train import checkpoint as ckpt  # noqa: E402


def optimizer():
    net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    return torch.optim.Adam(net.parameters())


def archive(path, member, data):
    buffer = io.BytesIO()
    torch.save(data, buffer)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member, buffer.getvalue())
    return str(path)


def refusal(tmp_path, saved):
    path = archive(tmp_path / "ckpt.zip", ckpt.OPTIMIZER_MEMBER, saved)
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.load_optimizer_state(optimizer(), path)
    return str(error.value).removeprefix(f"{path}: {ckpt.OPTIMIZER_MEMBER}: ")


def test_optimizer_states_that_do_not_fit_are_refused_in_full(tmp_path):
    fresh = optimizer().state_dict()["param_groups"]
    groups = "its parameter groups do not match the network its config describes"
    assert refusal(tmp_path, {"state": {}, "param_groups": "x"}) == groups
    assert refusal(tmp_path, {"state": {}, "param_groups": fresh + fresh}) == groups
    assert refusal(tmp_path, {"state": {}, "param_groups": [dict(fresh[0], params=[0, 1, 2])]}) == groups
    assert refusal(tmp_path, {"state": {}, "param_groups": ["x"]}) == groups
    numbers = "state must map parameter numbers 0 to 3 to Adam's state"
    assert refusal(tmp_path, {"state": [], "param_groups": fresh}) == numbers
    assert refusal(tmp_path, {"state": {7: {}}, "param_groups": fresh}) == numbers
    entry = ("the state of parameter 0 must hold step (a scalar), exp_avg and exp_avg_sq (finite float tensors of "
             "shape (2, 3))")
    assert refusal(tmp_path, {"state": {0: ["step", "exp_avg", "exp_avg_sq"]}, "param_groups": fresh}) == entry
    good = {"step": torch.tensor(1.0), "exp_avg": torch.zeros(2, 3), "exp_avg_sq": torch.zeros(2, 3)}
    opt = optimizer()
    ckpt.load_optimizer_state(opt, archive(tmp_path / "ok.zip", ckpt.OPTIMIZER_MEMBER,
                                           {"state": {0: good}, "param_groups": fresh}))
    assert opt.state_dict()["state"][0]["exp_avg"].shape == (2, 3)


def test_a_missing_member_is_named_with_a_hint_for_the_optimizer(tmp_path):
    path = archive(tmp_path / "policy.zip", "other.pth", {})
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.read_state_dict(path, ckpt.OPTIMIZER_MEMBER)
    assert str(error.value) == (f"{path} has no {ckpt.OPTIMIZER_MEMBER} (a published policy has no optimizer state; "
                                "use the run's full checkpoint)")
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.read_state_dict(path, ckpt.POLICY_MEMBER)
    assert str(error.value) == f"{path} has no {ckpt.POLICY_MEMBER}"


def test_a_failed_restore_leaves_every_generator_as_it_was():
    states = ckpt.generator_states()
    np.random.seed(11)
    torch.manual_seed(11)
    before = (np.random.get_state()[1].copy(), torch.get_rng_state().clone(), random.getstate())
    damaged = dict(states, python=[3, [1, 2], None])  # numpy's and torch's are set before Python's fails
    with pytest.raises(ValueError, match="the checkpoint's generator states are damaged"):
        ckpt.restore_generator_states(damaged)
    assert (np.random.get_state()[1] == before[0]).all() and torch.equal(torch.get_rng_state(), before[1])
    assert random.getstate() == before[2]
    ckpt.restore_generator_states(states)
    assert ckpt.generator_states() == states


def test_a_skipped_checkpoints_warning_points_at_the_caller(tmp_path):
    if "MUTANT_UNDER_TEST" in os.environ:
        pytest.skip("mutmut's trampoline is one more frame between the caller and the warning")
    os.makedirs(tmp_path / "checkpoints")
    (tmp_path / "checkpoints" / "ckpt_0000000100.zip").write_bytes(b"not a zip")
    with pytest.warns(UserWarning, match="skipping checkpoint") as record:
        assert ckpt.newest_intact_checkpoint(str(tmp_path)) == (None, None)
    assert record[0].filename == __file__


class _RunsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return open, (self.marker, "w")  # unpickling would create the file


def test_a_member_whose_pickle_would_run_code_is_refused_without_running_it(tmp_path):
    marker = str(tmp_path / "ran")
    path = tmp_path / "tampered.zip"
    buffer = io.BytesIO()
    torch.save({"weight": _RunsCode(marker)}, buffer)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(ckpt.POLICY_MEMBER, buffer.getvalue())
    with pytest.raises(ckpt.CheckpointError, match="is not a readable torch state dict"):
        ckpt.read_state_dict(str(path), ckpt.POLICY_MEMBER)
    assert not os.path.exists(marker)
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.read_state_dict(archive(tmp_path / "list.zip", ckpt.POLICY_MEMBER, [1]), ckpt.POLICY_MEMBER)
    assert str(error.value) == f"{tmp_path / 'list.zip'}: {ckpt.POLICY_MEMBER} must hold a state dict, got list"


def test_a_member_that_fails_its_crc_is_named_before_anything_is_read(tmp_path):
    path = tmp_path / "ckpt.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("data", b"ABCDEFGHIJKLMNOP" * 4)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"ABCDEFGH")] ^= 1  # one bit of the stored data: the CRC no longer matches
    path.write_bytes(bytes(raw))
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.read_meta(str(path))
    assert str(error.value) == f"{path}: member 'data' is corrupt (CRC mismatch)"
