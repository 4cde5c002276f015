"""Refresh the generated tables of docs/guide.md from the code, so that they cannot drift.

The prose of ``docs/guide.md`` is written by hand; the parts between
``<!-- generated:NAME -->`` and ``<!-- end:NAME -->`` are rewritten from:

- ``config``: the fields of ``GameConfig`` (defaults and their attribute docstrings);
- ``env-sections``: the Rewards and Episode End sections of the env's docstring;
- ``action-blocks`` / ``action-table``: ``engine.actions.BLOCKS`` and ``describe_table()``;
- ``observation``: ``observation.VIEWS`` with each feature's offsets.

It also draws ``docs/board.png``, the picture the guide shows: a seeded game
between heuristic agents, stopped in an auction halfway through.

Run: ``.venv/bin/python scripts/make_docs.py`` (rewrite both) or ``--check``
(exit 1 if the guide's generated parts are out of date; the picture is not checked).
"""

import argparse
import ast
import dataclasses
import inspect
import re
import sys
from pathlib import Path

import numpy as np

from fifthave_env import fifth_avenue_v0
from fifthave_env.engine.actions import BLOCKS, action_name, describe_table
from fifthave_env.engine.game import GameConfig
from fifthave_env.observation import OBS_SIZE, VIEWS, views

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide.md"
BOARD_PICTURE = ROOT / "docs" / "board.png"

# What the argument of each action block means, and which decision asks for it.
BLOCK_DOCS = {
    "choose": ("choose action", "action A, B, C or D of the turn"),
    "start": ("place start", "starting skyscraper on plot `id - 4`"),
    "tile": ("shop tile", "take a shop of type `id - 46` (boutique, jeweler, gallery, perfume) from the active group"),
    "shop": ("shop plot", "put the shop just taken on plot `id - 50`"),
    "draw": ("draw color", "take the top card of colored pile `id - 92` (gray, brown, violet, orange, green)"),
    "move": ("move commissioner", "commissioner `(id - 97) // 9` (white, beige) to location `(id - 97) % 9`"),
    "score": ("score district", "score district `id - 115`"),
    "bid": ("bid", "lay one card of kind `id - 122` (color * 3 + value index; black is color 5)"),
    "confirm": ("bid", "end the bidding turn with the cards laid (their total beats the high bid)"),
    "pass": ("bid", "leave the auction; the cards laid go back to the hand"),
    "build": ("build", "build `id - 142` skyscrapers (0-3) after winning"),
    "stop": ("build", "declare a building stop (a full district)"),
}


def config_table():
    """GameConfig's fields: their defaults and the docstring written under each one."""
    source = inspect.getsource(GameConfig)
    body = ast.parse(source).body[0].body
    docs = {}
    for node, following in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(following, ast.Expr) \
                and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str):
            docs[node.target.id] = " ".join(following.value.value.split())
    lines = ["| field | default | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(GameConfig):
        lines.append(f"| `{f.name}` | `{f.default!r}` | {docs.get(f.name, '')} |")
    return "\n".join(lines)


def env_sections(names=("Rewards", "Episode End")):
    """Sections of the env's docstring, under level-3 headings."""
    doc = fifth_avenue_v0.__doc__
    parts = []
    for name in names:
        match = re.search(rf"^## {name}\n(.*?)(?=^## |\Z)", doc, flags=re.S | re.M)
        if match is None:
            raise SystemExit(f"fifth_avenue_v0's docstring has no '## {name}' section")
        parts.append(f"### {name}\n\n{match.group(1).strip()}")
    return "\n\n".join(parts)


def action_blocks():
    lines = ["| ids | block | decision | meaning | first name |", "|---|---|---|---|---|"]
    for first, size, name in BLOCKS:
        ids = f"{first}" if size == 1 else f"{first}-{first + size - 1}"
        decision, meaning = BLOCK_DOCS[name]
        lines.append(f"| {ids} | `{name}` | {decision} | {meaning} | `{action_name(first)}` |")
    return "\n".join(lines)


def action_table():
    return "<details><summary>All 147 ids and their names</summary>\n\n```\n" + "\n".join(describe_table()) \
        + "\n```\n\n</details>"


def observation_table():
    probe = np.arange(OBS_SIZE, dtype=np.float32)
    named = views(probe)
    lines = ["| offsets | name | shape | meaning |", "|---|---|---|---|"]
    for name, shape, meaning in VIEWS:
        flat = named[name].reshape(-1)
        span = f"{int(flat[0])}" if flat.size == 1 else f"{int(flat[0])}-{int(flat[-1])}"
        lines.append(f"| {span} | `{name}` | {tuple(shape)} | {meaning.replace('|', '/')} |")
    return "\n".join(lines)


GENERATORS = {
    "config": config_table,
    "env-sections": env_sections,
    "action-blocks": action_blocks,
    "action-table": action_table,
    "observation": observation_table,
}


def refresh(text):
    """The guide with every generated part rewritten; raises if a marker is missing."""
    for name, generate in GENERATORS.items():
        pattern = re.compile(rf"(<!-- generated:{name} -->\n).*?(<!-- end:{name} -->)", flags=re.S)
        if not pattern.search(text):
            raise SystemExit(f"{GUIDE}: missing the markers <!-- generated:{name} --> ... <!-- end:{name} -->")
        text = pattern.sub(lambda m: m.group(1) + generate() + "\n" + m.group(2), text)
    return text


def draw_board_picture(path, seed=4):
    """A 4-player game between heuristic agents, in the first auction with a bid after turn 20."""
    from fifthave.agents import HeuristicAgent
    from fifthave_env.engine.game import BID_DECISION
    from fifthave_env.render_image import board_image
    from fifthave_env.replay import record_game

    record = record_game([HeuristicAgent() for _ in range(4)], GameConfig(num_players=4), seed=seed)
    for index, actor, action, game in record.replay():
        if game.turn >= 20 and game.decision == BID_DECISION and game.auc_high_bidder >= 0:
            caption = f"#{index + 1}  seat {actor}: {game.describe(action)}"
            board_image(game, caption=caption).save(path, optimize=True)
            return
    raise SystemExit(f"seed {seed}: no auction with a bid after turn 20; choose another seed")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/guide.md is out of date")
    args = parser.parse_args(argv)
    current = GUIDE.read_text()
    updated = refresh(current)
    if args.check:
        if updated != current:
            print(f"{GUIDE.relative_to(ROOT)} is out of date: run .venv/bin/python scripts/make_docs.py")
            return 1
        print(f"{GUIDE.relative_to(ROOT)} is up to date")
        return 0
    GUIDE.write_text(updated)
    draw_board_picture(BOARD_PICTURE)
    print(f"wrote {GUIDE.relative_to(ROOT)} and {BOARD_PICTURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
