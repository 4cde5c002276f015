"""Seed an ``effects: true`` candidate-value run with the first labels of a run without them (issue 35).

The first labels of a candidate-value run (its held-out games and its ``games`` training games) are the same
games and the same search values with or without ``effects``: the effect features are drawn from a generator
of their own. Searching them again costs most of a run's first half hour; this script instead replays each
labelled game of ``SOURCE_RUN`` from its seed, the searched seat playing the candidate the stored labels rank
first (the search's own choice), and has ``fifthave.train.candidate_values``'s labeller record each decision
with the effect features. Every replayed observation and old candidate feature must equal the stored one,
bit for bit; a game that does not replay (a choice the stored labels cannot tell apart) is labelled afresh by
``play_labelled``. The chunks are written into ``RUN_DIR/labels`` as the run itself names them, so

    PYTHONPATH=$PWD:$PWD/scripts python scripts/seed_effect_labels.py runs/values-all-4p-r6 \\
        train/configs/candidate_values_effects_4p.json runs/values-effects-4p
    fifthave train --resume runs/values-effects-4p

trains what ``fifthave train train/configs/candidate_values_effects_4p.json --out runs/values-effects-4p`` trains
(the script writes the run's ``run_config.json`` as that command does) (``--check-chunk`` compares replayed chunks with chunks
labelled by the search, bit for bit: the held-out chunk ``held_out`` or a training chunk number).
"""

import argparse
import dataclasses
import json
import multiprocessing
import os
import time

import numpy as np

from fifthave.train.candidate_values import (CHUNK_GAMES, _as_arrays, _check_store, _load_chunk, collect,
                                             play_labelled)
from fifthave.train.config import load_run_config
from fifthave.train.run import RUN_CONFIG
from fifthave_env.runtime import WorkerPool, atomic_write_text
from fifthave.train.values_agent import AdviceFreeSearchAgent


class StoredChoices(AdviceFreeSearchAgent):
    """The searched seat of a replay: plays, at each searched decision, the candidate the next stored decision's
    labels rank first, and hands the labeller those labels (``last_search``) instead of searching."""

    def __init__(self, config, stored, cursor):
        super().__init__(config.samples, config.depth)
        self.stored, self.cursor = stored, cursor  # (observations, features, owners, targets), next decision

    def _search(self, candidates, default):
        owners, targets = self.stored[2], self.stored[3]
        rows = np.flatnonzero(owners == self.cursor)
        if len(rows) != len(candidates):
            raise _Diverged()
        self.cursor += 1
        values = targets[rows].astype(np.float64)
        self.last_search = (candidates, values, default)
        return candidates[int(values.argmax())]


class _Diverged(Exception):
    pass


def replay_chunk(job):
    """The labelled arrays of the games ``seeds``, stored (without effects) in ``stored``, with the effect features
    of ``config``; and how many games had to be labelled afresh."""
    config, seeds, stored = job
    width = stored[1].shape[1]
    cursor, observations, features, owners, fresh = 0, [], [], [], 0
    for seed in seeds:
        searcher = StoredChoices(config, stored, cursor)
        try:
            obs, feats, own = play_labelled(config, seed, searcher=searcher)[:3]
            rows = np.isin(stored[2], np.arange(cursor, searcher.cursor))
            same = (np.array_equal(np.asarray(obs, np.float32).reshape(len(obs), -1),
                                   stored[0][cursor:searcher.cursor])
                    and np.array_equal(np.asarray(feats, np.float32).reshape(len(feats), -1)[:, :width],
                                       stored[1][rows]))
        except _Diverged:
            same = False
        if not same:  # label it as the run would (its labels are the stored ones: the same search, same draws)
            obs, feats, own = play_labelled(config, seed)[:3]
            fresh += 1
        owners += [o + len(observations) for o in own]
        observations += obs
        features += feats
        cursor += len(obs)
    if cursor != len(stored[0]):
        raise SystemExit(f"the replay used {cursor} of the chunk's {len(stored[0])} decisions")
    arrays = _as_arrays(config, observations, features, owners, np.zeros(len(features)))
    if not np.array_equal(arrays[2], stored[2]):
        raise SystemExit("the replayed decisions have other candidates than the stored ones")
    return (*arrays[:3], stored[3]), fresh


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source_run", help="run directory whose labels/ holds the first labels without effects")
    parser.add_argument("config", help="the effects run's config (same labelling fields, effects: true)")
    parser.add_argument("run_dir")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--check-chunk", default=None, help="also label this chunk by the search and compare")
    args = parser.parse_args()
    run_config = load_run_config(args.config)
    config = run_config.trainer_config(args.run_dir)
    if not config.effects:
        raise SystemExit("the config must have effects: true")
    source = dataclasses.replace(config, effects=False)
    source_store, store = os.path.join(args.source_run, "labels"), os.path.join(args.run_dir, "labels")
    _check_store(source_store, source)  # the source labels are this config's games
    os.makedirs(store, exist_ok=True)
    _check_store(store, config)
    atomic_write_text(os.path.join(args.run_dir, RUN_CONFIG), json.dumps(run_config.to_dict(), indent=2))
    rng = np.random.default_rng([config.seed, 0xCA])  # train_values' order: held-out seeds, then training
    held = [int(s) for s in rng.integers(2**63, size=config.held_out_games)]
    train = [int(s) for s in rng.integers(2**63, size=config.games)]
    tags = [("held_out", held)] + [("train", train)]
    jobs, paths = [], []
    for tag, seeds in tags:
        for k in range(0, len(seeds), CHUNK_GAMES):
            name = f"{tag}_{k // CHUNK_GAMES:04d}.npz"
            if not os.path.exists(os.path.join(store, name)):
                jobs.append((config, seeds[k:k + CHUNK_GAMES], _load_chunk(os.path.join(source_store, name), source)))
                paths.append(os.path.join(store, name))
    started = time.perf_counter()
    with WorkerPool(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for path, (arrays, fresh) in zip(paths, pool.map(replay_chunk, jobs)):
            np.savez_compressed(path + ".tmp.npz", *arrays)
            os.replace(path + ".tmp.npz", path)
            print(f"{os.path.basename(path)}: {len(arrays[0])} decisions, {fresh} games labelled afresh "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)
    if args.check_chunk is not None:
        tag, seeds = ("held_out", held) if args.check_chunk == "held_out" else ("train", train)
        k = 0 if tag == "held_out" else int(args.check_chunk)
        name = f"{tag}_{k:04d}.npz"
        searched = collect(dataclasses.replace(config, workers=args.workers), len(seeds[k * CHUNK_GAMES:][:CHUNK_GAMES]),
                           _Seeds(seeds[k * CHUNK_GAMES:][:CHUNK_GAMES]))
        replayed = _load_chunk(os.path.join(store, name), config)
        same = all(np.array_equal(a, b) for a, b in zip(searched, replayed))
        print(f"{name}: labelled by the search and replayed are the same, bit for bit: {same}")
        if not same:
            raise SystemExit(1)


class _Seeds:
    """A stand-in generator whose ``integers`` gives fixed seeds (``collect`` draws its games' seeds first)."""

    def __init__(self, seeds):
        self.seeds = seeds

    def integers(self, high, size):
        assert size == len(self.seeds)
        return np.asarray(self.seeds, dtype=np.uint64)


if __name__ == "__main__":
    main()
