"""The terminal game: answers by number or name, wrong answers explained and asked again, never a crash."""

import pytest

from fifthave.agents.play import main, match_action, play

LEGAL = [92, 93, 96]
NAMES = ["draw gray", "draw brown", "draw green"]


def test_an_answer_is_a_number_a_name_or_an_unambiguous_part_of_one():
    assert match_action("2", LEGAL, NAMES) == 93
    assert match_action("  Draw Green ", LEGAL, NAMES) == 96
    assert match_action("gray", LEGAL, NAMES) == 92


CHOICES = [0, 1, 2]
CHOICE_NAMES = ["action A", "action B", "action C"]


@pytest.mark.parametrize("answer,action", [("c", 2), ("C", 2), (" a ", 0), ("action b", 1), ("3", 2)])
def test_a_letter_picks_a_turn_action_although_every_name_holds_it(answer, action):
    assert match_action(answer, CHOICES, CHOICE_NAMES, "choose action") == action


@pytest.mark.parametrize("answer", ["d", "action D"])
def test_an_impossible_turn_action_is_explained_with_the_decision_and_what_is_legal(answer):
    with pytest.raises(ValueError) as caught:
        match_action(answer, CHOICES, CHOICE_NAMES, "choose action")
    assert str(caught.value) == (f"{answer!r} is not a legal action now in this decision (choose action): action D "
                                 "needs an open district holding a commissioner, to score. Legal: 1) action A, "
                                 "2) action B, 3) action C (type a number from 1 to 3 or a name)")


@pytest.mark.parametrize("answer,message", [
    ("4", "4 is not in the list: type a number from 1 to 3"),
    ("0", "0 is not in the list"),
    ("draw", "matches several actions"),
    ("pass", "'pass' is not a legal action now"),
    ("", "please type a number from 1 to 3"),
])
def test_a_wrong_answer_says_what_is_allowed(answer, message):
    with pytest.raises(ValueError, match=message):
        match_action(answer, LEGAL, NAMES)


def scripted(answers):
    """An input function answering from a list, then always '1'."""
    answers = list(answers)

    def read(prompt):
        return answers.pop(0) if answers else "1"
    return read


def test_a_whole_game_with_wrong_answers_on_the_way():
    out = []
    scores = play(seat=1, opponents=("heuristic", "greedy"), board=6, seed=3,
                  read=scripted(["nonsense", "99", "help", "board", "legend", "1"]), write=out.append)
    text = "\n".join(out)
    assert scores is not None and len(scores) == 3
    assert "'nonsense' is not a legal action now in this decision (place start). Legal: 1) start" in text
    assert "[...2x1]  a skyscraper of seat 2" in text  # the legend of the board notation
    assert "99 is not in the list" in text
    assert "Final scores:" in text and "seat 1 (you)" in text
    assert "seat 0 (heuristic):" in text  # the opponents' actions are shown
    assert "hand of seat 1" in text and "hand of seat 0" not in text  # only the player's own hand


def test_end_of_input_or_quit_leaves_the_game_cleanly():
    out = []

    def closed(prompt):
        raise EOFError
    assert play(seat=0, opponents=("random",), seed=1, read=closed, write=out.append) is None
    assert out[-1] == "You left the game."
    assert play(seat=0, opponents=("random",), seed=1, read=scripted(["quit"]), write=out.append) is None


def test_bad_settings_are_explained(capsys):
    with pytest.raises(ValueError, match="seat must be 0..2"):
        play(seat=3, opponents=("random", "random"))
    with pytest.raises(SystemExit):
        main(["--opponents", "wizard"])
    assert "unknown agent 'wizard'" in capsys.readouterr().err
