"""engine.checks, each check against its documented contract: what it returns, what it refuses
(NaN and infinities where only finite numbers are allowed, bools where numbers are), and an error
that names the value's name and what is allowed."""

import argparse
import math

import numpy as np
import pytest

from fifthave_env.engine import checks
from fifthave_env.engine.checks import InvalidTypeError, InvalidValueError

NOT_FINITE = [math.inf, -math.inf, math.nan, np.float64("inf"), np.float32("-inf"), np.float64("nan")]


@pytest.mark.parametrize("value", NOT_FINITE)
def test_real_refuses_nan_and_infinities_even_without_bounds(value):
    with pytest.raises(InvalidValueError, match=r"^lr must be a finite number \(int or float\), got"):
        checks.real("lr", value)
    with pytest.raises(InvalidValueError, match="^lr must be a finite number"):
        checks.real("lr", value, low=0, high=1e9)


def test_real_takes_ints_and_floats_as_plain_floats_and_refuses_other_types():
    for value in (0, 3, 2.5, np.int64(4), np.float32(0.5)):
        got = checks.real("x", value)
        assert type(got) is float and got == float(value)
    for value in (True, np.bool_(False), "1.0", None, [1.0], 1j):
        with pytest.raises(InvalidTypeError, match=r"^x must be a finite number \(int or float\), got .* of type"):
            checks.real("x", value)


def test_real_bounds_included_or_excluded():
    assert checks.real("x", 0, low=0) == 0.0
    assert checks.real("x", 1, high=1) == 1.0
    with pytest.raises(InvalidValueError, match=r"^x must be a number above 0, got 0.0$"):
        checks.real("x", 0, low=0, low_included=False)
    assert checks.real("x", 1e-12, low=0, low_included=False) == 1e-12
    with pytest.raises(InvalidValueError, match=r"^x must be a number from 0 to 1, got -0.5$"):
        checks.real("x", -0.5, low=0, high=1)
    with pytest.raises(InvalidValueError, match=r"^x must be a number from 0 to 1, got 1.5$"):
        checks.real("x", 1.5, low=0, high=1)
    with pytest.raises(InvalidValueError, match=r"^x must be a number up to 2, got 3.0$"):
        checks.real("x", 3, high=2)
    with pytest.raises(InvalidValueError, match=r"^x must be a number from 1, got 0.0$"):
        checks.real("x", 0, low=1)
    with pytest.raises(InvalidValueError, match=r"^x must be a number above 0 to 1, got 2.0$"):
        checks.real("x", 2, low=0, high=1, low_included=False)


def test_integer_is_exact_about_types_and_bounds():
    assert checks.integer("n", np.int16(7)) == 7 and type(checks.integer("n", np.int16(7))) is int
    assert checks.integer("n", 2, low=2, high=4) == 2 and checks.integer("n", 4, low=2, high=4) == 4
    for value in (True, 2.0, "2", None, np.bool_(True)):
        with pytest.raises(InvalidTypeError, match="^n must be an int from 2 to 4, got"):
            checks.integer("n", value, low=2, high=4)
    with pytest.raises(InvalidValueError, match=r"^n must be an int from 2 to 4, got 5$"):
        checks.integer("n", 5, low=2, high=4)
    with pytest.raises(InvalidValueError, match=r"^n must be an int from 2 to 4, got 1$"):
        checks.integer("n", 1, low=2, high=4)
    with pytest.raises(InvalidValueError, match=r"^n must be an int >= 0, got -1$"):
        checks.integer("n", -1, low=0)
    with pytest.raises(InvalidValueError, match=r"^n must be an int <= 3, got 4$"):
        checks.integer("n", 4, high=3)
    with pytest.raises(InvalidTypeError, match=r"^n must be an int, got 'a'"):
        checks.integer("n", "a")


def test_is_int_takes_python_and_numpy_integers_never_bools():
    assert checks.is_int(3) and checks.is_int(np.uint8(3))
    assert not any(checks.is_int(v) for v in (True, np.bool_(True), 3.0, "3", None))


def test_choice_compares_types_too():
    assert checks.choice("board", 5, (5, 6)) == 5
    assert checks.choice("board", np.int64(6), (5, 6)) == 6 and type(checks.choice("board", np.int64(6), (5, 6))) is int
    assert checks.choice("mode", "a", ("a", "b")) == "a"
    with pytest.raises(InvalidValueError, match=r"^board must be one of 5, 6, got 7 of type int$"):
        checks.choice("board", 7, (5, 6))
    with pytest.raises(InvalidTypeError, match=r"^board must be one of 5, 6, got True of type bool$"):
        checks.choice("board", True, (5, 6))
    with pytest.raises(InvalidTypeError, match=r"^flag must be one of 1, 0, got True"):
        checks.choice("flag", True, (1, 0))
    with pytest.raises(InvalidTypeError):
        checks.choice("board", 5.0, (5, 6))
    assert checks.choice("flag", False, (True, False)) is False


def test_boolean():
    assert checks.boolean("b", np.bool_(True)) is True and checks.boolean("b", False) is False
    for value in (0, 1, "yes", None):
        with pytest.raises(InvalidTypeError, match="^b must be True or False, got"):
            checks.boolean("b", value)


def test_sequence_and_mapping():
    assert checks.sequence("s", (1, 2)) == [1, 2] and checks.sequence("s", [1], length=1) == [1]
    with pytest.raises(InvalidTypeError, match=r"^s must be a list, got"):
        checks.sequence("s", "ab")
    with pytest.raises(InvalidTypeError, match=r"^s must be a list of 2 items, got"):
        checks.sequence("s", {1, 2}, length=2)
    with pytest.raises(InvalidValueError, match=r"^s must be a list of 2 items, got 3 items"):
        checks.sequence("s", [1, 2, 3], length=2)
    data = {"a": 1, "b": 2}
    assert checks.mapping("m", data) is data and checks.mapping("m", data, ("a", "b")) is data
    with pytest.raises(InvalidTypeError, match=r"^m must be a dict, got"):
        checks.mapping("m", [("a", 1)])
    with pytest.raises(InvalidValueError, match=r"^m lacks the key\(s\) 'c'; it must hold exactly 'a', 'b', 'c'$"):
        checks.mapping("m", data, ("a", "b", "c"))
    with pytest.raises(InvalidValueError, match=r"^m has the unknown key\(s\) 'b'; it must hold exactly 'a'$"):
        checks.mapping("m", data, ("a",))


def test_seed_and_options():
    assert checks.seed("seed", None) is None and checks.seed("seed", np.int32(0)) == 0
    with pytest.raises(InvalidValueError, match=r"^seed must be None or an int >= 0, got -1$"):
        checks.seed("seed", -1)
    for value in (1.0, True, "3"):
        with pytest.raises(InvalidTypeError, match="^seed must be None or an int >= 0, got"):
            checks.seed("seed", value)
    assert checks.options("options", None) is None and checks.options("options", {}) == {}
    with pytest.raises(InvalidTypeError, match="^options must be None or a dict, got"):
        checks.options("options", [])


def test_shown_gives_a_short_repr_and_the_type():
    assert checks.shown(1.5) == "1.5 of type float"
    long = checks.shown("x" * 200)
    assert long.endswith(" of type str") and "..." in long and len(long) <= 80 + len(" of type str")
    assert checks.shown("y" * 20) == repr("y" * 20) + " of type str"  # short: not shortened
    assert "digits" in checks.shown(10 ** 5000)  # a huge int is described, not converted (it would raise)


def test_cli_int():
    parse = checks.cli_int(1, 3)
    assert parse("2") == 2 and parse("1") == 1 and parse("3") == 3
    for text, message in (("0", "must be an int from 1 to 3, got 0"), ("4", "must be an int from 1 to 3, got 4"),
                          ("x", "must be an int from 1 to 3, got 'x'"), ("2.0", "got '2.0'")):
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            parse(text)
    assert checks.cli_int()("-7") == -7
    with pytest.raises(argparse.ArgumentTypeError, match=r"must be an int >= 0, got -1"):
        checks.cli_int(low=0)("-1")


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "Infinity", "0", "-2", "abc", ""])
def test_cli_positive_refuses_what_is_not_a_finite_positive_number(text):
    with pytest.raises(argparse.ArgumentTypeError, match=f"must be a finite number > 0, got {text!r}"):
        checks.cli_positive(text)


def test_cli_positive_takes_finite_positive_numbers():
    assert checks.cli_positive("0.25") == 0.25 and checks.cli_positive("1e-9") == 1e-9


def test_type_errors_are_also_value_errors():
    assert issubclass(InvalidTypeError, TypeError) and issubclass(InvalidTypeError, InvalidValueError)
    assert issubclass(InvalidValueError, ValueError)


class _LongRepr:
    def __repr__(self):
        return "L" * 100


@pytest.mark.parametrize("fresh", [False, True], ids=["module's", "new"])
def test_the_short_repr_bounds_every_kind_of_value(fresh):
    """At most 8 items of a list or tuple, 6 of a dict, 3 levels deep, 60 characters of a string or another
    object's repr (a fresh instance too, built in the test: the module's is built once, at import)."""
    short_repr = checks._ShortRepr() if fresh else checks._short_repr
    assert short_repr.repr([0] * 8) == "[0, 0, 0, 0, 0, 0, 0, 0]"
    assert short_repr.repr([0] * 9) == "[0, 0, 0, 0, 0, 0, 0, 0, ...]"
    assert short_repr.repr((0,) * 9) == "(0, 0, 0, 0, 0, 0, 0, 0, ...)"
    assert short_repr.repr({i: i for i in range(7)}) == "{0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, ...}"
    assert short_repr.repr([[[1]]]) == "[[[1]]]" and short_repr.repr([[[[1]]]]) == "[[[[...]]]]"
    assert short_repr.repr("a" * 58) == repr("a" * 58)
    assert short_repr.repr("a" * 100) == "'" + "a" * 27 + "..." + "a" * 28 + "'"
    assert short_repr.repr(_LongRepr()) == "L" * 28 + "..." + "L" * 29


def test_huge_ints_are_shown_by_their_number_of_digits():
    assert checks.int_text(2**200 - 1) == str(2**200 - 1)  # 200 bits: still in digits
    for value in (2**200, 10**100, -(10**80), 10**400):
        assert checks.int_text(value) == f"<an int of about {len(str(abs(value)))} digits>"


def test_shown_cuts_a_repr_longer_than_80_characters_to_77_and_dots():
    eighty = [10**7] * 8  # its repr is 80 characters
    assert checks.shown(eighty) == f"{eighty!r} of type list"
    eighty_one = [10**7] * 7 + [10**8]
    assert checks.shown(eighty_one) == f"{eighty_one!r}"[:77] + "... of type list"


def test_error_messages_in_full():
    """The whole message (the contract's tests match its start): the value as shown, keys joined by ', '."""
    def message(check, *args):
        with pytest.raises(InvalidValueError) as error:
            check(*args)
        return str(error.value), type(error.value)

    assert message(checks.real, "lr", "fast") == (
        "lr must be a finite number (int or float), got 'fast' of type str", InvalidTypeError)
    assert message(checks.real, "lr", 10**400) == (
        "lr must be a finite number (int or float), got <an int of about 401 digits>", InvalidValueError)
    assert message(checks.sequence, "xs", [1, 2], 3) == (
        "xs must be a list of 3 items, got 2 items: [1, 2] of type list", InvalidValueError)
    assert message(checks.mapping, "m", {"a": 1}, ["a", "b", "c"]) == (
        "m lacks the key(s) 'b', 'c'; it must hold exactly 'a', 'b', 'c'", InvalidValueError)
    assert message(checks.mapping, "m", {"a": 1, "b": 2, "x": 3, "y": 4}, ["a", "b"]) == (
        "m has the unknown key(s) 'x', 'y'; it must hold exactly 'a', 'b'", InvalidValueError)
    assert message(checks.options, "options", [1]) == ("options must be None or a dict, got [1] of type list",
                                                       InvalidTypeError)
    # a value of an allowed type but not allowed: a value error only; of another type: a type error too
    assert message(checks.choice, "mode", "c", ["a", "b"]) == ("mode must be one of 'a', 'b', got 'c' of type str",
                                                               InvalidValueError)
    assert message(checks.choice, "mode", 1.0, ["a", "b"])[1] is InvalidTypeError


def test_cli_seed_and_workers_take_their_documented_ranges():
    assert [checks.cli_seed(t) for t in ("0", str(checks.MAX_SEED))] == [0, 2**32 - 1]
    assert [checks.cli_workers(t) for t in ("1", "256")] == [1, 256]
    for parse, text, allowed in ((checks.cli_seed, "-1", "an int from 0 to 4294967295"),
                                 (checks.cli_seed, "4294967296", "an int from 0 to 4294967295"),
                                 (checks.cli_workers, "0", "an int from 1 to 256"),
                                 (checks.cli_workers, "257", "an int from 1 to 256")):
        with pytest.raises(argparse.ArgumentTypeError) as error:
            parse(text)
        assert str(error.value) == f"must be {allowed}, got {text}"
