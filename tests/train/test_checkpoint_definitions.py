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


def handmade_checkpoint(path, steps=0, **extra):
    """A checkpoint ``read_meta`` accepts, built member by member (no training): sb3's members, the optimizer's,
    and the metadata ``save_checkpoint`` writes."""
    from fifthave.train.config import TrainConfig

    config = TrainConfig()
    meta = {"config": config.to_dict(), "versions": ckpt.versions(config), "num_timesteps": steps, **extra}
    with zipfile.ZipFile(path, "w") as z:
        for member in (*ckpt.SB3_MEMBERS, ckpt.OPTIMIZER_MEMBER):
            z.writestr(member, member.encode())
        z.writestr(ckpt.META_NAME, __import__("json").dumps(meta))
    return str(path)


def test_the_versions_record_names_what_a_run_depends_on():
    import sb3_contrib
    import stable_baselines3

    import fifthave_env
    from fifthave.train.config import TrainConfig

    for layout in (0, 1):
        assert ckpt.versions(TrainConfig(observation_layout=layout)) == {
            "fifthave": fifthave_env.__version__, "env_version": layout, "gym_env_id": f"FifthAvenue-v{layout}",
            "torch": torch.__version__, "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__}


def test_a_checkpoint_at_step_0_is_read_and_a_negative_step_count_refused_in_full(tmp_path):
    assert ckpt.read_meta(handmade_checkpoint(tmp_path / "zero.zip"))["num_timesteps"] == 0
    path = handmade_checkpoint(tmp_path / "negative.zip", steps=-1)
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.read_meta(path)
    assert str(error.value) == f"{path}: {ckpt.META_NAME}: num_timesteps must be an int >= 0, got -1"
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.validate_meta({"config": {}}, "x.zip")
    assert str(error.value) == (f"x.zip: {ckpt.META_NAME} lacks versions, num_timesteps "
                                "(it needs config, versions and num_timesteps)")


def test_an_exported_policy_keeps_the_policy_and_drops_what_only_a_resumed_run_needs(tmp_path):
    source = handmade_checkpoint(tmp_path / "ckpt_0000000000.zip", run_state={"games": []}, pool=["a.zip"])
    ckpt.export_policy(source, str(tmp_path / "policy.zip"))
    with zipfile.ZipFile(tmp_path / "policy.zip") as z:
        assert sorted(z.namelist()) == sorted((*ckpt.SB3_MEMBERS, ckpt.META_NAME))
        assert all(z.read(m) == m.encode() for m in ckpt.SB3_MEMBERS)
    meta = ckpt.read_meta(str(tmp_path / "policy.zip"))
    assert "run_state" not in meta and "pool" not in meta
    assert meta["exported_from"] == "ckpt_0000000000.zip"
    assert meta["num_timesteps"] == 0 and meta["versions"] == ckpt.read_meta(source)["versions"]


def test_a_temporary_older_than_the_limit_is_removed_at_the_time_given(tmp_path):
    temporary = tmp_path / ".ckpt.zip.tmp-1"  # PID 1 is alive: only its age can make it stale
    temporary.write_bytes(b"")
    written = os.path.getmtime(temporary)
    assert ckpt.remove_stale_temporaries(str(tmp_path), now=written + ckpt.STALE_SECONDS) == []
    assert ckpt.remove_stale_temporaries(str(tmp_path), now=written + ckpt.STALE_SECONDS + 1) == [str(temporary)]


def test_every_stale_temporary_is_removed_whatever_files_the_listing_gives_first(tmp_path, monkeypatch):
    # os.listdir's order is the file system's: an ordinary file listed before a temporary must not end the
    # cleanup (the listing is fixed here so that the order cannot make the test pass by luck)
    names = ["ckpt_0000000100.zip", ".ckpt_0000000200.zip.tmp-1", "run.json", ".run.json.tmp-1"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setattr(ckpt.os, "listdir", lambda directory: list(names))
    written = os.path.getmtime(tmp_path / names[1])
    removed = ckpt.remove_stale_temporaries(str(tmp_path), now=written + ckpt.STALE_SECONDS + 1)
    assert removed == [str(tmp_path / names[1]), str(tmp_path / names[3])]
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["ckpt_0000000100.zip", "run.json"])


def test_a_checkpoint_without_run_state_exports_too(tmp_path):
    ckpt.export_policy(handmade_checkpoint(tmp_path / "ckpt.zip"), str(tmp_path / "policy.zip"))
    assert ckpt.read_meta(str(tmp_path / "policy.zip"))["exported_from"] == "ckpt.zip"


def test_files_that_are_no_zip_and_weights_that_are_not_finite_are_refused_in_full(tmp_path):
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.read_meta(str(garbage))
    assert str(error.value) == (f"{garbage} is not a fifthave checkpoint (a MaskablePPO zip with {ckpt.META_NAME}): "
                                "File is not a zip file")
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.read_state_dict(str(garbage), ckpt.POLICY_MEMBER)
    assert str(error.value) == f"cannot read {ckpt.POLICY_MEMBER} of the checkpoint {garbage}: File is not a zip file"
    module = torch.nn.Linear(2, 1)
    path = archive(tmp_path / "weights.zip", ckpt.POLICY_MEMBER,
                   {"weight": torch.full((1, 2), float("nan")), "bias": torch.tensor([float("inf")])})
    with pytest.raises(ckpt.CheckpointError) as error:
        ckpt.load_module_state(module, path)
    assert str(error.value) == f"{path}: {ckpt.POLICY_MEMBER} must hold finite float tensors; not so: weight, bias"
    assert module.weight.isfinite().all()  # nothing loaded
