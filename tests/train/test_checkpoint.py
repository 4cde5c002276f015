"""Checkpoints are untrusted input: damaged files are named and skipped on resume, bad metadata is refused with
the file and the field, and temporaries left by a killed writer are cleaned up without touching a live one's."""

import dataclasses
import json
import os
import subprocess
import time
import zipfile

import pytest
from test_train import tiny_config

from fifthave.train import checkpoint as ckpt
from fifthave.train.evaluate import how_to_use
from fifthave.train.manifest import write_file_manifest
from fifthave.train.train import train


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A run directory with two intact checkpoints (512 and 1024 steps) of a tiny training run."""
    run_dir = tmp_path_factory.mktemp("run")
    config = tiny_config(run_dir, eval_every=0)
    train(config, show_progress=False)
    assert all(os.path.exists(ckpt.checkpoint_path(run_dir, steps)) for steps in (512, 1024))
    return run_dir, config


def copy_run(saved, tmp_path):
    run_dir, config = saved
    target = tmp_path / "run"
    os.makedirs(target / "checkpoints")
    for name in os.listdir(run_dir / "checkpoints"):
        (target / "checkpoints" / name).write_bytes((run_dir / "checkpoints" / name).read_bytes())
    return target, tiny_config(target, eval_every=0)


def truncate(path):
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])


def flip_a_byte_of_the_policy(path):
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("policy.pth")
    data = bytearray(open(path, "rb").read())
    data[info.header_offset + 30 + len(info.filename) + info.compress_size // 2] ^= 0xFF  # inside its data
    open(path, "wb").write(bytes(data))


def rewrite_meta(path, text):
    """The checkpoint at ``path`` with ``fifthave.json`` replaced by ``text``."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist() if name != ckpt.META_NAME}
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        archive.writestr(ckpt.META_NAME, text)


@pytest.mark.parametrize("damage", [truncate, flip_a_byte_of_the_policy])
def test_resume_falls_back_to_the_newest_intact_checkpoint_and_names_the_skipped_one(saved, tmp_path, damage):
    run_dir, config = copy_run(saved, tmp_path)
    newest = ckpt.checkpoint_path(run_dir, 1024)
    damage(newest)
    with pytest.warns(UserWarning, match=f"skipping checkpoint {newest}: .*"):
        path, meta = ckpt.newest_intact_checkpoint(run_dir)
    assert path == ckpt.checkpoint_path(run_dir, 512) and meta["num_timesteps"] == 512
    with pytest.warns(UserWarning, match="skipping checkpoint .*ckpt_0000001024.zip"):
        result = train(config, resume=True, show_progress=False)
    assert result.steps == 512  # from 512 to the budget of 1024
    assert ckpt.read_meta(newest)["num_timesteps"] == 1024  # the damaged file was replaced by an intact one


def test_resume_with_no_intact_checkpoint_is_refused(saved, tmp_path):
    run_dir, config = copy_run(saved, tmp_path)
    for steps in (512, 1024):
        truncate(ckpt.checkpoint_path(run_dir, steps))
    with pytest.warns(UserWarning), pytest.raises(ckpt.CheckpointError, match="no checkpoint in .* is intact"):
        train(config, resume=True, show_progress=False)


def meta_of(saved):
    return ckpt.read_meta(ckpt.checkpoint_path(saved[0], 512))


@pytest.mark.parametrize("change,message", [
    (lambda meta: "{not json", "fifthave.json is not valid JSON: Expecting property name"),
    (lambda meta: [meta], "fifthave.json must hold a JSON object, got list"),
    (lambda meta: {k: v for k, v in meta.items() if k != "config"}, "fifthave.json lacks config"),
    (lambda meta: {**meta, "num_timesteps": -5}, "num_timesteps must be an int >= 0, got -5"),
    (lambda meta: {**meta, "num_timesteps": "512"}, "num_timesteps must be an int >= 0, got '512'"),
    (lambda meta: {**meta, "num_timesteps": True}, "num_timesteps must be an int >= 0, got True"),
    (lambda meta: {**meta, "versions": ["1"]}, "versions must be an object of versions \\(strings or ints\\)"),
    (lambda meta: {**meta, "config": "runs/x"}, "config must be an object \\(a TrainConfig\\)"),
    (lambda meta: {**meta, "config": {**meta["config"], "learning_rat": 1}},
     "config is not a valid TrainConfig: unknown config keys \\['learning_rat'\\]"),
    (lambda meta: {**meta, "config": {**meta["config"], "opponents": ["wizard"]}},
     "config is not a valid TrainConfig: opponents must be a non-empty list of agent names"),
    (lambda meta: {**meta, "config": {**meta["config"], "num_players": 7}},
     "config is not a valid TrainConfig: num_players must be one of 2, 3, 4, got 7"),
    (lambda meta: {**meta, "config": {**meta["config"], "batch_size": 0}},
     "config is not a valid TrainConfig: batch_size must be an int >= 2, got 0"),
    (lambda meta: {**meta, "config": {**meta["config"], "selfplay": 5}},
     "config is not a valid TrainConfig: selfplay must be None or an object"),
    (lambda meta: {**meta, "pool": "pool/a.zip"}, "pool must be a list of checkpoint paths"),
    (lambda meta: {**meta, "pool": [3]}, "pool must be a list of checkpoint paths"),
])
def test_bad_metadata_is_refused_naming_the_file_and_the_field(saved, tmp_path, change, message):
    path = str(tmp_path / "ckpt_0000000512.zip")
    with open(path, "wb") as f:
        f.write(open(ckpt.checkpoint_path(saved[0], 512), "rb").read())
    changed = change(meta_of(saved))
    rewrite_meta(path, changed if isinstance(changed, str) else json.dumps(changed))
    with pytest.raises(ckpt.CheckpointError, match=f"{path}: .*{message}"):
        ckpt.read_meta(path)


def test_a_zip_without_the_policy_is_not_a_checkpoint(tmp_path):
    path = str(tmp_path / "other.zip")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(ckpt.META_NAME, "{}")
    with pytest.raises(ckpt.CheckpointError, match=f"{path} is not a fifthave checkpoint .*missing data, policy.pth"):
        ckpt.read_meta(path)


def finished_pid():
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_temporaries_of_dead_or_old_writers_are_removed_and_a_live_fresh_one_is_kept(tmp_path):
    def temporary(pid, age=0.0):
        path = tmp_path / f".ckpt_0000000512.zip.tmp-{pid}"
        path.write_bytes(b"half a checkpoint")
        os.utime(path, (time.time() - age, time.time() - age))
        return str(path)
    dead = temporary(finished_pid())
    own = temporary(os.getpid())  # an earlier process with this PID left it
    live = temporary(os.getppid())  # a writer at work
    old = str(tmp_path / f".ckpt_0000001024.zip.tmp-{os.getppid()}")
    open(old, "wb").write(b"x")
    os.utime(old, (time.time() - 2 * ckpt.STALE_SECONDS,) * 2)  # a live PID, but reused: no write lasts that long
    other = tmp_path / "notes.tmp-1"
    other.write_text("not ours")
    assert sorted(ckpt.remove_stale_temporaries(str(tmp_path))) == sorted([dead, own, old])
    assert sorted(os.listdir(tmp_path)) == sorted([os.path.basename(live), "notes.tmp-1"])
    assert ckpt.remove_stale_temporaries(str(tmp_path / "missing")) == []


def test_a_run_or_resume_starts_by_removing_stale_temporaries(saved, tmp_path):
    run_dir, config = copy_run(saved, tmp_path)
    os.makedirs(run_dir / "pool")
    left = [run_dir / "checkpoints" / f".ckpt_0000001536.zip.tmp-{finished_pid()}",
            run_dir / "pool" / f".snapshot_0000000512.zip.tmp-{finished_pid()}"]
    for path in left:
        path.write_bytes(b"killed mid-write")
    train(config, resume=True, show_progress=False)  # nothing left to train: the budget is reached
    assert not any(path.exists() for path in left)


def test_the_train_command_ends_naming_the_checkpoint_and_how_to_use_it_and_refuses_a_second_start_cleanly(
        tmp_path, capsys):
    from fifthave.train.run import main

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(tiny_config(tmp_path / "run", eval_every=0, checkpoint_every=0,
                                             eval_deterministic=True).to_dict()))  # a flat config: still runs
    assert main([str(config), "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    checkpoint = ckpt.checkpoint_path(str(tmp_path / "run"), 1024)
    agent_file = checkpoint.removesuffix(".zip") + ".npz"  # written beside it: what the commands play
    assert f"checkpoint: {checkpoint}" in printed and os.path.isfile(agent_file)
    # 2 players: one opponent, the policy, played as the run's evaluations did (greedily)
    assert f"fifthave play --opponents policy:{agent_file}:greedy\n" in printed
    assert f"fifthave tournament --agents policy:{agent_file}:greedy heuristic*1 --games 100" in printed
    assert f"tensorboard --logdir {tmp_path / 'run' / 'tb'}" in printed
    with pytest.raises(SystemExit):
        main([str(config), "--out", str(tmp_path / "run"), "--no-progress"])
    assert "is not an empty directory; choose an unused one (or --resume" in capsys.readouterr().err


def test_the_commands_after_a_run_play_the_policy_as_its_evaluations_did():
    sampled = how_to_use("runs/r/checkpoints/ckpt_0000000512.zip", 4)
    greedy = how_to_use("runs/r/checkpoints/ckpt_0000000512.zip", 4, greedy=True)
    assert "--agents policy:runs/r/checkpoints/ckpt_0000000512.npz heuristic*3 --games 100" in sampled[2]
    assert "--agents policy:runs/r/checkpoints/ckpt_0000000512.npz:greedy heuristic*3 --games 100" in greedy[2]
    assert greedy[1].endswith("--opponents policy:runs/r/checkpoints/ckpt_0000000512.npz:greedy heuristic heuristic")


# ---- nothing in a checkpoint is unpickled --------------------------------------------------------

class Payload:
    """Unpickled, it writes its marker file: proof that loading ran code from the file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('code from a checkpoint ran')",)


def with_pickled_payload(path, target, marker):
    """A copy of the checkpoint at ``path`` whose sb3 ``data`` member carries pickles that write ``marker``
    (``fifthave.json`` untouched, so ``read_meta`` accepts it)."""
    import base64
    import pickle

    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(members["data"])
    payload = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    for key in ("observation_space", "action_space", "policy_class", "_last_obs", "ep_info_buffer"):
        data[key] = {":type:": "<class 'object'>", ":serialized:": payload}
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return str(target)


def test_a_policy_with_pickles_in_its_data_loads_without_running_them_as_agent_and_search_evaluator(
        saved, tmp_path):
    import numpy as np

    from fifthave_env.gym_env import FifthAvenueEnv
    from fifthave.train.search_value import network_search_factory

    marker = tmp_path / "PWNED"
    evil = with_pickled_payload(ckpt.checkpoint_path(saved[0], 1024), tmp_path / "evil.zip", marker)
    env = FifthAvenueEnv(num_players=2)
    observation, info = env.reset(seed=0)
    from fifthave.train.policy_agent import PolicyFactory

    agent = PolicyFactory(evil)()  # training's reader of its own checkpoints
    agent.reset(env.unwrapped.game.config, env.unwrapped.learner_seat, np.random.default_rng(0))
    assert info["action_mask"][agent.act(observation, info["action_mask"])]
    search = network_search_factory(evil, rollouts=1, rollout_with_policy=True)()
    game = env.unwrapped.game
    assert 0.0 <= search.evaluator(game, game.actor) <= 1.0
    assert not marker.exists()


def test_the_tournament_command_refuses_a_tampered_checkpoint_and_plays_its_export_without_running_its_pickles(
        saved, tmp_path, capsys):
    from fifthave.agents.tournament import main
    from fifthave.train.export import export

    marker = tmp_path / "PWNED"
    evil = with_pickled_payload(ckpt.checkpoint_path(saved[0], 1024), tmp_path / "evil.zip", marker)
    with pytest.raises(SystemExit):  # playing reads agent files only
        main(["--agents", f"policy:{evil}", "random", "--games", "2", "--workers", "1"])
    assert f"is converted once with: python -m fifthave.train.export {evil}" in capsys.readouterr().err
    exported, _ = export(evil)  # the conversion reads the weights with weights_only=True, never the data member
    main(["--agents", f"policy:{exported}", "random", "--games", "2", "--workers", "1"])
    assert not marker.exists()


def test_init_from_and_resume_with_pickles_in_the_data_do_not_run_them(saved, tmp_path):
    import torch

    from fifthave.train.train import build_model, make_vec_env

    marker = tmp_path / "PWNED"
    source = ckpt.checkpoint_path(saved[0], 1024)
    evil = with_pickled_payload(source, tmp_path / "evil.zip", marker)
    config = copy_run(saved, tmp_path)[1]
    model = build_model(dataclasses.replace(config, init_from=evil, run_dir=str(tmp_path / "warm")),
                        make_vec_env(config))
    expected = torch.load(zipfile.ZipFile(source).open("policy.pth"), weights_only=True)
    assert all(torch.equal(value, expected[name]) for name, value in model.policy.state_dict().items())

    # issue 39: a resume reads only a checkpoint that matches the manifest the run wrote, so a tampered one is
    # refused before any of it is read
    run_dir, config = copy_run(saved, tmp_path / "resumed")
    newest = ckpt.checkpoint_path(run_dir, 512)
    os.remove(ckpt.checkpoint_path(run_dir, 1024))
    with_pickled_payload(newest, newest, marker)
    with pytest.warns(UserWarning, match="does not match its SHA-256"), \
            pytest.raises(ckpt.CheckpointError, match="no checkpoint in .* is intact"):
        train(config, resume=True, show_progress=False)
    assert not marker.exists()


def rewrite_member(path, target, member, change):
    """A copy of the checkpoint at ``path`` with ``member`` replaced by ``change(its bytes)``."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members[member] = change(members[member])
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return str(target)


def changed_tensors(change):
    """``change(state dict)`` applied to a torch-saved state dict's bytes."""
    import io

    import torch

    def apply(data):
        state = torch.load(io.BytesIO(data), weights_only=True)
        change(state)
        buffer = io.BytesIO()
        torch.save(state, buffer)
        return buffer.getvalue()
    return apply


def first_tensor_halved(state):
    name = next(iter(state))
    state[name] = state[name][:1]


def test_weights_that_do_not_fit_the_config_or_do_not_read_are_refused_naming_the_file(saved, tmp_path):
    from fifthave.train.policy_agent import PolicyAgent

    source = ckpt.checkpoint_path(saved[0], 1024)
    cases = [
        (rewrite_member(source, tmp_path / "shape.zip", "policy.pth", changed_tensors(first_tensor_halved)),
         "(?s)the weights in policy.pth do not fit the network of the config .*size mismatch"),
        (rewrite_member(source, tmp_path / "garbage.zip", "policy.pth", lambda data: b"\0" * 100),
         "policy.pth is not a readable torch state dict"),
        (rewrite_member(source, tmp_path / "nan.zip", "policy.pth",
                        changed_tensors(lambda state: next(iter(state.values())).fill_(float("nan")))),
         "policy.pth must hold finite float tensors"),
        (rewrite_member(source, tmp_path / "advisers.zip", ckpt.META_NAME, lambda data: json.dumps(
            {**json.loads(data), "config": {**json.loads(data)["config"], "advisers": ["heuristic"]}}).encode()),
         "do not fit the network of the config"),
        (str(tmp_path / "missing.zip"), "cannot read the checkpoint .*missing.zip: No such file or directory"),
    ]
    for path, message in cases:
        with pytest.raises(ckpt.CheckpointError, match=message):
            PolicyAgent.load(path)
        assert path in str(pytest.raises(ckpt.CheckpointError, PolicyAgent.load, path).value)


def test_init_from_refuses_optimizer_state_that_does_not_fit(saved, tmp_path):
    from fifthave.train.train import build_model, make_vec_env

    source = ckpt.checkpoint_path(saved[0], 1024)
    config = saved[1]

    def misshape(state):
        state["state"][0]["exp_avg"] = state["state"][0]["exp_avg"][:1]

    def learning_rate(state):
        state["param_groups"][0]["lr"] = "abc"
    bad = rewrite_member(source, tmp_path / "adam.zip", ckpt.OPTIMIZER_MEMBER, changed_tensors(misshape))
    with pytest.raises(ckpt.CheckpointError, match="the state of parameter 0 must hold step"):
        build_model(dataclasses.replace(config, init_from=bad), make_vec_env(config))
    # Adam's hyperparameters come from the config, whatever the file says
    odd = rewrite_member(source, tmp_path / "lr.zip", ckpt.OPTIMIZER_MEMBER, changed_tensors(learning_rate))
    model = build_model(dataclasses.replace(config, init_from=odd), make_vec_env(config))
    assert model.policy.optimizer.param_groups[0]["lr"] == config.learning_rate


@pytest.mark.parametrize("damage,message", [
    (lambda state: state.pop("sb3"), "holds no run state that this version reads"),
    (lambda state: state["sb3"].update(episode_starts=[True]), "episode_starts must be a list of 2 items"),
    (lambda state: state["games"][0].update(moves=[5000]), "games\\[0\\].moves\\[0\\] must be an int from 0"),
    (lambda state: state["games"][1]["opponents"].update(kind="os.system"), "opponents.kind must be one of"),
    (lambda state: state["generators"].update(torch=[1, 2, 3]), "generator states are damaged"),
])
def test_resume_refuses_a_damaged_run_state_before_writing_anything(saved, tmp_path, damage, message):
    run_dir, config = copy_run(saved, tmp_path)
    os.remove(ckpt.checkpoint_path(run_dir, 1024))
    path = ckpt.checkpoint_path(run_dir, 512)
    meta = ckpt.read_meta(path)
    damage(meta["run_state"])
    rewrite_meta(path, json.dumps(meta))
    write_file_manifest(path)  # a matching manifest: the run state's own checks are what is tested here
    with pytest.raises(ckpt.CheckpointError, match=f"{path}.*{message}"):
        train(dataclasses.replace(config, total_timesteps=1024), resume=True, show_progress=False)
    assert sorted(os.listdir(run_dir)) == ["checkpoints"]  # no config.json, eval.csv or logs


# ---- issue 39/40: --resume reads only checkpoints that match the manifest the run wrote ---------------------

def test_every_checkpoint_has_a_manifest_that_sha256sum_checks(saved):
    run_dir = saved[0]
    for steps in (512, 1024):
        path = ckpt.checkpoint_path(run_dir, steps)
        digest, name = open(path + ".sha256").read().split()
        assert name == os.path.basename(path) and digest == __import__("hashlib").sha256(
            open(path, "rb").read()).hexdigest()
    done = subprocess.run(["sha256sum", "-c", os.path.basename(path) + ".sha256"], cwd=os.path.dirname(path),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("how", ["policy pickle", "no manifest"])
def test_resume_refuses_a_checkpoint_that_does_not_match_its_manifest_before_reading_it(saved, tmp_path, how,
                                                                                        monkeypatch):
    import pickle

    run_dir, config = copy_run(saved, tmp_path)
    os.remove(ckpt.checkpoint_path(run_dir, 1024))
    path = ckpt.checkpoint_path(run_dir, 512)
    marker = tmp_path / "PWNED"
    if how == "policy pickle":  # what a plain torch.load / pickle.load of policy.pth would run
        rewrite_member(path, path, "policy.pth", lambda data: pickle.dumps(Payload(marker)))
    else:
        os.remove(path + ".sha256")
    read = []
    monkeypatch.setattr(ckpt, "read_meta", lambda *a: read.append(a) or pytest.fail("read before the manifest"))
    message = "does not match its SHA-256" if how == "policy pickle" else "has no manifest"
    with pytest.warns(UserWarning, match=message), pytest.raises(ckpt.CheckpointError, match="is intact"):
        train(dataclasses.replace(config, total_timesteps=2048), resume=True, show_progress=False)
    assert not marker.exists() and not read
    assert sorted(os.listdir(run_dir)) == ["checkpoints"]  # nothing written


def test_resume_without_a_checkpoint_is_an_error_not_a_fresh_run(tmp_path):
    from fifthave.train.run import main

    config = tiny_config(tmp_path / "empty")
    os.makedirs(config.run_dir)
    with pytest.raises(ckpt.CheckpointError, match="holds no checkpoint to resume from"):
        train(config, resume=True, show_progress=False)
    assert os.listdir(config.run_dir) == []
    for run_dir in (tmp_path / "empty", tmp_path / "missing"):
        with pytest.raises(SystemExit) as exit_:
            main(["--resume", str(run_dir)])
        assert exit_.value.code == 2
    assert not (tmp_path / "missing").exists()


def test_a_used_run_directory_is_refused_unless_resumed(tmp_path):
    config = tiny_config(tmp_path / "run")
    os.makedirs(config.run_dir)
    (tmp_path / "run" / "config.json").write_text("{}")  # a run that stopped before its first checkpoint
    with pytest.raises(FileExistsError, match="holds the files of another run \\(config.json\\)"):
        train(config, show_progress=False)
    assert (tmp_path / "run" / "config.json").read_text() == "{}"
