"""Play Fifth Avenue in a terminal against scripted agents.

``fifthave play --seat 0 --opponents heuristic greedy random --board 5 --seed 1``

You see the board (the ansi picture) and your own hand before each of your
decisions, and the legal actions as a numbered list of readable names. Answer
with the number, the full name (``draw gray``), a word of one name only (``c``
for ``action C``, ``gray``) or any part of a name that matches one legal action
only; ``board`` shows the board again, ``legend`` explains its notation
(``bro[2x1]``), ``help`` explains, ``quit`` (or end of input) leaves. A wrong
answer is explained (the decision and what is legal in it) and asked again.
The opponents' actions are printed as they happen.
The game runs through the PettingZoo env, so agents see only their own seat.
"""

import argparse
from collections.abc import Callable, Sequence

import numpy as np

from fifthave_env import fifth_avenue_v0
from fifthave_env.engine import checks
from fifthave_env.runtime import INTERRUPTED_EXIT
from fifthave_env.engine.game import CHOOSE_ACTION_DECISION, DECISION_NAMES
from fifthave_env.render_text import render_text

from .base import LayoutObservations, give_sampler
from .registry import AgentNamesHelpFormatter, agent_names_help
from .tournament import agent_factory

CHOICE_HELP = {
    "action A": "take 3 skyscrapers into your reserve, draw 2 colored cards, move a commissioner",
    "action B": "place a shop, draw 2 colored cards, move a commissioner",
    "action C": "draw a black card, move a commissioner, draw 2 colored cards, move a commissioner",
    "action D": "score a district holding a commissioner, draw black cards, move a commissioner",
}
WHY_NOT_CHOICE = {  # what the rules ask of a turn action that is not always possible (R13)
    "b": "a shop to take from the active group of the shop row and a plot that can take it",
    "d": "an open district holding a commissioner, to score",
}
HELP = ("Answer with the number of an action, its full name, a word of one name only (a letter A-D when choosing "
        "an action), or a part of its name that matches only one legal action. Other words: 'board' (show the "
        "board again), 'legend' (what the board's signs mean), 'help', 'quit'.")
BOARD_LEGEND = """\
Board: one line per district (its number and name), then one box per plot, e.g. bro[G2x1]:
  bro       the plot's card color: gra gray, bro brown, vio violet, ora orange, gre green; sp a shop-only plot
  [G...]    shops on the plot: B boutique, J jeweler, G gallery, P perfume
  [...2x1]  a skyscraper of seat 2 (A: Alea, the dummy bidder), 1 storey high
  <white>   the commissioners in the district; markers:wb  the white / beige commissioner's markers (auctions)
  CLOSED    a building stop closed the district
row: the shop row in its groups ('.' a shop taken); box: the shops in the Central Park box
piles: color:value of the top card(cards left); black:(cards left)
seat lines: VP, skyscrapers in reserve / in the general supply / in Central Park, cards in hand; * the seat asked
AUCTION: the district (or Central Park) auctioned, the high bid, and each seat's cards laid"""


class QuitGame(Exception):
    """The player left the game."""


def match_action(answer: str, legal: Sequence[int], names: Sequence[str], decision: str | None = None) -> int:
    """The action id ``answer`` picks among ``legal`` (with readable ``names``), or a ValueError saying why not.

    Tried in order: a number from the list, a full name, a word that is a whole word of one name only
    (``c`` picks ``action C``: the letter is a word of that name, while every name holds a "c"), then a
    part of one name only. ``decision`` (e.g. ``"choose action"``) goes into the explanation of a miss.
    """
    text = " ".join(answer.lower().split())
    if not text:
        raise ValueError(f"please type a number from 1 to {len(legal)} or an action name")
    if text.isdigit():
        index = int(text)
        if 1 <= index <= len(legal):
            return legal[index - 1]
        raise ValueError(f"{index} is not in the list: type a number from 1 to {len(legal)}")
    lowered = [name.lower() for name in names]
    if text in lowered:
        return legal[lowered.index(text)]
    words = set(text.split())
    for hits in ([a for a, name in zip(legal, lowered) if words <= set(name.split())],
                 [a for a, name in zip(legal, lowered) if text in name]):
        if len(hits) == 1:
            return hits[0]
        if hits:
            options = ", ".join(repr(names[legal.index(a)]) for a in hits[:6])
            raise ValueError(f"{answer.strip()!r} matches several actions ({options}); be more precise")
    where = f" in this decision ({decision})" if decision else ""
    why = ""
    if decision == DECISION_NAMES[CHOOSE_ACTION_DECISION] and text.removeprefix("action ") in WHY_NOT_CHOICE:
        letter = text.removeprefix("action ")
        why = f": action {letter.upper()} needs {WHY_NOT_CHOICE[letter]}"
    shown = ", ".join(f"{i}) {name}" for i, name in enumerate(names[:12], 1)) + (", ..." if len(names) > 12 else "")
    raise ValueError(f"{answer.strip()!r} is not a legal action now{where}{why}. Legal: {shown} "
                     f"(type a number from 1 to {len(legal)} or a name)")


def ask(legal: Sequence[int], names: Sequence[str], read: Callable[[str], str], write: Callable[[str], object],
        show_board: Callable[[], None], decision: str | None = None) -> int:
    """Ask until the answer names one legal action; returns its id."""
    for i, name in enumerate(names, 1):
        extra = CHOICE_HELP.get(name)
        write(f"  {i:2d}) {name}" + (f"  - {extra}" if extra else ""))
    while True:
        try:
            answer = read("your choice> ")
        except EOFError:
            raise QuitGame() from None
        word = answer.strip().lower()
        if word in ("quit", "exit"):
            raise QuitGame()
        if word == "help":
            write(HELP)
            continue
        if word == "board":
            show_board()
            continue
        if word == "legend":
            write(BOARD_LEGEND)
            continue
        try:
            return match_action(answer, legal, names, decision)
        except ValueError as error:
            write(f"  {error}")


def play(seat: int = 0, opponents: Sequence[str] = ("heuristic",), board: int = 5, seed: int | None = None,
         read: Callable[[str], str] = input, write: Callable[..., object] = print) -> list[int] | None:
    """Play one game in the terminal; returns the final scores (None if the player quit)."""
    num_players = len(opponents) + 1
    if num_players not in (2, 3, 4):
        raise ValueError(f"choose 1 to 3 opponents (2-4 players), got {len(opponents)}")
    if not 0 <= seat < num_players:
        raise ValueError(f"seat must be 0..{num_players - 1} for {num_players} players, got {seat}")
    env = fifth_avenue_v0.env(num_players=num_players, board=board)
    env.reset(seed=seed)
    game = env.unwrapped.game
    seed_seq = np.random.SeedSequence(seed)
    others = [s for s in range(num_players) if s != seat]
    agents = {}
    for s, name, child in zip(others, opponents, seed_seq.spawn(len(others))):
        agents[s] = agent_factory(name)()
        agents[s].reset(env.unwrapped.config, s, np.random.default_rng(child))
        give_sampler(agents[s], game, s)
    layouts = LayoutObservations(env.unwrapped.config, agents)
    write(f"You are seat {seat}. Opponents: " + ", ".join(f"seat {s} {agents[s].name}" for s in others))
    write(HELP)

    def show_board() -> None:
        write(render_text(game, seat=seat))

    last_shown = None
    others_acted = True
    try:
        for name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            actor = game.actor
            if actor != seat:
                vector = layouts.observe(game, actor) if layouts.wants(actor) else observation["observation"]
                action = int(agents[actor].act(vector, observation["action_mask"]))
                write(f"  seat {actor} ({agents[actor].name}): {env.action_name(action)}")
                env.step(action)
                others_acted = True
                continue
            # The board again whenever something new happened; not after each card of one's own bid.
            moment = (game.turn, game.decision, game.auc_loc)
            if moment != last_shown or others_acted:
                write("")
                show_board()
                last_shown, others_acted = moment, False
            if game.decision == CHOOSE_ACTION_DECISION:
                write(f"Your turn (turn {game.turn}). Choose an action:")
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            names = [env.action_name(a) for a in legal]
            env.step(ask(legal, names, read, write, show_board, DECISION_NAMES[game.decision]))
    except QuitGame:
        write("You left the game.")
        return None
    write("")
    show_board()
    scores = list(game.scores)
    write("Final scores: " + ", ".join(f"seat {s}{' (you)' if s == seat else ''} {v}" for s, v in enumerate(scores)))
    write("Winner(s): " + ", ".join(f"seat {s}" for s in game.winners))
    return scores


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Play Fifth Avenue in the terminal against agents (scripted, search or trained).",
                                     epilog=f"agents: {agent_names_help()}", formatter_class=AgentNamesHelpFormatter)
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 starts)")
    parser.add_argument("--opponents", nargs="+", default=["heuristic", "heuristic", "heuristic"],
                        help="1-3 agent names, one per other seat in seat order")
    parser.add_argument("--board", type=int, default=5, choices=(5, 6))
    parser.add_argument("--seed", type=checks.cli_seed, default=None)
    args = parser.parse_args(argv)
    try:
        for name in args.opponents:
            agent_factory(name)
        play(seat=args.seat, opponents=args.opponents, board=args.board, seed=args.seed)
    except (ValueError, OSError) as error:  # OSError: e.g. a missing policy checkpoint
        parser.error(str(error))
    except KeyboardInterrupt:  # Ctrl-C: the shell's exit code for it (128 + SIGINT), not a success
        print("\nYou left the game.")
        raise SystemExit(INTERRUPTED_EXIT) from None


if __name__ == "__main__":
    main()
