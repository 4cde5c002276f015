"""How noisy are the candidate-value labels? Replay labelled games and search each labelled decision again.

The labels of a candidate-value run (``fifthave.train.candidate_values``) are each candidate's mean value over
``samples`` determinizations (depth-1 heuristic rollouts), minus the decision's mean. This script replays the
run's held-out games (the same seeds, so the same positions: the stored labels are checked to come back bit for
bit), and at each labelled decision runs further searches with independent generators (the game itself is not
disturbed: the seat plays the original search's choice). It writes, per decision, the stored label and the values
of every further search, so that one can measure how often two independent 4-sample labelings agree on the best
candidate (the ceiling of "held-out agreement"), how far a network is from it, and what 16 or 64 samples change:

    PYTHONPATH=$PWD python scripts/label_noise.py runs/values-all-4p-r6 --games 40 --out build/noise.npz
"""

import argparse
import time

import numpy as np

from fifthave.train.candidate_values import CandidateValueConfig, _load_chunk  # noqa: F401
from fifthave.train.config import load_run_config
from fifthave.train.values_agent import AdviceFreeSearchAgent
from fifthave_env.engine.game import Game
from fifthave_env.env_common import game_config
from fifthave_env.observation import Observer
from fifthave_env.runner import GameHooks, play
from fifthave_env.runtime import WorkerPool
from fifthave.agents.registry import AGENT_FACTORIES


class RelabellingSearch(AdviceFreeSearchAgent):
    """The labelling search, which after each of its searches searches the same decision again with its own
    generators (``extra``: samples per further search), leaving its game and its own generator as they were."""

    def __init__(self, samples, depth, extra, rng):
        super().__init__(samples, depth)
        self.extra, self.extra_rng, self.records = extra, rng, []

    def _choose(self, view, candidates, default):
        chosen = super()._choose(view, candidates, default)
        first = self.last_search
        own_rng, own_samples = self.rng, self.samples
        self.rng = self.extra_rng
        further = []
        for samples in self.extra:
            self.samples = samples
            self._search(candidates, default)
            further.append(self.last_search[1])
        self.rng, self.samples, self.last_search = own_rng, own_samples, first
        self.records.append((candidates, first[1], further))
        return chosen


def replay(config, seed, extra, extra_seed):
    """``play_labelled``'s game of ``seed`` (advice-free, no student), with the further searches."""
    rng = np.random.default_rng(seed)
    cfg = game_config("win_loss", None, num_players=config.num_players, board=config.board)
    game = Game(cfg, rng=np.random.default_rng(rng.integers(2**63)))
    seat = int(rng.integers(config.num_players))
    players = []
    for s in range(config.num_players):
        if s == seat:
            agent = RelabellingSearch(config.samples, config.depth, extra, np.random.default_rng([extra_seed, seed]))
        else:
            agent = AGENT_FACTORIES[config.opponents[rng.integers(len(config.opponents))]]()
        agent.reset(cfg, s, np.random.default_rng(rng.integers(2**63)))
        players.append(agent)
    play(game, players, [GameHooks()])
    return players[seat].records


def _replay(job):
    return replay(*job)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--games", type=int, default=40, help="held-out games to replay (first N)")
    parser.add_argument("--extra", type=int, nargs="+", default=[4, 4, 16, 64],
                        help="samples of each further search")
    parser.add_argument("--extra-seed", type=int, default=35)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    config = load_run_config(f"{args.run_dir}/run_config.json").trainer_config(args.run_dir)
    assert not config.advice and config.depth == 1
    rng = np.random.default_rng([config.seed, 0xCA])
    seeds = [int(s) for s in rng.integers(2**63, size=config.held_out_games)][:args.games]
    stored = _load_chunk(f"{args.run_dir}/labels/held_out_0000.npz", config)
    started = time.perf_counter()
    jobs = [(config, seed, args.extra, args.extra_seed) for seed in seeds]
    if args.workers > 1:
        import multiprocessing
        with WorkerPool(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            games = list(pool.map(_replay, jobs))
    else:
        games = []
        for k, job in enumerate(jobs):
            games.append(_replay(job))
            print(f"game {k + 1}/{len(jobs)}: {time.perf_counter() - started:.0f} s", flush=True)
    first_actions, counts, label, further = [], [], [], [[] for _ in args.extra]
    for records in games:
        for candidates, values, extra in records:
            first_actions += [m[0] for m in candidates]
            counts.append(len(candidates))
            label += list(values - values.mean())
            for k, v in enumerate(extra):
                further[k] += list(v - v.mean())
    label = np.asarray(label, dtype=np.float32) * 10.0  # VALUE_SCALE, as the stored targets
    n = len(label)
    # the replay is the run's game: its first search's labels are the stored ones (the held-out file's first rows)
    same = np.array_equal(label, stored[3][:n])
    print(f"{len(counts)} decisions, {n} candidates in {time.perf_counter() - started:.0f} s; "
          f"stored labels reproduced: {same}", flush=True)
    np.savez_compressed(args.out, first_actions=np.asarray(first_actions), counts=np.asarray(counts),
                        label=label, extra_samples=np.asarray(args.extra),
                        further=np.asarray(further, dtype=np.float32) * 10.0, reproduced=same)


if __name__ == "__main__":
    main()
