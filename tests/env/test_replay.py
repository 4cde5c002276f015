"""Recorded games: exact replays, saving and loading, frames and GIFs."""

import json
import re

import numpy as np
import pytest
from PIL import Image

from fifthave.agents.base import RandomAgent
from fifthave.agents.search import SearchAgent
from fifthave_env import fifth_avenue_v0
from fifthave_env.engine import Game, GameConfig
from fifthave_env.observation import OBS_SIZES
from fifthave_env.render_image import HEIGHT, SEAT_RGB, WIDTH, plot_center
from fifthave_env.replay import GameRecord, frames, main, record_game, save_gif

SHORT = GameConfig(num_players=3, max_turns=4)  # truncated after 4 turns: a few dozen actions


def random_record(config=SHORT, seed=0):
    return record_game([RandomAgent() for _ in range(config.num_players)], config, seed=seed)


def test_replay_reproduces_an_env_game_exactly():
    env = fifth_avenue_v0.env(num_players=2, board=6)
    env.reset(seed=11)
    record = GameRecord.start(env.unwrapped.game)
    rng = np.random.default_rng(11)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        record.actions.append(action)
        env.step(action)
    final = record.final_game()
    assert final.is_over
    # The whole state, hidden cards and the generator included.
    assert final.to_dict() == env.unwrapped.game.to_dict()


def test_record_game_is_reproducible_and_survives_saving(tmp_path):
    config = GameConfig(num_players=4)
    record = random_record(config, seed=3)
    assert record.actions == random_record(config, seed=3).actions
    assert record.actions != random_record(config, seed=4).actions
    game = record.final_game()
    assert game.is_over and game.terminated
    path = tmp_path / "game.json"
    record.save(path)
    loaded = GameRecord.load(path)
    assert loaded.actions == record.actions
    assert loaded.final_game().to_dict() == game.to_dict()


class _LayoutOneRandom(RandomAgent):
    observation_layout = 1
    needs_observation = True  # RandomAgent reads only the mask

    def act(self, observation, action_mask):
        assert observation.shape == (OBS_SIZES[1],)  # the layout it reads, not the default
        return super().act(observation, action_mask)


def test_record_game_seats_agents_as_the_tournament_does():
    searcher = SearchAgent(rollouts=2, depth=0)
    record = record_game([searcher, _LayoutOneRandom(), RandomAgent()], GameConfig(num_players=3), seed=5)
    assert record.final_game().is_over and searcher.searched > 0  # it had its sampler


def test_replay_yields_the_start_then_every_action():
    record = random_record()
    items = [(index, actor, action) for index, actor, action, _ in record.replay()]
    assert items[0] == (-1, -1, None)
    assert [action for _, _, action in items[1:]] == record.actions
    assert all(0 <= actor < 3 for _, actor, _ in items[1:])


def test_a_record_that_does_not_fit_its_start_is_refused():
    record = random_record()
    game = Game.from_dict(record.initial_state)
    illegal = next(a for a in range(147) if a not in game.legal_actions())
    broken = GameRecord(record.initial_state, [illegal] + record.actions[1:])
    with pytest.raises(ValueError, match="recorded action #0"):
        broken.final_game()


def test_bare_saved_state_gives_one_frame(tmp_path):
    game = Game(GameConfig(num_players=2), seed=1)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(game.to_dict()))
    record = GameRecord.load(path)
    assert record.actions == []
    images = list(frames(record, scale=0.5))
    assert len(images) == 1 and images[0].size == (WIDTH // 2, HEIGHT // 2)


def test_unknown_json_is_refused():
    with pytest.raises(ValueError, match="not a recorded game"):
        GameRecord.from_dict({"actions": [1, 2]})
    with pytest.raises(ValueError, match="unknown record format"):
        GameRecord.from_dict({"record_format": 99, "initial_state": {}, "actions": []})


@pytest.mark.parametrize("edit,match", [
    (lambda d: d["actions"].__setitem__(0, d["actions"][0] + 0.7), r"actions\[0\] must be an int .* of type float"),
    (lambda d: d["actions"].__setitem__(0, "5"), r"actions\[0\] must be an int .* got '5' of type str"),
    (lambda d: d["actions"].__setitem__(0, True), r"actions\[0\] must be an int .* got True of type bool"),
    (lambda d: d["actions"].__setitem__(0, None), r"actions\[0\] must be an int from 0 to 146, got None"),
    (lambda d: d.update(actions="12"), r"actions must be a list, got '12' of type str"),
    (lambda d: d.pop("actions"), r"recorded game lacks the key\(s\) 'actions'"),
    (lambda d: d.update(extra=1), r"recorded game has the unknown key\(s\) 'extra'"),
    (lambda d: d.update(record_format=True), r"unknown record format True of type bool"),
    (lambda d: d.update(record_format=1.0), r"unknown record format 1.0 of type float"),
])
def test_a_record_is_untrusted_input_checked_field_by_field(edit, match):
    data = json.loads(json.dumps(random_record().to_dict()))
    edit(data)
    with pytest.raises(ValueError, match=match):
        GameRecord.from_dict(data)


def test_a_record_must_be_a_dict():
    for data in (None, 5, [1, 2]):
        with pytest.raises(TypeError, match="recorded game must be a dict"):
            GameRecord.from_dict(data)


@pytest.mark.parametrize("content,options,match", [
    (None, [], "cannot read .*missing.json: .*No such file"),
    ("{not json", [], "cannot read .*game.json: .*is not valid JSON: Expecting property name"),
    ("record", ["--fps", "-1"], r"fps must be from 0.01 to 100.0 frames per second .*got -1.0"),
    ("record", ["--fps", "1e-300"], r"fps must be from 0.01 to 100.0"),
    ("record", ["--hands", "9"], r"hands must be 'actor', 'none' or a seat in 0..2, got 9"),
    ("record", ["--scale", "1e9"], r"--scale must be from 0.05 to 4"),
    ("bad state", [], r"cannot read .*saved game field state.turn must be an int from 0 to 4, got -1"),
])
def test_command_line_errors_are_one_line_with_exit_code_2(tmp_path, capsys, content, options, match):
    source = tmp_path / ("missing.json" if content is None else "game.json")
    if content in ("record", "bad state"):
        data = random_record().to_dict()
        if content == "bad state":
            data["initial_state"]["state"]["turn"] = -1
        source.write_text(json.dumps(data))
    elif content is not None:
        source.write_text(content)
    with pytest.raises(SystemExit) as exit_info:
        main([str(source), str(tmp_path / "game.gif"), "--scale", "0.25", *options])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 or "usage:" in error
    assert re.search(match, error), error


def test_frame_counts():
    record = random_record()
    final = record.final_game()
    assert final.truncated and final.turn == 4
    by_action = list(frames(record, every="action", scale=0.25))
    assert len(by_action) == len(record.actions) + 1
    # The start, the start of turns 1, 2 and 3, and the end (turn 4 begins never: truncated).
    by_turn = list(frames(record, every="turn", scale=0.25))
    assert len(by_turn) == 5
    with pytest.raises(ValueError, match="every must be one of"):
        next(frames(record, every="auction"))


def test_gif_keeps_the_seat_colors(tmp_path):
    record = random_record()
    path = tmp_path / "game.gif"
    count = save_gif(record, path, scale=0.75, fps=4)
    with Image.open(path) as gif:
        assert gif.n_frames == count == 5
        assert gif.size == (960, 540)
        gif.seek(count - 1)
        last = np.asarray(gif.convert("RGB"))
    # Every starting skyscraper keeps its exact seat color through the GIF palette.
    final = record.final_game()
    towers = [(plot, owner) for plot, owner in enumerate(final.plot_owner)
              if owner >= 0 and final.plot_height[plot] and not final.plot_shops[plot]]
    assert len(towers) >= 6
    for plot, owner in towers:
        x, y = plot_center(plot)
        assert tuple(last[round((y + 12) * 0.75), round((x - 8) * 0.75)]) == SEAT_RGB[owner]


def test_command_line_writes_png_frames(tmp_path, capsys):
    record = random_record()
    source = tmp_path / "game.json"
    record.save(source)
    main([str(source), str(tmp_path / "frames"), "--every", "turn", "--scale", "0.25", "--hands", "none"])
    written = sorted(p.name for p in (tmp_path / "frames").iterdir())
    assert written == [f"frame_{i:04d}.png" for i in range(5)]
    assert "wrote 5 frames" in capsys.readouterr().out
