"""Bad input at every entry point: configs, env options, seeds, actions (engine.checks, as_action_id).

Explicit cases check that each error names the parameter, the value and what is
allowed; property tests (hypothesis) feed arbitrary values and assert a refusal of
our own types with the state unchanged, or a legal result.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fifthave_env import fifth_avenue_v0
from fifthave_env.engine import Game, GameConfig, IllegalActionError
from fifthave_env.engine.actions import NUM_ACTIONS, ActionTypeError, as_action_id
from fifthave_env.engine.checks import InvalidTypeError, InvalidValueError
from fifthave_env.engine.game import MAX_SKYSCRAPERS_PER_COLOR, MAX_TURNS
from fifthave_env.gym_env import FifthAvenueEnv
from fifthave_env.observation import OBS_HIGH, Observer, views

FAST = settings(max_examples=120, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# ---- configs --------------------------------------------------------------------------------

@pytest.mark.parametrize("field,value,error,message", [
    ("board", 5.0, InvalidTypeError, r"board must be one of 5, 6, got 5.0 of type float"),
    ("board", True, InvalidTypeError, r"board must be one of 5, 6, got True of type bool"),
    ("skyscrapers_per_color", 7.5, InvalidTypeError, r"skyscrapers_per_color must be an int from 6 to 100, got 7.5"),
    ("skyscrapers_per_color", 20000, InvalidValueError, r"skyscrapers_per_color must be an int from 6 to 100, got 20000"),
    ("num_players", 4.0, InvalidTypeError, r"num_players must be one of 2, 3, 4, got 4.0 of type float"),
    ("num_players", "4", InvalidTypeError, r"num_players must be one of 2, 3, 4, got '4' of type str"),
    ("max_turns", "10", InvalidTypeError, r"max_turns must be an int from 1 to 1000000, got '10' of type str"),
    ("max_turns", math.inf, InvalidTypeError, r"max_turns must be an int from 1 to 1000000, got inf of type float"),
    ("max_turns", True, InvalidTypeError, r"max_turns must be an int from 1 to 1000000, got True of type bool"),
    ("max_turns", 0, InvalidValueError, r"max_turns must be an int from 1 to 1000000, got 0"),
    ("random_start", "yes", InvalidTypeError, r"random_start must be True or False, got 'yes' of type str"),
    ("random_start", 1, InvalidTypeError, r"random_start must be True or False, got 1 of type int"),
    ("row_groups", (10, 10.0), InvalidTypeError, r"row_groups\[1\] must be an int from 1 to 20, got 10.0"),
    ("row_groups", "3232", InvalidTypeError, r"row_groups must be a list, got '3232' of type str"),
    ("row_groups", (10, 9), InvalidValueError, r"row_groups must be positive sizes adding up to 20 tiles"),
    ("layout", "gray", InvalidTypeError, r"layout must be a list of 7 items, got 'gray' of type str"),
    ("layout", [["gray"] * 5] * 7, InvalidValueError, r"layout\[0\] .*every color exactly once"),
    ("layout", [[True, 1, 2, 3, 4]] * 7, InvalidValueError, r"layout\[0\]: unknown plot color True of type bool"),
])
def test_a_bad_config_value_is_named_with_what_is_allowed(field, value, error, message):
    with pytest.raises(error, match=message):
        GameConfig(**{field: value})
    if field == "row_groups":  # a GameConfig field the environments do not take
        return
    with pytest.raises(error, match=message):  # through both environments, with the same words
        fifth_avenue_v0.env(**{field: value})
    with pytest.raises(error, match=message):
        FifthAvenueEnv(**{field: value})


@pytest.mark.parametrize("make", [fifth_avenue_v0.env, FifthAvenueEnv])
def test_env_options_are_named_with_what_is_allowed(make):
    for kwargs, error, message in [
        (dict(render_mode="window"), InvalidValueError, "render_mode must be one of 'ansi', 'rgb_array', 'human', None"),
        (dict(render_mode=0), InvalidTypeError, "render_mode must be one of .* got 0 of type int"),
        (dict(reward="points"), InvalidValueError, "reward must be one of 'win_loss', 'win', 'vp_margin', 'score_delta'"),
        (dict(reward=["win_loss"]), InvalidTypeError, r"reward must be one of .* got \['win_loss'\] of type list"),
    ]:
        with pytest.raises(error, match=message):
            make(**kwargs)
    env = make(num_players=2)
    env.reset(seed=0)
    if hasattr(env, "observe"):
        with pytest.raises(InvalidValueError, match="agent must be one of player_0, player_1, got 'player_2'"):
            env.observe("player_2")


def test_config_values_are_stored_as_plain_python_values():
    config = GameConfig(num_players=np.int64(2), board=np.int32(6), max_turns=np.uint16(50),
                        random_start=np.bool_(True), row_groups=[10, 10])
    assert type(config.num_players) is int and type(config.board) is int and type(config.max_turns) is int
    assert config.random_start is True and config.row_groups == (10, 10)
    assert config.to_dict()["num_players"] == 2


def test_the_most_skyscrapers_allowed_keep_observations_inside_the_declared_box():
    for n in (2, 4):
        config = GameConfig(num_players=n, skyscrapers_per_color=MAX_SKYSCRAPERS_PER_COLOR)
        observer = Observer(config)
        high = 0.0
        for seed in range(3):
            game = Game(config, seed=seed)
            rng = np.random.default_rng(seed)
            while not game.is_over:
                for seat in range(n):
                    obs = observer.observe(game, seat)
                    high = max(high, float(obs.max()))
                    assert obs.min() >= 0.0
                legal = game.legal_actions()
                game.apply(legal[rng.integers(len(legal))])
        assert 5.0 < high <= OBS_HIGH  # the supply feature really grows with the config


def test_scores_of_a_game_stalled_for_any_number_of_turns_stay_inside_the_declared_box():
    """R29: players may stall (score a district every turn, never place a shop) until ``max_turns``, up to
    MAX_TURNS; the score views stop at the Box's bound instead of leaving it."""
    config = GameConfig(num_players=3, max_turns=MAX_TURNS)
    game = Game(config, seed=4)
    rng = np.random.default_rng(4)
    for _ in range(200):
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    for version in (0, 1):
        observer = Observer(config, version=version)
        game.scores = [30 * MAX_TURNS, 10, 51_000]  # 30 VP a turn for a million turns; just above the bound
        obs = observer.observe(game, 0)
        score = views(obs)["score"]
        assert list(score[:3]) == [OBS_HIGH, 0.2, OBS_HIGH] and obs.max() <= OBS_HIGH
        if version:
            assert views(obs)["projected_score"][0] == OBS_HIGH
        game.scores = [1, 2, 3]
        assert list(views(observer.observe(game, 0))["score"][:3]) == pytest.approx([0.02, 0.04, 0.06])


ARBITRARY = st.one_of(
    st.integers(-5, 30), st.integers(), st.booleans(), st.none(), st.floats(), st.text(max_size=5),
    st.lists(st.one_of(st.integers(-1, 8), st.text(max_size=6), st.none()), max_size=8),
    st.sampled_from([np.int64(3), np.float32(5), np.bool_(False), np.array(4), np.array([2, 3]), (3, 2) * 5]),
)

CONFIG_FIELDS = ("num_players", "board", "layout", "row_groups", "skyscrapers_per_color", "random_start", "max_turns")


@FAST
@given(field=st.sampled_from(CONFIG_FIELDS), value=ARBITRARY)
def test_property_any_config_value_is_refused_by_name_or_gives_a_playable_game(field, value):
    try:
        config = GameConfig(**{field: value})
    except InvalidValueError as error:
        assert field in str(error)
        return
    game = Game(config, seed=0)  # accepted: a config that plays
    for _ in range(30):
        if game.is_over:
            break
        game.apply(game.legal_actions()[0])


def test_game_takes_a_game_config_a_seed_and_a_generator_only():
    with pytest.raises(InvalidTypeError, match=r"config must be a GameConfig or None, got \{'num_players': 2\}"):
        Game({"num_players": 2})
    with pytest.raises(InvalidValueError, match=r"seed must be None or an int >= 0, got -1"):
        Game(GameConfig(), seed=-1)
    with pytest.raises(InvalidTypeError, match=r"seed must be None or an int >= 0, got \[1, 2\] of type list"):
        Game(GameConfig(), seed=[1, 2])
    with pytest.raises(InvalidTypeError, match=r"rng must be a numpy.random.Generator or None, got 3"):
        Game(GameConfig(), rng=3)
    assert Game(GameConfig(), seed=np.uint32(7)).to_dict() == Game(GameConfig(), seed=7).to_dict()


ENV_OPTIONS = ("reward", "render_mode", "learner_seat", "illegal_action_reward", "opponents", "num_players")


@FAST
@given(option=st.sampled_from(ENV_OPTIONS), value=ARBITRARY)
def test_property_any_env_option_is_refused_by_name_or_accepted(option, value):
    try:
        env = FifthAvenueEnv(**{option: value})
    except InvalidValueError as error:
        assert option in str(error)
        return
    env.reset(seed=0)
    assert env.action_masks().any()


@FAST
@given(seed=ARBITRARY, options=st.one_of(st.none(), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
                                         ARBITRARY))
def test_property_reset_takes_none_or_a_non_negative_int_seed_and_a_dict_of_options(seed, options):
    for env in (fifth_avenue_v0.env(num_players=2), FifthAvenueEnv(num_players=2)):
        good_seed = seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))
                                     and seed >= 0)
        good_options = options is None or isinstance(options, dict)
        if good_seed and good_options:
            env.reset(seed=seed, options=options)
            continue
        with pytest.raises(InvalidValueError, match="seed must be None or an int >= 0" if not good_seed
                           else "options must be None or a dict"):
            env.reset(seed=seed, options=options)
        assert getattr(env.unwrapped, "game", None) is None  # refused before anything was built


# ---- actions --------------------------------------------------------------------------------

SHAPES = st.sampled_from([(), (1,), (2,)])
ACTIONS = st.one_of(
    st.integers(-3, NUM_ACTIONS + 3), st.integers(), st.booleans(), st.none(), st.floats(),
    st.text(max_size=4), st.lists(st.integers(0, 146), max_size=2), st.tuples(st.integers(0, 146)),
    hnp.arrays(st.sampled_from([np.int64, np.uint8]), SHAPES, elements=st.integers(0, 146)),
    hnp.arrays(np.float32, SHAPES, elements=st.floats(0, 146, width=32)),
    hnp.arrays(np.bool_, SHAPES),
    st.sampled_from([np.int64(4), np.int16(-1), np.float64(4.0), np.bool_(True), complex(4), b"4", object()]),
)


def is_action_id(value):
    if isinstance(value, np.ndarray):
        return value.shape == () and value.dtype.kind in "iu" and 0 <= int(value) < NUM_ACTIONS
    return (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            and 0 <= value < NUM_ACTIONS)


@FAST
@given(action=ACTIONS)
def test_property_as_action_id_returns_an_int_id_or_says_what_is_allowed(action):
    if is_action_id(action):
        assert type(as_action_id(action)) is int and as_action_id(action) == int(action)
        return
    with pytest.raises(IllegalActionError, match=r"an action is an int id in \[0, 147\)") as refused:
        as_action_id(action)
    numeric_int = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
    assert isinstance(refused.value, ActionTypeError) != numeric_int


def positions(count=6):
    """Envs at a few moments of a seeded game (setup, turns, an auction)."""
    env = fifth_avenue_v0.env(num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    states = []
    for step in range(400):
        obs, *_ = env.last()
        if step % 67 == 0:
            states.append(env.unwrapped.game.to_dict())
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return states[:count]


POSITIONS = positions()


def aec_at(state):
    env = fifth_avenue_v0.env(num_players=3)
    env.reset(seed=0)
    env.unwrapped.game = Game.from_dict(state)
    env.agent_selection = env.possible_agents[env.unwrapped.game.actor]
    return env


@FAST
@given(index=st.integers(0, len(POSITIONS) - 1), action=ACTIONS)
def test_property_aec_step_refuses_cleanly_or_plays_a_legal_action(index, action):
    env = aec_at(POSITIONS[index])
    game = env.unwrapped.game
    before = (game.to_dict(), env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards))
    legal = game.legal_actions()
    try:
        env.step(action)
    except IllegalActionError:
        assert not (is_action_id(action) and int(action) in legal)
        assert (game.to_dict(), env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards)) == before
        return
    assert is_action_id(action) and int(action) in legal


@FAST
@given(index=st.integers(0, len(POSITIONS) - 1), action=ACTIONS)
def test_property_gym_step_refuses_what_is_no_id_ends_on_an_illegal_id_or_plays(index, action):
    game = Game.from_dict(POSITIONS[index])
    env = FifthAvenueEnv(num_players=3, learner_seat=game.actor)
    env.reset(seed=0)
    env.game = game  # the learner is asked in this position
    before = env.game.to_dict()
    legal = env.game.legal_actions()
    if not is_action_id(action):
        with pytest.raises(IllegalActionError, match=r"an action is an int id in \[0, 147\)"):
            env.step(action)
        assert env.game.to_dict() == before
        env.step(legal[0])  # the episode went on
        return
    _, reward, terminated, truncated, info = env.step(action)
    if int(action) in legal:
        assert env.game.to_dict() != before and "illegal_action" not in info
    else:
        assert (reward, terminated, truncated) == (-1.0, True, False) and "is not legal" in info["illegal_action"]
        assert env.game.to_dict() == before
