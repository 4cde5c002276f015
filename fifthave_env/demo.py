"""A demonstration game between random legal players, printed with the ansi renderer."""

import argparse
from collections.abc import Sequence

import numpy as np

from . import fifth_avenue_v0
from .engine import checks


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--board", type=int, default=5, choices=(5, 6))
    parser.add_argument("--seed", type=checks.cli_seed, default=0)
    parser.add_argument("--every", type=checks.cli_int(1), default=10, help="print the board every N turns")
    args = parser.parse_args(argv)
    env = fifth_avenue_v0.env(num_players=args.players, board=args.board, render_mode="ansi")
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    last_turn = -1
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        turn = env.unwrapped.game.turn
        if turn != last_turn and turn % args.every == 0:
            print(env.render(), "\n")
            last_turn = turn
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    print(env.render())
    print("final scores:", info["scores"], "winners:", info["winners"])


if __name__ == "__main__":
    main()
