"""Learned values of the search's candidates: a network that chooses whole bids and board moves without searching.

The search agent (``fifthave.agents.search``) wins by comparing *candidates* - whole bids in an auction (pass, the
heuristic's bid, the cheapest raise per colour and building limit), or the legal moves of a board decision -
on sampled hidden cards. A network trained to predict its card-by-card choices learns little of that
(``results/training/RECIPE.md``): single searches are noisy labels, and a bid chosen one card at a time loses
what made the whole bid good. Here the network learns the search's *values* instead:

* **Labels.** Games with one seat played by a search with ``samples`` determinizations per decision (every
  candidate on every sample, common random numbers) against the ``opponents``; at each searched decision
  the record is the seat's observation, each candidate's features (``candidate_features``) and its mean value
  minus the heuristic candidate's (a paired difference, far less noisy than either value).
* **Fit.** Squared error of the network's value for each candidate against that difference, so the network
  averages the search's noise over many positions instead of copying single argmaxes. Adam's step size falls
  linearly to 0, and ``ensemble`` networks with different seeds are averaged: both make the choices depend
  less on the seed and the last minibatches.
* **DAgger.** With ``dagger_games``, the fitted ensemble then plays the searched seat in further games, the
  search only labelling its decisions, and the ensemble is fitted again on all labels (or, with
  ``replay_rounds``, on the latest label sets): the labels then cover the positions the network's own play
  reaches (Ross, Gordon and Bagnell, 2011).
* **Play.** ``CandidateValueAgent`` (``fifthave.agents.learned``, numpy alone) lists the same candidates as the search and plays
  the one the network values most, with no bonus for the heuristic's candidate (the fit shrinks the values
  toward 0, so the search's bonus would outweigh nearly every deviation); it needs no sampler and no
  rollout. Decisions outside its ``played_groups`` are the HeuristicAgent's.

``fifthave train train/configs/candidate_values_4p.json`` runs it; the network is written
as the agent file ``RUN_DIR/values.npz``, which plays as ``values:PATH`` (or its bare path) in
``fifthave tournament``.
"""

import dataclasses
import hashlib
import json
import multiprocessing
import os
import shutil
import tempfile
import time
from typing import NamedTuple

import numpy as np
import torch

from fifthave.agents.base import reads_view
from fifthave.agents.search import Rollout, SearchAgent
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.agents.view import SeatView, StateView
from fifthave_env.engine.actions import CHOOSE_ACTION, DECLARE_STOP
from fifthave_env.engine.game import ACTION_B, Game
from fifthave_env.observation import OBS_SIZES, Observer, views
from fifthave_env.runner import GameHooks, play
from fifthave_env.runtime import WorkerPool, atomic_write_text

from .config import CandidateValueConfig  # noqa: F401 (its flat config, imported from here before)
from .generations import cpu_seconds
from .league import pfsp_weights
from fifthave.agents.agentfile import DESTINATION_FEATURES, AgentFileError, candidate_width, read_agent_file
from fifthave.agents.learned import destination_features, effect_features

from .values_agent import (
    VALUE_SCALE,
    AdviceFreeSearchAgent,
    CandidateValueEnsemble,
    CandidateValueNet,
    LabellingValueAgent,
    candidate_features,
    load_values,
    save_values,
)


class LabelledGame(NamedTuple):
    """The searched seat's decisions of one labelled game, and how the game went for that seat."""

    observations: list
    features: list
    """Per candidate: its features (``candidate_features``, then the effect features with ``config.effects``)."""
    owners: list
    """Per candidate: the index of its decision in ``observations``."""
    targets: list
    """Per candidate: the search's value minus the heuristic candidate's."""
    opponents: tuple
    """The league entry seated at each other seat, in seat order (a generation as ``values:PATH``)."""
    win_share: float
    """The searched seat's share of the win (1 / k of k winners; 0 in a truncated game)."""


def play_labelled(config, seed, student=None, searcher=None, generations=(), weights=None):
    """One game, one seat searched; its ``LabelledGame``. With ``student`` (the path of a saved network),
    that network plays the seat and the search only labels its decisions. ``searcher``: an agent seated
    there instead of the config's search (one that records more about each search, in the same game).
    ``generations``: paths of the run's saved networks, league entries after ``config.opponents``; ``weights``:
    each entry's probability of a seat (None: all alike)."""
    rng = np.random.default_rng(seed)
    cfg = config.labelling_game()
    game = Game(cfg, rng=np.random.default_rng(rng.integers(2**63)))
    observer = Observer(cfg, version=config.observation_layout)
    seat = int(rng.integers(config.num_players))
    league = list(config.opponents) + [f"values:{path}" for path in generations]
    players, seated = [], ["heuristic"] * config.num_players
    for s in range(config.num_players):
        if s == seat and searcher is not None:
            agent = searcher
        elif s == seat and student:
            net, groups, layout, meta = load_values(student)  # not cached: a rerun may rewrite the file
            agent = LabellingValueAgent(net, groups, layout, config.samples, config.depth, meta.get("advice", True),
                                        meta.get("effects", False), meta.get("destinations", False),
                                        config.teacher_advice, meta.get("bid_destinations", False))
        elif s == seat and not config.advice:
            agent = AdviceFreeSearchAgent(config.samples, config.depth, config.teacher_advice)
        elif s == seat:
            agent = SearchAgent(samples=config.samples, depth=config.depth, groups=config.groups)
        else:
            seated[s] = league[rng.integers(len(league)) if weights is None else rng.choice(len(league), p=weights)]
            agent = agent_factory(seated[s])()
        agent.reset(cfg, s, np.random.default_rng(rng.integers(2**63)))
        players.append(agent)
    if config.seated_rollouts:  # the search rolls each seat out with the agent seated there
        players[seat].rollout = Rollout([agent_factory(name) for name in seated], cfg)
    # the effect features' determinizations come from a generator of their own: the game and the search draw
    # as in a run without them
    effects_rng = np.random.default_rng([0xEF, seed]) if config.effects else None
    labeller = _Labeller(players[seat], observer, cfg, effects_rng)
    play(game, players, [labeller])
    won = not game.truncated and seat in game.winners
    return LabelledGame(labeller.observations, labeller.features, labeller.owners, labeller.targets,
                        tuple(seated[:seat] + seated[seat + 1:]), 1 / len(game.winners) if won else 0.0)


class _Labeller(GameHooks):
    """After each decision of the searched seat that ran a search: the seat's observation and, per candidate, its
    features (with ``effects_rng``, also ``effect_features`` on a determinization it draws) and its value minus
    the heuristic candidate's."""

    def __init__(self, searcher, observer, cfg, effects_rng=None):
        self.searcher, self.observer, self.cfg, self.effects_rng = searcher, observer, cfg, effects_rng
        self.observations, self.features, self.owners, self.targets = [], [], [], []

    def choose_agent(self, game, seat, agent):
        self.searcher.last_search = None
        return agent

    def decided(self, decision):
        searcher = self.searcher
        if decision.agent is not searcher or searcher.last_search is None:
            return
        game, s = decision.game, decision.seat
        candidates, values, default = searcher.last_search
        observation = self.observer.observe(game, s)
        if reads_view(searcher):
            view = StateView(game, s)
        else:  # a network that reads the observation (a student)
            view = SeatView(observation, game.action_mask(), self.cfg)
        base = values[candidates.index(default)] if default in candidates else values.mean()
        effects = (effect_features(searcher.sampler(self.effects_rng), s, candidates)
                   if self.effects_rng is not None else None)
        for i, (macro, value) in enumerate(zip(candidates, values)):
            features = candidate_features(view, macro, default)
            self.features.append(features if effects is None else np.concatenate([features, effects[i]]))
            self.owners.append(len(self.observations))
            self.targets.append(value - base)
        self.observations.append(observation.copy())


def _play_labelled(job):
    return play_labelled(*job)


# what the labelled games depend on (and, when not their defaults, advice, teacher_advice, effects, seated_rollouts,
# past_generations, generation_share, pfsp_power and pfsp_window: see _check_store)
LABELLING_FIELDS = ("seed", "num_players", "board", "observation_layout", "groups", "opponents", "samples", "depth",
                    "games", "held_out_games", "dagger_games")
CHUNK_GAMES = 50  # games per saved file of labels: an interrupted run loses at most this many


def _as_arrays(config, observations, features, owners, targets):
    return (np.asarray(observations, dtype=np.float32).reshape(-1, OBS_SIZES[config.observation_layout]),
            np.asarray(features, dtype=np.float32).reshape(-1, candidate_width(config.effects)),
            np.asarray(owners, dtype=np.int64), np.asarray(targets, dtype=np.float32) * VALUE_SCALE)


def _load_chunk(path, config):
    with np.load(path, allow_pickle=False) as f:
        arrays = tuple(f[f"arr_{i}"] for i in range(4))
    observations, features, owners, targets = arrays
    if (observations.shape[1:] != (OBS_SIZES[config.observation_layout],) or features.shape[1:] != (candidate_width(config.effects),)
            or not len(features) == len(owners) == len(targets)
            or (len(owners) and (owners.min() < 0 or owners.max() >= len(observations)))):
        raise ValueError(f"{path} does not hold labels of this config; delete it to label those games again")
    return arrays


def chunk_paths(store, tag, games):
    """The files ``collect`` saves ``games`` games of ``tag`` in, ``CHUNK_GAMES`` a file."""
    return [os.path.join(store, f"{tag}_{k:04d}.npz") for k in range(-(-games // CHUNK_GAMES))]


def collect(config, games, rng, log=print, store=None, tag="labels", student=None, generations=(), weights=None):
    """Labelled data of ``games`` games as arrays (observations, candidate features, each candidate's
    decision, scaled value differences); ``student``, ``generations`` and ``weights`` as in ``play_labelled``.
    Each game's seed is drawn from ``rng`` first, so the data does not depend on the number of workers. With
    ``store`` (a directory), every ``CHUNK_GAMES`` games are saved there as ``TAG_K.npz`` (with who sat in the
    other seats and the searched seat's win share, ``league_results``) and a rerun loads them instead of playing
    them again: an interrupted run resumes with the same data."""
    seeds = [int(s) for s in rng.integers(2**63, size=games)]
    chunks = [seeds[k:k + CHUNK_GAMES] for k in range(0, games, CHUNK_GAMES)]
    paths = chunk_paths(store, tag, games) if store else [None] * len(chunks)
    started = time.perf_counter()
    pool = None
    if config.workers > 1 and games > 1 and not all(p and os.path.exists(p) for p in paths):
        # an executor's shutdown waits for its workers' pieces; a Pool's could wait forever for a lost one
        pool = WorkerPool(min(config.workers, games), mp_context=multiprocessing.get_context("spawn"))
    parts, done = [], 0
    try:
        for chunk, path in zip(chunks, paths):
            if path and os.path.exists(path):
                parts.append(_load_chunk(path, config))
            else:
                jobs = [(config, seed, student, None, tuple(generations), weights) for seed in chunk]
                results = pool.map(_play_labelled, jobs) if pool else map(_play_labelled, jobs)
                observations, features, owners, targets, opponents, shares = [], [], [], [], [], []
                for game in results:
                    owners += [o + len(observations) for o in game.owners]
                    observations += game.observations
                    features += game.features
                    targets += game.targets
                    opponents.append(game.opponents)
                    shares.append(game.win_share)
                parts.append(_as_arrays(config, observations, features, owners, targets))
                if path:
                    np.savez_compressed(path + ".tmp.npz", *parts[-1], np.array(opponents, dtype=str),
                                        np.array(shares))
                    os.replace(path + ".tmp.npz", path)  # whole files only: an interruption leaves none half-written
            done += len(chunk)
            log(f"  {tag}: {done}/{games} games ({time.perf_counter() - started:.0f} s)", flush=True)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return concatenate(config, parts)


def league_results(paths):
    """Per league entry seated in the labelled games saved in ``paths`` (``collect``'s files): [the searched seat's
    win shares summed, the seats the entry held] - a game counts once for each seat an entry held in it."""
    totals = {}
    for path in paths:
        with np.load(path, allow_pickle=False) as f:
            if "arr_5" not in f.files:
                raise ValueError(f"{path} was saved before the labels kept who sat where; delete it to label "
                                 "those games again")
            opponents, shares = f["arr_4"], f["arr_5"]
        for row, share in zip(opponents, shares):
            for name in row:
                total = totals.setdefault(str(name), [0.0, 0])
                total[0] += float(share)
                total[1] += 1
    return totals


def league_weights(config, results, generations):
    """Each league entry's probability of a seat: the entries of ``config.opponents`` share their part in
    proportion to ``pfsp_weights`` of the student's win share against their name in ``results``
    (``league_results``; a name not met: the fair share; None: alike, before PFSP has results), and the
    ``generations`` entries after them hold ``config.generation_share`` together (0: each an entry's uniform part)."""
    if results is None:
        scripted = np.full(len(config.opponents), 1 / len(config.opponents))
    else:
        fair = 1 / config.num_players
        rates = [results[name][0] / results[name][1] if name in results else fair for name in config.opponents]
        scripted = pfsp_weights(rates, config.pfsp_power, config.pfsp_min_weight)
    if config.generation_share and generations:
        share = config.generation_share
        return np.concatenate([scripted * (1 - share), np.full(generations, share / generations)])
    entries = len(config.opponents) + generations
    return np.concatenate([scripted * len(config.opponents) / entries, np.full(generations, 1 / entries)])


def pfsp_draws(config, paths, generations):
    """A round's PFSP: each league entry's probability of a seat (``league_weights`` of the results in ``paths``,
    the label files of the latest ``config.pfsp_window`` DAgger rounds) and, for the run's report, each name of
    ``config.opponents`` with its probability of a seat (``drawn``) and the win share it was weighted by with the
    seats it held (``win_shares``)."""
    results = league_results(paths)
    weights = league_weights(config, results, generations)
    names, scripted = list(dict.fromkeys(config.opponents)), np.array(config.opponents)
    record = {"drawn": {name: round(float(weights[:len(scripted)][scripted == name].sum()), 4) for name in names},
              "win_shares": {name: [round(results[name][0] / results[name][1], 4), results[name][1]]
                             for name in names if name in results}}
    return weights, record


def concatenate(config, parts):
    """One data set of several (observations, features, owners, targets) parts; owners renumbered."""
    offsets = np.cumsum([0] + [len(p[0]) for p in parts[:-1]])
    return (np.concatenate([p[0] for p in parts]).reshape(-1, OBS_SIZES[config.observation_layout]),
            np.concatenate([p[1] for p in parts]).reshape(-1, candidate_width(config.effects)),
            np.concatenate([p[2] + offset for p, offset in zip(parts, offsets)]).astype(np.int64),
            np.concatenate([p[3] for p in parts]).astype(np.float32))


def decision_bounds(owners):
    """``(starts, ends)`` of each decision's candidate rows (``owners`` sorted: a decision's candidates in a row)."""
    starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]]) if len(owners) else np.zeros(0, np.int64)
    return starts, np.r_[starts[1:], len(owners)]


def evaluate_fit(net, data):
    """(squared error, share of decisions where the network's best candidate is the labels' best)."""
    observations, features, owners, targets = (torch.as_tensor(a) for a in data)
    with torch.no_grad():
        predicted = net(observations, features, owners).numpy()
    targets = targets.numpy()
    owners = owners.numpy()
    error = float(np.mean((predicted - targets) ** 2))
    same = [predicted[a:b].argmax() == targets[a:b].argmax() for a, b in zip(*decision_bounds(owners)) if b - a > 1]
    return error, float(np.mean(same)) if same else float("nan")


def ends_nearer(features):
    """Which candidates (``features``' rows, whose first columns are the first action's one-hot) bring the game's
    end nearer (R27): the A/B/C/D choice of B, which places a tile of the row, and a declared building stop."""
    return (features[:, CHOOSE_ACTION + ACTION_B] == 1) | (features[:, DECLARE_STOP] == 1)


def with_end_bonus(features, targets, bonus):
    """``targets`` with ``bonus`` (a number, or one per row) added to every candidate that brings the game's end
    nearer (``ends_nearer``)."""
    targets = targets.copy()
    ends = ends_nearer(features)
    targets[ends] += np.broadcast_to(bonus, targets.shape)[ends]
    return targets


def end_bonuses(config, observations, owners):
    """The end bonus of each candidate (rows of ``owners``, the index of its decision's observation):
    ``end_bonus``, and ``stall_bonus`` more at a decision of turn ``stall_turn`` or later (the turn read from the
    observation's ``progress``, a share of the labelling games' ``max_turns``)."""
    if not config.stall_bonus:
        return config.end_bonus
    max_turns = config.labelling_game().max_turns
    turns = np.rint([views(o)["progress"][0] * np.float64(max_turns) for o in observations])[owners]
    return config.end_bonus + config.stall_bonus * (turns >= config.stall_turn)


def with_tie_bonus(owners, targets, bonus):
    """``targets`` with ``bonus`` added to the first candidate of every decision whose targets are all equal
    (``owners`` sorted: each decision's candidates in a row, in the order the agent lists them)."""
    starts = decision_bounds(owners)[0]
    tied = np.maximum.reduceat(targets, starts) == np.minimum.reduceat(targets, starts)
    targets = targets.copy()
    targets[starts[tied]] += bonus
    return targets


def with_destinations(config, data):
    """``data`` (labels as stored) as the network reads them: with ``config.destinations`` each candidate's features
    followed by its ``destination_features`` (with ``config.bid_destinations``, the bids' rows too), computed from the
    decision's observation; else ``data`` itself."""
    if not config.destinations:
        return data
    observations, features, owners, targets = data
    extra = [destination_features(observations[owners[a]], features[a:b], config.bid_destinations)
             for a, b in zip(*decision_bounds(owners))]
    extra = np.concatenate(extra) if extra else np.zeros((0, DESTINATION_FEATURES), np.float32)
    return observations, np.concatenate([features, extra], axis=1), owners, targets


def fit(config, data, held_out, log=print):
    """The ensemble fitted to ``data`` (labels as stored): ``config.ensemble`` networks, each with its own seed and
    one torch thread, so the weights do not depend on the machine's cores. With ``config.workers`` > 1 that many
    spawned processes fit networks at once, the same weights bit for bit (the labels reach them as memory-mapped
    files in a temporary directory of ``config.run_dir``, or of the system's if it does not exist)."""
    data, held_out = with_destinations(config, data), with_destinations(config, held_out)
    if config.end_bonus or config.stall_bonus:  # first: a tie that holds a candidate ending the game sooner is no tie
        data = (*data[:3], with_end_bonus(data[1], data[3], end_bonuses(config, data[0], data[2])))
    if config.tie_bonus:
        data = (*data[:3], with_tie_bonus(data[2], data[3], config.tie_bonus))
    ensemble = CandidateValueEnsemble(OBS_SIZES[config.observation_layout], config.embedding_width, config.ensemble,
                                      config.head_width, config.effects, config.destinations)
    workers = min(config.workers or 1, config.ensemble)
    if workers > 1:
        states = _fit_in_processes(config, data, held_out, workers, log)
    else:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            states = [_fit(config, member, data, held_out, log).state_dict() for member in range(config.ensemble)]
        finally:
            torch.set_num_threads(threads)
    for target, state in zip(ensemble.members, states):
        target.load_state_dict(state)
    return ensemble


def _fit_in_processes(config, data, held_out, workers, log):
    """The members' weights (state dicts), fitted in ``workers`` spawned processes; each one's log lines are
    passed to ``log`` when it ends, in member order."""
    directory = config.run_dir if os.path.isdir(config.run_dir) else None
    with tempfile.TemporaryDirectory(prefix="fit-", dir=directory) as scratch:
        # files, not pickles: the labels of a long run take gigabytes, and mapped pages are shared, not copied
        for name, arrays in (("data", data), ("held_out", held_out)):
            for k, array in enumerate(arrays):
                np.save(os.path.join(scratch, f"{name}{k}.npy"), array)
        with WorkerPool(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            results = pool.map(_fit_member, [(config, member, scratch) for member in range(config.ensemble)])
            states = []
            for state, lines in results:
                for line in lines:
                    log(line, flush=True)
                states.append({name: torch.as_tensor(value) for name, value in state.items()})
    return states


def _fit_member(job):
    """One member fitted in a worker of ``_fit_in_processes``: (its weights as numpy arrays, its log lines)."""
    config, member, scratch = job
    torch.set_num_threads(1)

    def mapped(name, count=4):  # copy-on-write: writable for torch, nothing written back
        return tuple(np.load(os.path.join(scratch, f"{name}{k}.npy"), mmap_mode="c") for k in range(count))

    lines = []
    net = _fit(config, member, mapped("data"), mapped("held_out"), lambda line, **_: lines.append(line))
    return {name: value.numpy() for name, value in net.state_dict().items()}, lines


def _fit(config, member, data, held_out, log):
    log(f"  network {member + 1}/{config.ensemble}", flush=True)
    rng = np.random.default_rng([config.seed, 0xF17, member])
    torch.manual_seed(int(rng.integers(2**63)))
    net = CandidateValueNet(OBS_SIZES[config.observation_layout], config.embedding_width, config.head_width,
                            config.effects, config.destinations)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    steps = config.epochs * -(-len(data[0]) // config.batch_size)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1 - step / steps)
    observations, features, owners, targets = (torch.as_tensor(a) for a in data)
    decisions = len(observations)
    # candidate rows of each decision, to draw minibatches of whole decisions
    order_by_owner = np.argsort(owners.numpy(), kind="stable")
    counts = np.bincount(owners.numpy(), minlength=decisions)
    first = np.r_[0, np.cumsum(counts)[:-1]]
    for epoch in range(config.epochs):
        net.train()
        perm = rng.permutation(decisions)
        total = 0.0
        for start in range(0, decisions, config.batch_size):
            chosen = perm[start:start + config.batch_size]
            rows = np.concatenate([order_by_owner[first[d]:first[d] + counts[d]] for d in chosen])
            local = np.repeat(np.arange(len(chosen)), counts[chosen])
            predicted = net(observations[chosen], features[rows], torch.as_tensor(local))
            loss = fit_loss(config, predicted, targets[rows], torch.as_tensor(local), len(chosen))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(rows)
        net.eval()
        error, best = evaluate_fit(net, held_out)
        log(f"  epoch {epoch + 1}/{config.epochs}: train loss {total / len(targets):.4f}, "
            f"held-out loss {error:.4f}, best candidate agrees {best:.3f}", flush=True)
    return net


def listwise_loss(predicted, targets, owner, decisions, temperature):
    """Mean over ``decisions`` of the cross-entropy of softmax(``predicted`` / T) against softmax(``targets`` /
    T), each softmax over the candidates of one decision (``owner`` [N]: each candidate's decision, 0 to
    ``decisions`` - 1)."""
    def log_softmax(x):
        top = torch.full((decisions,), -torch.inf).scatter_reduce(0, owner, x.detach(), "amax")
        shifted = x - top[owner]
        return shifted - torch.zeros(decisions).index_add(0, owner, shifted.exp()).log()[owner]
    return -(log_softmax(targets / temperature).exp() * log_softmax(predicted / temperature)).sum() / decisions


def fit_loss(config, predicted, targets, owner, decisions):
    """The fit's loss of a minibatch: ``config.mse_weight`` times the squared error plus
    ``config.listwise_weight`` times ``listwise_loss`` (the squared error alone by default, as before)."""
    loss = torch.nn.functional.mse_loss(predicted, targets)
    if config.mse_weight != 1:
        loss = config.mse_weight * loss
    if config.listwise_weight:
        loss = loss + config.listwise_weight * listwise_loss(predicted, targets, owner, decisions,
                                                             config.listwise_temperature)
    return loss


def _check_store(store, config):
    """The labels in ``store`` belong to ``config`` (all but the fit and evaluation settings), or it is new."""
    labelling = {k: v for k, v in dataclasses.asdict(config).items() if k in LABELLING_FIELDS}
    if not config.advice:  # recorded only when false: stores written before the option still match
        labelling["advice"] = False
    for name in ("teacher_advice", "effects", "seated_rollouts", "past_generations", "generation_share",
                 "pfsp_power"):  # likewise
        if getattr(config, name):
            labelling[name] = getattr(config, name)
    if config.pfsp_power:
        labelling["pfsp_min_weight"] = config.pfsp_min_weight
        if config.pfsp_window != 1:
            labelling["pfsp_window"] = config.pfsp_window
    path = os.path.join(store, "config.json")
    if os.path.exists(path):
        with open(path) as f:
            saved = json.load(f)
        if saved != labelling:
            raise ValueError(f"{store} holds labels of another config ({saved}); use a new run_dir or delete it")
    else:
        atomic_write_text(path, json.dumps(labelling))


NOT_FIT_FIELDS = ("run_dir", "workers", "eval_games", "eval_seed", "dagger_rounds", "replay_rounds", "generation_share",
                  "pfsp_power", "pfsp_min_weight", "pfsp_window")
"""Settings no generation's weights depend on but through the labels they choose, which ``fit_key`` hashes (a run
resumed with more rounds, or a window that leaves a fit's labels as they were, refits none of its generations)."""


def replay_window(config, label_sets):
    """Of ``label_sets`` (the first games', then each DAgger round's, in order; labels or anything standing for
    them), the latest ``config.replay_rounds``, or all of them if it is 0."""
    return label_sets[-config.replay_rounds:] if config.replay_rounds else label_sets


def replayed(config, label_sets):
    """The labels a fit reads: those of ``replay_window``, as one data set."""
    return concatenate(config, replay_window(config, label_sets))


def fit_key(config, data):
    """The sha256 of what a fit of ``data`` depends on: the labels and every setting but ``NOT_FIT_FIELDS``."""
    digest = hashlib.sha256()
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in NOT_FIT_FIELDS}
    if not config.stall_bonus:  # then neither changes the fit: the keys of runs made before they existed hold
        del settings["stall_bonus"], settings["stall_turn"]
    if not config.teacher_advice:  # likewise
        del settings["teacher_advice"]
    if not config.bid_destinations:  # likewise
        del settings["bid_destinations"]
    digest.update(json.dumps(settings, sort_keys=True).encode())
    for array in data:
        digest.update(f"{array.dtype}{array.shape}".encode())
        digest.update(np.ascontiguousarray(array))  # the buffer itself: the labels' observations are ~1 GB
    return digest.hexdigest()


def _fit_of(path, key):
    """The report of the agent file at ``path`` if it holds a fit with ``fit_key`` ``key``, else None."""
    try:
        meta = read_agent_file(path)[0]
    except AgentFileError:  # none yet, or damaged: fitted again
        return None
    report = meta["training"]["report"]
    return {**report, "weights_sha256": meta["weights_sha256"]} if report.get("fit_key") == key else None


def stored_generation(student, final, key, log=print):
    """The report (with ``weights_sha256``) of the generation to save at ``student`` if an earlier run fitted it
    (``fit_key`` ``key``): the file there, or ``final``, the network a run with fewer rounds ended with, copied
    there. None if neither holds it. A resumed run keeps it instead of fitting the same labels again."""
    report = _fit_of(student, key)
    if report is None:
        report = _fit_of(final, key)
        if report is not None:
            shutil.copyfile(final, student)
    if report is not None:
        log(f"  kept {os.path.basename(student)}, an earlier run's fit of the same labels", flush=True)
    return report


def evaluate(config, path, opponents, seed=None):
    """Seat-rotated games of the saved network against ``opponents`` in every other seat; its table row. The
    deals are ``seed``'s, else ``config.eval_seed``'s, else 2026's."""
    seed = seed if seed is not None else config.eval_seed if config.eval_seed is not None else 2026
    label = "values"
    lineup = [(label, agent_factory(f"values:{path}"))]
    lineup += [(opponents, agent_factory(opponents))] * (config.num_players - 1)
    result = run_tournament(lineup, num_players=config.num_players, board=config.board, games=config.eval_games,
                            seed=seed, workers=config.workers)
    result.save(os.path.join(config.run_dir, f"values_vs_{opponents}"))
    return result.row(label)


def train_values(config):
    """Label, fit and evaluate the candidate-value network ``config`` (a ``CandidateValueConfig``) describes, in
    ``config.run_dir``. Labels are kept there in chunks, so running it again in the same directory continues
    (``--resume``): it plays no stored game again and keeps each generation an earlier run fitted from the same
    labels (``stored_generation``)."""
    os.makedirs(config.run_dir, exist_ok=True)
    rng = np.random.default_rng([config.seed, 0xCA])
    started, cpu_started = time.perf_counter(), cpu_seconds()
    # per saved network: its file and the wall and CPU seconds (workers included) since the run started. A resumed
    # run continues the clock of the last generation it keeps (stored labels are loaded, not made again: the time
    # an interrupted process spent on the labels of an unfinished round is not counted).
    generations = []
    earlier = [0.0, 0.0]  # seconds of the run's earlier processes

    def record_generation(path, kept=None):
        elapsed = time.perf_counter() - started, cpu_seconds() - cpu_started
        if kept and "seconds" in kept:  # (a file written before 28 Nov has none: the clock stays this process's)
            earlier[:] = kept["seconds"] - elapsed[0], kept["cpu_seconds"] - elapsed[1]
        generations.append({"file": os.path.basename(path), "seconds": round(elapsed[0] + earlier[0], 1),
                            "cpu_seconds": round(elapsed[1] + earlier[1], 1)})
        return generations[-1]

    store = os.path.join(config.run_dir, "labels")
    os.makedirs(store, exist_ok=True)
    _check_store(store, config)
    held_out = collect(config, config.held_out_games, rng, store=store, tag="held_out")
    label_sets = [collect(config, config.games, rng, store=store, tag="train")]  # then one per DAgger round
    collected = time.perf_counter() - started
    print(f"labelled {len(label_sets[0][0])} decisions ({len(label_sets[0][3])} candidates) in {collected:.0f} s",
          flush=True)
    students = []
    recent_rounds = []  # the label files of the latest config.pfsp_window DAgger rounds, which PFSP draws by
    pfsp = []  # per round from the second, with pfsp_power: the win shares it drew by and its draw probabilities
    final = os.path.join(config.run_dir, "values.npz")
    for round_ in range(config.dagger_rounds if config.dagger_games else 0):
        # DAgger: the fitted ensemble plays the searched seat and the search labels the positions it reaches.
        # Those labels depend on its weights (and on the earlier generations, which the same config and the
        # same weights imply), so their files are named after the weights' hash.
        student = os.path.join(config.run_dir, "values_first.npz" if round_ == 0 else f"values_round{round_}.npz")
        data = replayed(config, label_sets)
        key = fit_key(config, data)
        kept = stored_generation(student, final, key)
        if kept:
            first = kept["weights_sha256"]
            record_generation(student, kept)
        else:
            net = fit(config, data, held_out)
            clock = {k: v for k, v in record_generation(student).items() if k != "file"}
            first = save_values(student, net, dataclasses.asdict(config), {"fit_key": key, **clock})
        students.append(student)
        league = students[-config.past_generations:] if config.past_generations else []
        weights = None
        if config.pfsp_power and recent_rounds:
            weights, record = pfsp_draws(config, [path for paths in recent_rounds for path in paths], len(league))
            pfsp.append({"round": round_ + 1, **record})
            print(f"  PFSP, round {round_ + 1}, a seat's probability of each name: "
                  + ", ".join(f"{name} {p:.3f}" for name, p in record["drawn"].items()), flush=True)
        elif config.generation_share and league:
            weights = league_weights(config, None, len(league))
        seeds = [config.seed, 0xDA] + ([round_] if round_ else [])  # the first round's as before rounds existed
        tag = f"dagger_{first[:12]}"
        extra = collect(config, config.dagger_games, np.random.default_rng(seeds), store=store, tag=tag,
                        student=student, generations=league, weights=weights)
        label_sets.append(extra)
        recent_rounds = (recent_rounds + [chunk_paths(store, tag, config.dagger_games)])[-config.pfsp_window:]
    data = replayed(config, label_sets)
    net = fit(config, data, held_out)
    error, best = evaluate_fit(net, with_destinations(config, held_out))
    path = final
    record_generation(path)
    report = {"fit_key": fit_key(config, data), "decisions": len(data[0]), "candidates": len(data[3]),
              "held_out_loss": round(error, 4), "held_out_best_agrees": round(best, 4),
              "first_labels_seconds": round(collected, 1), "seconds": generations[-1]["seconds"],
              "cpu_seconds": generations[-1]["cpu_seconds"], "generations": generations}
    if pfsp:
        report["pfsp"] = pfsp
    digest = save_values(path, net, dataclasses.asdict(config), report)
    print(f"saved {path} (weights sha256 {digest}) after {report['seconds']:.0f} s", flush=True)
    if config.eval_games:
        # A fresh process evaluates: the tournament forks its workers, and a fork of this process, whose torch
        # has run the fit, can hang on a lock a torch thread held.
        # (ProcessPoolExecutor's workers may start processes of their own; a Pool's daemons may not.)
        with WorkerPool(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            rows = list(pool.map(evaluate, [config] * 2, [path] * 2, ("heuristic", "random")))
        for opponents, row in zip(("heuristic", "random"), rows):
            report[f"vs_{opponents}"] = {k: row[k] for k in ("win_rate", "win_ci_low", "win_ci_high", "seat_games")}
            print(f"against {opponents} agents: win rate {row['win_rate']:.3f} "
                  f"({row['win_ci_low']:.3f}-{row['win_ci_high']:.3f}), {row['seat_games']} games", flush=True)
    report["weights_sha256"] = digest
    atomic_write_text(os.path.join(config.run_dir, "report.json"), json.dumps(report, indent=1))
    return report
