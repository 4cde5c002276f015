"""One config schema and one command (issue 34 item 2): every committed config validates, ``--set`` overrides are
checked like the file, a bad value names its field and writes nothing, old flat configs and run directories load
with a notice and mean what they meant, ``--resume`` continues through ``fifthave.train.run.main`` bit for bit,
and new runs read observation layout 1 wherever a default decides it."""

import dataclasses
import inspect
import json
import os
import re
import shutil
import sys
import types

import pytest

from fifthave.train import run as run_module
from fifthave.train.checkpoint import latest_checkpoint, read_meta
from fifthave.train.config import (FLAT_NAMES, METHOD_DEFAULTS, RENAMED, RLLIB_NAMES, SECTION_CLASSES,
                                   SHARED_SECTIONS, CandidateValueConfig, GameSection, PPOSection, RLlibSection,
                                   RunConfig, TrainConfig, _field_names, config_from_dict, flat_class, legacy_flat,
                                   load_config, load_run_config, parse_run_config, parse_set, run_config_from_dict,
                                   translate_legacy)
from fifthave.train.rllib.config import RLlibConfig

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = os.path.join(ROOT, "train", "configs")
OLD_CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "old_configs")
CONVERTED = {"default.json": "ppo_vs_random.json", "experiment.json": "selfplay_experiment.json",
             "selfplay.json": "selfplay.json", "experiment_vs_random.json": "ppo_vs_random_layout0.json",
             "clone_heuristic.json": "bc_clone_heuristic.json", "recipe.json": "bc_search_advised.json",
             "recipe_bc_ppo_league.json": "bc_then_ppo_league.json",
             "candidate_values.json": "candidate_values_4p.json", "candidate_values_2p.json": "candidate_values_2p.json",
             "candidate_values_3p.json": "candidate_values_3p.json", "learn_vs_random.json": "rllib_vs_random.json"}
"""The flat configs on main before the schema (kept in tests/train/old_configs) and what each became."""
TINY = {"method": "selfplay", "game": {"num_players": 3},
        "evaluation": {"games": 3, "every": 256, "opponents": ["random"]},
        "run": {"seed": 5, "workers": 0, "steps": 512, "checkpoint_every": 256},
        "ppo": {"n_envs": 4, "n_steps": 64, "batch_size": 128, "n_epochs": 1, "net_arch": [16]},
        "selfplay": {"snapshot_every": 256, "promote_window": 20}}


def flat_without_run_dir(config):
    return {k: v for k, v in config.to_dict().items() if k != "run_dir"}


def test_every_committed_config_validates_and_set_overrides_reach_the_trainer():
    names = sorted(os.listdir(CONFIGS))
    # one folder: every old config converted, the iterated self-play learner's (new with the schema) and the
    # advice-free candidate values', without and with effect features, taught against a league of scripted
    # anchors, and against one with the search and its own past generations (depth-3 labels; issue 35)
    assert sorted([*CONVERTED.values(), "generations_4p.json", "candidate_values_all_4p.json",
                   *(f"candidate_values_effects_{n}p.json" for n in (2, 3, 4)),
                   "candidate_values_league_4p.json",
                   *(f"candidate_values_selfplay_{n}p.json" for n in (2, 3, 4))]) == names
    league = load_run_config(os.path.join(CONFIGS, "candidate_values_league_4p.json")).trainer_config("x")
    assert (league.end_bonus, league.seated_rollouts, league.dagger_rounds) == (0.05, True, 6)
    selfplay = load_run_config(os.path.join(CONFIGS, "candidate_values_selfplay_4p.json")).trainer_config("x")
    assert (selfplay.past_generations, selfplay.depth, selfplay.dagger_rounds, selfplay.destinations) == (3, 3, 4, True)
    assert selfplay.opponents[-1] == "search"
    selfplay_2p = load_run_config(os.path.join(CONFIGS, "candidate_values_selfplay_2p.json")).trainer_config("x")
    assert (selfplay_2p.num_players, selfplay_2p.dagger_rounds, selfplay_2p.replay_rounds,
            selfplay_2p.destinations) == (2, 10, 10, True)
    generations = load_run_config(os.path.join(CONFIGS, "generations_4p.json"))
    assert generations.method == "generations" and generations.sections["generations"]["num_players"] == 4
    from fifthave.train.generations import GenerationsConfig, load_config
    assert load_config(os.path.join(CONFIGS, "generations_4p.json")) == GenerationsConfig(
        **generations.sections["generations"])
    for name in names:
        if name == "generations_4p.json":
            continue
        config = load_run_config(os.path.join(CONFIGS, name))
        assert isinstance(config, RunConfig)
        changed = load_run_config(os.path.join(CONFIGS, name), ["run.seed=7", "game.board=6"]).trainer_config("x")
        assert (changed.seed, changed.board) == (7, 6)
    config = load_run_config(os.path.join(CONFIGS, "selfplay.json"),
                             ["ppo.net_arch=[64,64]", "ppo.opponents=[\"greedy\"]", "game.reward=win",
                              "evaluation.deterministic=false", "selfplay.pool_size=3"]).trainer_config("x")
    assert config.net_arch == [64, 64] and config.opponents == ["greedy"] and config.reward == "win"
    assert config.eval_deterministic is False and config.selfplay.pool_size == 3
    assert parse_set("game.reward=win") == (("game", "reward"), "win")  # not JSON: taken as the string
    assert parse_set("run.steps=1e3") == (("run", "steps"), 1000.0)  # JSON: a float, which the check refuses
    for bad in ("ppo.net_arch", "a.b.c=1", "=3"):
        with pytest.raises(ValueError, match="--set takes SECTION.KEY=VALUE"):
            parse_set(bad)


@pytest.mark.parametrize("sets, message", [
    (["ppo.n_envs=0"], "ppo.n_envs must be an int from 1 to 1024, got 0"),
    (["evaluation.games=x"], "evaluation.games must be an int >= 1, got 'x'"),
    (["run.steps=1e3"], "run.steps .*must be an int >= 1, got 1000.0 of type float"),
    (["evaluation.gamez=3"], r"unknown evaluation keys \['gamez'\]; allowed: \['deterministic', 'every', 'games'"),
    (["rllib.pool_size=3"], r"unknown keys \['rllib'\] for method selfplay; allowed: "),
    (["method=dqn"], "method must be one of 'ppo', 'selfplay', 'bc', 'candidate_values', 'rllib', 'generations'"),
    (["game.observation_layout=2"], "game.observation_layout must be one of 0, 1, got 2"),
    (["selfplay.promote_win_rate=2"], "selfplay.promote_win_rate must be"),
])
def test_a_bad_value_names_its_field_and_nothing_is_written(tmp_path, capsys, sets, message):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(TINY))
    out = tmp_path / "run"
    argv = [str(path), "--out", str(out)]
    for text in sets:
        argv += ["--set", text]
    with pytest.raises(SystemExit) as exit_info:
        run_module.main(argv)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.search(message, error), error
    assert not out.exists() and os.listdir(tmp_path) == ["tiny.json"]


def test_a_shared_field_a_method_does_not_read_is_refused_not_ignored():
    with pytest.raises(ValueError, match="evaluation.every does not apply to method rllib .*run.checkpoint_every"):
        load_run_config(os.path.join(CONFIGS, "rllib_vs_random.json"), ["evaluation.every=3"])
    with pytest.raises(ValueError, match="game.reward does not apply to method candidate_values"):
        load_run_config(os.path.join(CONFIGS, "candidate_values_4p.json"), ["game.reward=win"])


@pytest.mark.parametrize("old", sorted(CONVERTED))
def test_an_old_config_loads_with_a_notice_and_means_what_it_meant(old):
    path = os.path.join(OLD_CONFIGS, old)
    with open(path) as f:
        data = json.load(f)
    notices = []
    config = parse_run_config(data, path, notify=notices.append)
    assert len(notices) == 1 and "flat config of the old format" in notices[0] and "\n" not in notices[0]
    # the trainer gets what the old command gave it: the old file read by the flat class with its defaults
    trainer, flat, _ = legacy_flat(data)
    for name, today in RENAMED[trainer].items():
        if name in data:
            assert f"{name} is now {today}" in notices[0]
    then = flat_class(trainer)(**flat)
    assert flat_without_run_dir(config.trainer_config("x")) == flat_without_run_dir(then)
    if "observation_version" not in data and trainer != "candidate_values":
        assert then.observation_layout == 0  # the default of its time, not today's
    # and the converted file in train/configs is the same run
    converted = load_run_config(os.path.join(CONFIGS, CONVERTED[old]))
    assert flat_without_run_dir(converted.trainer_config("x")) == flat_without_run_dir(then)


def test_a_checkpoints_stored_config_with_old_names_translates():
    stored = TrainConfig(num_players=3, net_arch=[16], run_dir="runs/old").to_dict()
    stored["observation_version"] = stored.pop("observation_layout")
    stored["subproc"] = True  # written before ``workers``
    assert config_from_dict(stored).observation_layout == 1
    del stored["observation_version"]  # a checkpoint from before layout 1 existed
    assert config_from_dict(stored).observation_layout == 0
    data, used = translate_legacy(stored)
    assert data["method"] == "ppo" and data["game"]["observation_layout"] == 0 and used == []
    rllib = RLlibConfig(net_arch=[8], learning_rate=0.01).to_dict()
    rllib.update(hidden=rllib.pop("net_arch"), lr=rllib.pop("learning_rate"),
                 observation_version=rllib.pop("observation_layout"))
    data, used = translate_legacy(rllib)
    assert used == ["hidden is now net_arch", "lr is now learning_rate", "observation_version is now observation_layout"]
    assert data["rllib"]["net_arch"] == [8] and data["rllib"]["learning_rate"] == 0.01


# One name per concept (issue 34): the rllib section names PPO's settings as the ppo section does, candidate
# values' embedding width is not called like a layer list; every old name still loads, with the notice.
RLLIB_OLD = {"minibatch_size": ("batch_size", 50), "num_epochs": ("n_epochs", 2), "lambda_": ("gae_lambda", 0.9),
             "clip_param": ("clip_range", 0.3), "entropy_coeff": ("ent_coef", 0.02), "vf_loss_coeff": ("vf_coef", 0.7),
             "grad_clip": ("max_grad_norm", 0.4), "lr": ("learning_rate", 0.01), "hidden": ("net_arch", [8])}


def test_every_renamed_rllib_key_is_covered_and_the_ppo_sections_name():
    assert {old for old in RENAMED["rllib"] if old != "observation_version"} == set(RLLIB_OLD)
    ppo_names = {f.name for f in dataclasses.fields(PPOSection)}
    rllib_names = {f.name for f in dataclasses.fields(RLlibSection)}
    assert {new for new, _ in RLLIB_OLD.values()} <= ppo_names & rllib_names
    assert not set(RENAMED["rllib"]) & rllib_names  # no old name left in the section
    assert set(RLLIB_NAMES) <= ppo_names  # what is translated to RLlib is named as PPO names it


@pytest.mark.parametrize("old", sorted(RLLIB_OLD))
def test_an_old_rllib_name_loads_in_a_flat_file_a_checkpoint_and_a_section(old, tmp_path):
    new, value = RLLIB_OLD[old]
    flat = RLlibConfig().to_dict()
    del flat[new]
    flat[old] = value
    data, used = translate_legacy(flat)  # an old flat file
    assert data["rllib"][new] == value and used == [f"{old} is now {new}"]
    from fifthave.train.rllib.config import load_rllib_config

    assert getattr(load_rllib_config(base=flat), new) == value  # a checkpoint's stored config (meta.json)
    path = tmp_path / "old_section.json"  # a run config (or run_config.json) written before the rename
    path.write_text(json.dumps({"method": "rllib", "rllib": {old: value}}))
    notices = []
    config = load_run_config(str(path), notify=notices.append)
    assert getattr(config.sections["rllib"], new) == value and getattr(config.trainer_config("x"), new) == value
    assert notices == [f"notice: {path} uses old names (rllib.{old} is now rllib.{new}); read with today's names, "
                       f"as run_config.json in the run directory writes them"]
    with pytest.raises(ValueError, match=f"names both {new} and its old name {old}"):
        load_run_config(str(path), [f"rllib.{new}={json.dumps(value)}"], notify=notices.append)


@pytest.mark.parametrize("section, old, new, value", [("candidate_values", "hidden", "embedding_width", 16),
                                                      ("generations", "hidden", "net_arch", [16])])
def test_the_old_hidden_of_candidate_values_and_generations_loads(section, old, new, value, tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"method": section, section: {old: value}}))
    notices = []
    config = load_run_config(str(path), notify=notices.append)
    fields = config.sections[section]
    assert (fields[new] if isinstance(fields, dict) else getattr(fields, new)) == value
    assert f"{section}.{old} is now {section}.{new}" in notices[0]
    if section == "candidate_values":
        flat = CandidateValueConfig().to_dict()
        del flat[new]
        assert translate_legacy({**flat, old: value})[0][section][new] == value
    else:
        from fifthave.train.generations import GenerationsConfig, load_config as load_generations

        assert load_generations(str(path)) == GenerationsConfig(**{new: value})


def test_the_flat_configs_take_every_default_from_the_sections():
    """One source of defaults: a flat field a section maps to has that section's default (or, where the section
    leaves it to the method with None, the method's, ``METHOD_DEFAULTS``)."""
    for trainer, cls in (("ppo", TrainConfig), ("rllib", RLlibConfig), ("candidate_values", CandidateValueConfig)):
        flat = cls()
        mapped = dict(FLAT_NAMES[trainer])
        mapped.update({(trainer, f.name): f.name for f in dataclasses.fields(SECTION_CLASSES[trainer])})
        sections = {**SHARED_SECTIONS, trainer: SECTION_CLASSES[trainer]}
        for (section, key), flat_name in mapped.items():
            default = getattr(sections[section](), key)
            expected = METHOD_DEFAULTS[trainer][flat_name] if default is None and flat_name in METHOD_DEFAULTS[
                trainer] else default
            assert getattr(flat, flat_name) == expected, (trainer, section, key)
        assert set(_field_names(cls)) == set(mapped.values()) | set(METHOD_DEFAULTS[trainer])


def test_new_runs_get_a_dated_directory_and_resume_through_run_main_bit_for_bit(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.json").write_text(json.dumps(TINY))
    assert run_module.main(["tiny.json", "--no-progress", "--set", "run.steps=256"]) == 0
    made, = os.listdir(tmp_path / "runs")
    assert re.fullmatch(r"\d{8}-\d{6}-selfplay", made)
    first = os.path.join("runs", made)
    assert run_module.new_run_dir("selfplay") != first  # never an existing one
    saved = json.loads((tmp_path / first / "run_config.json").read_text())
    assert run_config_from_dict(saved).to_dict() == saved and saved["run"]["steps"] == 256
    with pytest.raises(SystemExit):  # a resumed run is the saved one: only its budget may change
        run_module.main(["--resume", first, "--set", "ppo.learning_rate=0.1"])
    assert "--set ppo.learning_rate would change it" in capsys.readouterr().err
    assert run_module.main(["--resume", first, "--no-progress", "--set", "run.steps=512"]) == 0
    assert run_module.main(["tiny.json", "--out", "straight", "--no-progress"]) == 0
    resumed, straight = (read_meta(latest_checkpoint(d)) for d in (first, "straight"))
    assert resumed["num_timesteps"] == straight["num_timesteps"] == 512
    assert resumed["weights_sha256"] == straight["weights_sha256"]
    assert (tmp_path / first / "eval.csv").read_text() == (tmp_path / "straight" / "eval.csv").read_text()

    # A run directory of the old commands (a flat config.json with old names) resumes too, with the notice.
    old = tmp_path / "old"
    shutil.copytree(tmp_path / "straight", old)
    os.remove(old / "run_config.json")
    flat = json.loads((old / "config.json").read_text())
    flat["observation_version"] = flat.pop("observation_layout")
    (old / "config.json").write_text(json.dumps(flat))
    capsys.readouterr()
    assert run_module.main(["--resume", str(old), "--no-progress", "--set", "run.steps=768"]) == 0
    assert "observation_version is now observation_layout" in capsys.readouterr().err
    assert read_meta(latest_checkpoint(str(old)))["num_timesteps"] == 768


def test_the_method_dispatches_to_generations_when_that_module_exists(tmp_path, monkeypatch):
    calls = []
    module = types.ModuleType("fifthave.train.generations")
    module.run = lambda config, out, resume: calls.append((config.method, config.sections["generations"], out, resume))
    monkeypatch.setitem(sys.modules, "fifthave.train.generations", module)
    monkeypatch.setattr(run_module.importlib.util, "find_spec", lambda name: module)
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"method": "generations", "generations": {"rounds": 2}}))
    assert run_module.main([str(path), "--out", str(tmp_path / "g")]) == 0
    assert calls == [("generations", {"rounds": 2}, str(tmp_path / "g"), False)]


def test_observation_layout_1_is_the_default_for_new_runs_everywhere():
    from fifthave_env.gym_env import FifthAvenueEnv
    from fifthave_env.observation import Observer

    assert GameSection().observation_layout == 1
    assert TrainConfig().observation_layout == RLlibConfig().observation_layout == 1
    assert CandidateValueConfig().observation_layout == 1
    assert inspect.signature(FifthAvenueEnv).parameters["observation_layout"].default == 1
    assert inspect.signature(Observer).parameters["version"].default == 1
    assert load_config().observation_layout == 1
    assert config_from_dict({}).observation_layout == 0  # a stored flat config naming none is an old one
    pytest.importorskip("ray")
    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    assert FifthAvenueMultiAgentEnv({}).observation_spaces["player_0"]["observations"].shape == (1409,)


def test_a_resumed_generations_run_may_get_more_generations_and_nothing_else(tmp_path):
    (tmp_path / "run_config.json").write_text(json.dumps({"method": "generations", "generations": {"generations": 2}}))
    config = run_module.saved_run_config(str(tmp_path), ["generations.generations=5"])
    assert config.sections["generations"]["generations"] == 5
    with pytest.raises(ValueError, match="--set generations.seed would change it"):
        run_module.saved_run_config(str(tmp_path), ["generations.seed=3"])


def test_a_resumed_candidate_values_run_may_get_more_dagger_rounds_or_a_window_and_not_more_games(tmp_path):
    (tmp_path / "run_config.json").write_text(json.dumps({"method": "candidate_values",
                                                          "candidate_values": {"dagger_rounds": 2}}))
    config = run_module.saved_run_config(str(tmp_path), ["candidate_values.dagger_rounds=6",
                                                         "candidate_values.replay_rounds=4"])
    section = config.sections["candidate_values"]
    assert (section.dagger_rounds, section.replay_rounds) == (6, 4)
    with pytest.raises(ValueError, match="--set candidate_values.dagger_games would change it"):
        run_module.saved_run_config(str(tmp_path), ["candidate_values.dagger_games=10"])
