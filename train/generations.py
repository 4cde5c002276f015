"""Iterated self-play: one action-value network that plays every decision, improved generation after generation.

The agent (``fifthave.agents.learned.ActionValueAgent``, agent-file kind ``action-values``) is one MLP from the
seat's observation to a value per action id - the win share it expects after taking that action - and plays
the legal action it values most: bids (card by card), board moves, A/B/C/D, commissioners, draws and
placements, with no scripted agent and no search. It is trained by Deep Monte-Carlo (DouZero: Zha et al.,
2021): the target of every decision is the return of the game it was taken in, fitted by squared error.

One generation (``run_generation``):

1. **Games.** ``games_per_generation`` games of the current network (epsilon-greedy, ``epsilon``) in one seat
   against an opponent drawn from the *league*, which plays every other seat: every scripted anchor
   (``anchors``: the HeuristicAgent of every bidding strategy, GreedyAgent, RandomAgent, a small search) and
   the last ``past_generations`` generations; a share ``self_play_share`` of the games seats the current
   network everywhere. Opponents are drawn by prioritized fictitious self-play (``fifthave.train.league.pfsp_weights``:
   the entries the network beats least are played most; its win rate against each entry comes from the
   games of the last ``pfsp_window`` generations).
2. **Returns.** Every decision with more than one legal action of the network's seats, and a share
   ``opponent_decisions`` of the opponents' (off-policy Monte-Carlo returns of what the anchors do), is
   stored with its return: ``(1 - margin_weight) * win share + margin_weight * logistic(final VP margin /
   6)``; a truncated game (R29) returns 0, a loss.
3. **Fit.** The network of the last generation is fitted ``epochs`` passes over the decisions of the last
   ``replay_generations`` generations (Adam, step size falling linearly to 0), in a spawned process with one
   torch thread, and written as ``gen_NNNN/agent.npz``.
4. **Evaluation.** Head-to-head against the previous generation on the same deals (``eval_games``
   seat-rotated games with the previous generation and HeuristicAgents in the other seats: per deal, the
   new generation's win share minus the old one's, ``fifthave.agents.stats.paired_difference``), and the panel fields
   ``panel_fields`` (``fifthave.agents.panel``, ``panel_games`` each; a truncated game is a loss). Every generation's
   Bradley-Terry rating with intervals (``fifthave.agents.stats.bradley_terry_elo`` / ``bootstrap_elo``, resampling
   deals) is refitted over all head-to-head games so far.

The run directory holds ``gen_NNNN/`` per generation (agent file, the generation's decisions, ``state.json``,
``MANIFEST.sha256`` written last), ``curve.json`` / ``curve.md`` (rating, head-to-head and panel win rates per
generation, against CPU hours) and ``config.json``. A resumed run (``--resume``) checks every generation's
manifest (``fifthave.train.manifest``), deletes a generation left without one, and continues: the result is the same
bit for bit as an uninterrupted run (every draw comes from the seed and the generation number; the fit uses
one torch thread).

    fifthave train train/configs/generations_4p.json --out runs/gen4p
    fifthave train --resume runs/gen4p [--set generations.generations=80]
"""

import argparse
import dataclasses
import json
import math
import multiprocessing
import os
import resource
import shutil
import time
from dataclasses import dataclass, field

import numpy as np

from fifthave.agents.base import give_sampler, reads_view
from fifthave.agents.bidding import BIDDING_STRATEGIES
from fifthave.agents.learned import ActorNet
from fifthave.agents.panel import fields_for, run_panel
from fifthave.agents.registry import check_agent_names
from fifthave.agents.stats import bootstrap_elo, bradley_terry_elo, paired_difference
from fifthave.agents.tournament import agent_factory, deal_win_shares, run_tournament
from fifthave.agents.view import StateView
from fifthave_env.agent_protocol import observation_layout
from fifthave_env.engine import safejson
from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.engine.game import Game
from fifthave_env.env_common import game_config
from fifthave_env.observation import OBS_SIZES, Observer
from fifthave_env.runtime import WorkerPool, atomic_write_text, chunk_size

from .config import with_today_names
from .export import write_policy
from .league import pfsp_weights
from .manifest import DIRECTORY_MANIFEST, verify_directory, write_directory_manifest

SELF = "self"  # the league entry that seats the current network everywhere
MARGIN_SCALE = 6.0  # VP of final margin that moves the logistic from 0.5 to ~0.73 (as fifthave.agents.search)
AGENT_FILE = "agent.npz"
DATA_FILE = "decisions.npz"
STATE_FILE = "state.json"


def default_anchors():
    return ["heuristic", *(f"heuristic-{s}" for s in BIDDING_STRATEGIES if s != "value"), "greedy", "random",
            "search:4:1"]


@dataclass
class GenerationsConfig:
    """How the iterated self-play learner runs: the ``generations`` section of a ``fifthave train`` config."""

    seed: int = 0
    """Seeds every game, every fit and every evaluation: the same config gives the same generations."""
    num_players: int = 4
    """Seats per game (2-4); the network refuses other player counts."""
    board: int = 5
    """5- or 6-plot board; the network refuses the other."""
    observation_layout: int = 1
    """Observation layout the network reads (``fifthave_env.observation.LAYOUTS``; 1 adds the derived views)."""
    net_arch: list = field(default_factory=lambda: [256, 256])
    """Widths of the MLP's hidden layers (ReLU); the output layer has one value per action id. (``hidden`` in
    configs written before the sections; still read.)"""
    generations: int = 8
    """Generations to train (a resumed run with a larger number continues)."""
    games_per_generation: int = 300
    """Training games per generation (one network seat each, or every seat in a self-play game)."""
    anchors: list = field(default_factory=default_anchors)
    """Scripted league entries (``fifthave.agents.registry`` names or ``search:...``), always in the league."""
    past_generations: int = 4
    """Previous generations kept in the league (the newest ones)."""
    self_play_share: float = 0.2
    """Share of the training games where the current network takes every seat (drawn per game)."""
    pfsp_power: float = 1.0
    """PFSP weight ``max(min_weight, (1 - win rate) ** power)``; 0 draws the entries uniformly."""
    pfsp_min_weight: float = 0.05
    """Smallest PFSP weight, so that no entry is forgotten."""
    pfsp_window: int = 3
    """Generations of training games the win rates for PFSP are taken from."""
    epsilon: float = 0.05
    """Share of the network's training decisions played uniformly at random (exploration)."""
    opponent_decisions: float = 0.34
    """Share of the opponents' decisions also fitted (drawn per decision; their Monte-Carlo returns: the anchors
    show good moves early on, while the network's own play is weak). 0: the network's decisions only, as in
    DouZero; 1 quadruples the data of a 4-player game (about 1 GB of decisions per 300 games)."""
    margin_weight: float = 0.3
    """Weight of the logistic of the final VP margin in the return (the rest: the win share)."""
    replay_generations: int = 2
    """Generations whose decisions each fit reads (the newest ones)."""
    epochs: int = 3
    """Passes over those decisions per generation."""
    batch_size: int = 512
    """Decisions per minibatch."""
    learning_rate: float = 5e-4
    """Adam's step size at the start of each generation's fit; it falls linearly to 0."""
    max_turns: int = 300
    """Turns after which a game is truncated (R29); a truncated game returns 0 and is a loss in evaluation."""
    eval_games: int = 100
    """Head-to-head games per generation against the previous one (a multiple of ``num_players``, at least two
    deals: the interval is over deals)."""
    panel_fields: list = field(default_factory=lambda: ["heuristic", "greedy", "random"])
    """``fifthave.agents.panel`` fields played by every generation (the full panel is run on the final model)."""
    panel_games: int = 100
    """Games per panel field and generation (a multiple of ``num_players``; 0: no panel per generation)."""
    workers: int = 2
    """Processes that play the games (the results do not depend on it)."""

    def __post_init__(self):
        if self.num_players not in (2, 3, 4) or self.board not in (5, 6):
            raise ValueError(f"num_players must be 2, 3 or 4 and board 5 or 6, got {self.num_players!r} and "
                             f"{self.board!r}")
        if self.observation_layout not in OBS_SIZES:
            raise ValueError(f"observation_layout must be one of {sorted(OBS_SIZES)}, got {self.observation_layout!r}")
        if not (isinstance(self.net_arch, list) and self.net_arch
                and all(isinstance(w, int) and 1 <= w <= 4096 for w in self.net_arch)):
            raise ValueError(f"net_arch must be a non-empty list of layer widths from 1 to 4096, "
                             f"got {self.net_arch!r}")
        for name in ("generations", "games_per_generation", "past_generations", "pfsp_window", "replay_generations",
                     "epochs", "batch_size", "max_turns", "eval_games", "workers"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("self_play_share", "epsilon", "margin_weight", "opponent_decisions"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a number from 0 to 1, got {value!r}")
        if (self.eval_games % self.num_players or self.eval_games < 2 * self.num_players
                or (self.panel_games and self.panel_games % self.num_players)):
            raise ValueError(f"eval_games and panel_games must be multiples of num_players ({self.num_players}), "
                             f"eval_games of at least two deals ({2 * self.num_players}), got {self.eval_games} "
                             f"and {self.panel_games}")
        check_agent_names("anchors", [a for a in self.anchors if not a.startswith("search")])
        for name in self.anchors:
            agent_factory(name)  # a bad search name fails here
        playable = fields_for(self.num_players)
        unknown = [f for f in self.panel_fields if f not in playable]
        if unknown:
            raise ValueError(f"panel_fields {unknown} are not in the {self.num_players}-player panel; choose from "
                             f"{', '.join(playable)}")


# ---- one training game -------------------------------------------------------------------------------

def game_return(game, seat, margin_weight):
    """The Monte-Carlo return of ``seat`` at the end of ``game``: a truncated game is a loss (0)."""
    if game.truncated:
        return 0.0
    win = 1.0 / len(game.winners) if seat in game.winners else 0.0
    margin = game.scores[seat] - max(game.scores[q] for q in range(game.n) if q != seat)
    return (1 - margin_weight) * win + margin_weight / (1.0 + math.exp(-margin / MARGIN_SCALE))


def play_training_game(config, learner, opponent, seed):
    """One training game of the network in the agent file ``learner`` against the league entry ``opponent``
    (an agent name, or ``SELF``). Returns ``(observations float16, actions, returns, summary)`` of the
    recorded seats' decisions; ``summary``: the opponent, whether the network's seat won (a truncated game:
    no), and the turns played."""
    rng = np.random.default_rng(seed)
    cfg = game_config("win_loss", None, num_players=config.num_players, board=config.board,
                      max_turns=config.max_turns)
    game = Game(cfg, rng=np.random.default_rng(rng.integers(2**63)))
    learner_seat = int(rng.integers(config.num_players))
    players, network_seats = [], set()
    for seat in range(config.num_players):
        if seat == learner_seat or opponent == SELF:
            agent = agent_factory(f"dmc:{learner}")()
            agent.epsilon = config.epsilon
            network_seats.add(seat)
        else:
            agent = agent_factory(opponent)()
        agent.reset(cfg, seat, np.random.default_rng(rng.integers(2**63)))
        give_sampler(agent, game, seat)
        players.append(agent)
    sampled = np.random.default_rng(rng.integers(2**63))  # which opponent decisions are fitted
    observers = {}

    def observe(seat, layout):
        if layout not in observers:
            observers[layout] = Observer(cfg, version=layout)
        return observers[layout].observe(game, seat)

    observations, actions, seats = [], [], []
    while not game.is_over:
        seat = game.actor
        agent = players[seat]
        mine = None
        recorded = seat in network_seats or (config.opponent_decisions and sampled.random() < config.opponent_decisions)
        if recorded and len(game.legal_actions()) > 1:
            mine = observe(seat, config.observation_layout)
        if reads_view(agent):
            action = agent.act_view(StateView(game, seat))
        else:
            layout = observation_layout(agent)
            vector = mine if mine is not None and layout == config.observation_layout else observe(seat, layout)
            action = agent.act(vector, game.action_mask())
        if mine is not None:
            observations.append(mine.astype(np.float16))
            actions.append(int(action))
            seats.append(seat)
        game.apply(int(action))
    returns = [game_return(game, s, config.margin_weight) for s in range(config.num_players)]
    won = (not game.truncated) and learner_seat in game.winners
    summary = {"opponent": opponent, "won": 1.0 / len(game.winners) if won else 0.0, "truncated": bool(game.truncated),
               "turns": game.turn}
    size = OBS_SIZES[config.observation_layout]
    return (np.asarray(observations, dtype=np.float16).reshape(-1, size), np.asarray(actions, dtype=np.int16),
            np.asarray([returns[s] for s in seats], dtype=np.float32), summary)


def _play_job(job):
    return play_training_game(*job)


def play_games(config, learner, opponents, seeds):
    """The training games (``play_training_game``) of ``opponents[i]`` with seed ``seeds[i]``, in order."""
    jobs = [(config, learner, o, s) for o, s in zip(opponents, seeds)]
    if config.workers == 1:
        return [_play_job(j) for j in jobs]
    context = multiprocessing.get_context("spawn")  # no fork of a process that may hold torch's locks
    with WorkerPool(min(config.workers, len(jobs)), mp_context=context) as pool:
        return list(pool.map(_play_job, jobs, chunksize=chunk_size(len(jobs), config.workers, largest=None)))


# ---- the fit ------------------------------------------------------------------------------------------

def initial_network(config):
    """The generation-0 network: torch's default initialisation, seeded by the config."""
    import torch

    torch.manual_seed(int(np.random.default_rng([config.seed, 0x1A]).integers(2**63)))
    return _torch_net(config)


def _torch_net(config):
    from torch import nn

    sizes = [OBS_SIZES[config.observation_layout], *config.net_arch]
    layers = []
    for inputs, outputs in zip(sizes, sizes[1:]):
        layers += [nn.Linear(inputs, outputs), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(sizes[-1], NUM_ACTIONS))


def _actor_net(net):
    """``fifthave.agents.learned.ActorNet`` of a torch MLP (weights transposed to inputs x outputs)."""
    from torch import nn

    from fifthave.agents.learned import ACTIVATION_FUNCTIONS

    linear = [m for m in net if isinstance(m, nn.Linear)]
    return ActorNet([[m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy(),
                      ACTIVATION_FUNCTIONS["relu"] if i < len(linear) - 1 else None] for i, m in enumerate(linear)])


def _load_into(net, actor):
    import torch
    from torch import nn

    linear = [m for m in net if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for module, (weight, bias, _) in zip(linear, actor.layers):
            module.weight.copy_(torch.from_numpy(weight.T.copy()))
            module.bias.copy_(torch.from_numpy(bias))


def write_network(path, actor, config, generation, report):
    """The generation's agent file (kind ``action-values``); returns the weights' sha256."""
    return write_policy(path, actor, dataclasses.asdict(config), f"dmc-gen{generation}", kind="action-values",
                        training={"method": "deep-monte-carlo self-play (fifthave.train.generations)",
                                  "generation": generation, "report": report})


def fit_generation(config, previous, data_files, out_path, generation):
    """Fit the network of the agent file ``previous`` to the decisions in ``data_files``; write ``out_path``.
    Returns the fit's report. Runs in its own process (``_fit_in_subprocess``): one torch thread."""
    import torch

    from fifthave.agents.agentfile import read_agent_file
    from fifthave.agents.learned import network_from_file

    torch.set_num_threads(1)
    rng = np.random.default_rng([config.seed, 0xF17, generation])
    torch.manual_seed(int(rng.integers(2**63)))
    net = _torch_net(config)
    _load_into(net, network_from_file(*read_agent_file(previous)))
    parts = []
    for path in data_files:
        with np.load(path, allow_pickle=False) as f:
            parts.append((f["observations"], f["actions"], f["returns"]))
    observations = np.concatenate([p[0] for p in parts])
    actions = torch.as_tensor(np.concatenate([p[1] for p in parts]).astype(np.int64))
    returns = torch.as_tensor(np.concatenate([p[2] for p in parts]))
    count = len(observations)
    steps = config.epochs * -(-count // config.batch_size)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1 - step / steps)
    losses = []
    for _ in range(config.epochs):
        total = 0.0
        order = rng.permutation(count)
        for start in range(0, count, config.batch_size):
            rows = order[start:start + config.batch_size]
            x = torch.from_numpy(observations[rows].astype(np.float32))
            predicted = net(x).gather(1, actions[rows, None]).squeeze(1)
            loss = torch.nn.functional.mse_loss(predicted, returns[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(rows)
        losses.append(round(total / count, 5))
    report = {"decisions": count, "epoch_losses": losses}
    write_network(out_path, _actor_net(net), config, generation, report)
    return report


def _in_subprocess(function, *args):
    """``function(*args)`` in a spawned process: torch never runs in the process whose tournaments fork."""
    with WorkerPool(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.result(pool.submit(function, *args))


def _write_initial(config, path):
    return write_network(path, _actor_net(initial_network(config)), config, 0, {"initial": True})


# ---- evaluation ---------------------------------------------------------------------------------------

def head_to_head(config, new, old, generation, games=None, labels=None):
    """``games`` (default ``eval_games``) seat-rotated games of ``new`` and ``old`` (agent names; by default
    generations ``generation`` and ``generation - 1``) with HeuristicAgents in the other seats, on the same
    deals: the records, and the paired difference of their win shares per deal (a truncated game is a loss
    for both)."""
    labels = labels or (f"gen{generation}", f"gen{generation - 1}")
    lineup = [(labels[0], agent_factory(new)), (labels[1], agent_factory(old))]
    lineup += [(f"heuristic#{i}", agent_factory("heuristic")) for i in range(config.num_players - 2)]
    result = run_tournament(lineup[:config.num_players], num_players=config.num_players, board=config.board,
                            games=games or config.eval_games,
                            seed=int(np.random.default_rng([config.seed, 0xE7A, generation]).integers(2**31)),
                            workers=config.workers, max_turns=config.max_turns)
    new_shares, old_shares = deal_win_shares(result.records, 0), deal_win_shares(result.records, 1)
    deals = sorted(new_shares)
    return result.records, paired_difference([old_shares[d] for d in deals], [new_shares[d] for d in deals],
                                             resamples=2000, seed=generation)


def ratings(h2h):
    """Bradley-Terry ratings (Elo scale, 1500 = a virtual reference) of every generation with 95% intervals
    over deals, fitted to all head-to-head games (``h2h``: ``{generation: records}``; entry 0 is that
    generation, 1 the one before, the others HeuristicAgents)."""
    labels = [f"gen{g}" for g in range(max(h2h) + 1)] + ["heuristic"]
    records = []
    for generation in sorted(h2h):
        for record in h2h[generation]:
            names = [f"gen{generation}", f"gen{generation - 1}"] + ["heuristic"] * 2
            records.append({**record, "deal": generation * 1_000_000 + record["deal"],
                            "winners": [] if record["truncated"] else record["winners"],  # nobody wins those
                            "entries": [labels.index(names[e]) for e in record["entries"]]})
    identity = dict(enumerate(labels))
    elo = bradley_terry_elo(labels, records, identity)
    intervals = bootstrap_elo(labels, records, identity, resamples=100, seed=0)
    return {label: {"elo": round(elo[label], 1), "low": round(intervals[label][0], 1),
                    "high": round(intervals[label][1], 1)} for label in labels}


def cpu_seconds():
    """CPU time of this process and its finished children (the game and fit workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


# ---- the run ------------------------------------------------------------------------------------------

def generation_dir(out_dir, generation):
    return os.path.join(out_dir, f"gen_{generation:04d}")


def league_entries(config, out_dir, generation):
    """The league the network of generation ``generation - 1`` meets: the anchors, the previous generations
    it keeps, and SELF."""
    past = range(max(0, generation - 1 - config.past_generations), generation - 1)
    return list(config.anchors) + [f"dmc:{os.path.join(generation_dir(out_dir, g), AGENT_FILE)}" for g in past] + [SELF]


def draw_opponents(config, entries, win_rates, rng):
    """``games_per_generation`` opponents: SELF with probability ``self_play_share``, else PFSP over the
    other entries."""
    others = [e for e in entries if e != SELF]
    weights = pfsp_weights([win_rates.get(_label(e), 0.5) for e in others], config.pfsp_power,
                           config.pfsp_min_weight)
    drawn = []
    for _ in range(config.games_per_generation):
        if rng.random() < config.self_play_share:
            drawn.append(SELF)
        else:
            drawn.append(others[rng.choice(len(others), p=weights)])
    return drawn


def _label(entry):
    """A league entry's name in the curve: a past generation by its number."""
    if entry.startswith("dmc:"):
        return "gen" + str(int(os.path.basename(os.path.dirname(entry))[4:]))
    return entry


def win_rates_from(states, window):
    """The network's win rate against each league entry over the training games of the last ``window``
    generations' states."""
    totals = {}
    for state in states[-window:]:
        for label, (won, games) in state["training"]["by_opponent"].items():
            t = totals.setdefault(label, [0.0, 0])
            t[0] += won
            t[1] += games
    return {label: won / games for label, (won, games) in totals.items() if games}


def run_generation(config, out_dir, generation, states, log=print):
    """Play, fit and evaluate generation ``generation`` (>= 1); returns its state (also written)."""
    started, cpu_started = time.perf_counter(), cpu_seconds()
    directory = generation_dir(out_dir, generation)
    os.makedirs(directory, exist_ok=True)
    previous = os.path.join(generation_dir(out_dir, generation - 1), AGENT_FILE)
    rng = np.random.default_rng([config.seed, generation])
    entries = league_entries(config, out_dir, generation)
    opponents = draw_opponents(config, entries, win_rates_from(states, config.pfsp_window), rng)
    seeds = [int(s) for s in rng.integers(2**63, size=len(opponents))]
    games = play_games(config, previous, opponents, seeds)
    observations = np.concatenate([g[0] for g in games])
    np.savez_compressed(os.path.join(directory, DATA_FILE), observations=observations,
                        actions=np.concatenate([g[1] for g in games]), returns=np.concatenate([g[2] for g in games]))
    by_opponent = {}
    for _, _, _, summary in games:
        t = by_opponent.setdefault(_label(summary["opponent"]), [0.0, 0])
        t[0] += summary["won"]
        t[1] += 1
    played = time.perf_counter() - started
    log(f"generation {generation}: {len(games)} games, {len(observations)} decisions ({played:.0f} s)", flush=True)
    data_files = [os.path.join(generation_dir(out_dir, g), DATA_FILE)
                  for g in range(max(1, generation - config.replay_generations + 1), generation + 1)]
    fit = _in_subprocess(fit_generation, config, previous, data_files, os.path.join(directory, AGENT_FILE),
                         generation)
    log(f"  fit: losses {fit['epoch_losses']} ({time.perf_counter() - started - played:.0f} s)", flush=True)
    new, old = f"dmc:{os.path.join(directory, AGENT_FILE)}", f"dmc:{previous}"
    records, paired = head_to_head(config, new, old, generation)
    panel = {}
    if config.panel_games:
        result = run_panel(new, num_players=config.num_players, board=config.board, games=config.panel_games,
                           seed=int(np.random.default_rng([config.seed, 0x9A]).integers(2**31)),
                           workers=config.workers, max_turns=config.max_turns, fields=config.panel_fields)
        panel = {row["field"]: {k: row[k] for k in ("win_rate", "win_ci_low", "win_ci_high", "truncated", "games")}
                 for row in result["rows"]}
    state = {"generation": generation, "training": {
        "games": len(games), "decisions": int(len(observations)), "by_opponent": by_opponent,
        "truncated": sum(g[3]["truncated"] for g in games)}, "fit": fit,
        "head_to_head": {k: (round(v, 4) if isinstance(v, float) else v) for k, v in paired.items()},
        "head_to_head_records": [{k: r[k] for k in ("deal", "entries", "winners", "scores", "cards_in_hand",
                                                    "truncated")} for r in records],
        "panel": panel,
        "seconds": round(time.perf_counter() - started, 1), "cpu_seconds": round(cpu_seconds() - cpu_started, 1)}
    atomic_write_text(os.path.join(directory, STATE_FILE), json.dumps(state, indent=1))
    write_directory_manifest(directory)  # last: a generation without it is incomplete
    log(f"  head-to-head vs gen{generation - 1}: {paired['difference']:+.3f} [{paired['ci_low']:+.3f}, "
        f"{paired['ci_high']:+.3f}]; panel " + ", ".join(f"{f} {r['win_rate']:.3f}" for f, r in panel.items())
        + f" ({state['seconds']:.0f} s)", flush=True)
    return state


def deterministic_view(state):
    """A generation's state without its timings (what a rerun of the same seed reproduces bit for bit)."""
    return {k: v for k, v in state.items() if k not in ("seconds", "cpu_seconds")}


def completed_generations(out_dir):
    """The states of the generations ``out_dir`` holds, each checked against its manifest; a generation
    left without a manifest (interrupted) is deleted with everything after it."""
    states, generation = [], 1
    while os.path.isdir(generation_dir(out_dir, generation)):
        directory = generation_dir(out_dir, generation)
        if not os.path.exists(os.path.join(directory, DIRECTORY_MANIFEST)):
            shutil.rmtree(directory)
            break
        verify_directory(directory)
        with open(os.path.join(directory, STATE_FILE)) as f:
            states.append(json.load(f))
        generation += 1
    later = generation + 1
    while os.path.isdir(generation_dir(out_dir, later)):
        shutil.rmtree(generation_dir(out_dir, later))
        later += 1
    return states


def write_curve(config, out_dir, states):
    """``curve.json`` and ``curve.md``: per generation, the cumulative CPU hours, the Bradley-Terry rating
    with its interval, the head-to-head difference against the previous generation and the panel rows."""
    h2h = {s["generation"]: s["head_to_head_records"] for s in states}
    rated = ratings(h2h) if h2h else {}
    rows, cpu = [], 0.0
    for s in states:
        cpu += s["cpu_seconds"]
        rows.append({"generation": s["generation"], "cpu_hours": round(cpu / 3600, 3),
                     "rating": rated.get(f"gen{s['generation']}"), "head_to_head": s["head_to_head"],
                     "panel": s["panel"], "training_truncated": s["training"]["truncated"],
                     "training_games": s["training"]["games"]})
    curve = {"config": dataclasses.asdict(config), "rows": rows, "ratings": rated}
    atomic_write_text(os.path.join(out_dir, "curve.json"), json.dumps(curve, indent=1))
    fields = config.panel_fields if config.panel_games else []
    lines = ["| gen | CPU h | Elo [95% CI] | vs previous gen (paired by deal) | "
             + " | ".join(f"vs {f} (fair {1 / config.num_players:.2f})" for f in fields) + " |",
             "|---" * (4 + len(fields)) + "|"]
    for row in rows:
        r, h = row["rating"], row["head_to_head"]
        cells = [str(row["generation"]), f"{row['cpu_hours']:.2f}", f"{r['elo']:.0f} [{r['low']:.0f}, {r['high']:.0f}]",
                 f"{h['difference']:+.3f} [{h['ci_low']:+.3f}, {h['ci_high']:+.3f}]"]
        for f in fields:
            p = row["panel"][f]
            cells.append(f"{p['win_rate']:.3f} [{p['win_ci_low']:.3f}, {p['win_ci_high']:.3f}], "
                         f"{p['truncated']} trunc.")
        lines.append("| " + " | ".join(cells) + " |")
    gen0 = rated.get("gen0")
    if gen0:
        lines.append(f"\ngen0 (the initial network) rated {gen0['elo']:.0f}; heuristic "
                     f"{rated['heuristic']['elo']:.0f} [{rated['heuristic']['low']:.0f}, "
                     f"{rated['heuristic']['high']:.0f}].")
    atomic_write_text(os.path.join(out_dir, "curve.md"), "\n".join(lines) + "\n")
    return curve


def run(config, out_dir, resume=False, log=print):
    """Train ``config.generations`` generations into ``out_dir`` (``resume``: continue the ones it holds);
    returns the curve (``write_curve``). ``config``: a ``GenerationsConfig``, or the run config of
    ``fifthave train`` (``fifthave.train.config``, method ``generations``) whose section holds its fields."""
    if not isinstance(config, GenerationsConfig):
        config = GenerationsConfig(**with_today_names("generations", config.sections["generations"]))
    config_path = os.path.join(out_dir, "config.json")
    if os.path.exists(config_path):
        saved = with_today_names("generations", safejson.load(config_path, f"the run's config {config_path}"))
        if not resume:
            raise ValueError(f"{out_dir} holds a run already: pass resume=True (--resume) or use a new directory")
        differing = {k for k in saved if k != "generations" and saved[k] != dataclasses.asdict(config).get(k)}
        if differing:
            raise ValueError(f"{out_dir} holds a run of another config (differs in {sorted(differing)}); only "
                             "generations may change on a resume")
    os.makedirs(out_dir, exist_ok=True)
    atomic_write_text(config_path, json.dumps(dataclasses.asdict(config), indent=1))
    initial = os.path.join(generation_dir(out_dir, 0), AGENT_FILE)
    if not os.path.exists(initial):
        os.makedirs(generation_dir(out_dir, 0), exist_ok=True)
        _in_subprocess(_write_initial, config, initial)
    states = completed_generations(out_dir) if resume else []
    if states:
        log(f"resuming after generation {len(states)}", flush=True)
    for generation in range(len(states) + 1, config.generations + 1):
        states.append(run_generation(config, out_dir, generation, states, log))
        write_curve(config, out_dir, states)
    return write_curve(config, out_dir, states) if states else None


def load_config(path):
    """A ``GenerationsConfig`` from a JSON object of its fields (unknown fields refused)."""
    fields = safejson.load(path, f"the config file {path}")
    if isinstance(fields, dict) and "method" in fields:  # the schema of fifthave train: its generations section
        if fields["method"] != "generations" or set(fields) != {"method", "generations"}:
            raise ValueError("a run config here must be {\"method\": \"generations\", \"generations\": {...}}")
        fields = fields["generations"]
    if not isinstance(fields, dict):
        raise TypeError(f"it must hold a JSON object of GenerationsConfig fields, got {type(fields).__name__}")
    return GenerationsConfig(**with_today_names("generations", fields))


def main(argv=None):
    """``python -m fifthave.train.generations RUN_DIR --compare OLD NEW``: two generations of a run, head to head
    on the same deals. Training is ``fifthave train CONFIG`` (method ``generations``), which calls ``run``."""
    parser = argparse.ArgumentParser(prog="python -m fifthave.train.generations",
                                     description="Play generation NEW of a run of iterated self-play against its "
                                                 "generation OLD on the same deals and print the paired difference "
                                                 "of their win shares (train with: fifthave train CONFIG).")
    parser.add_argument("run_dir", metavar="RUN_DIR", help="the run directory fifthave train wrote")
    parser.add_argument("--compare", nargs=2, type=int, metavar=("OLD", "NEW"), required=True,
                        help="the two generations to compare")
    parser.add_argument("--games", type=int, default=400, help="games (a multiple of the players; default 400)")
    args = parser.parse_args(argv)
    try:  # a bad run directory: one line and exit code 2
        config = load_config(os.path.join(args.run_dir, "config.json"))
    except (OSError, ValueError, TypeError) as error:
        parser.error(f"{args.run_dir}: {error}")
    old, new = (f"dmc:{os.path.join(generation_dir(args.run_dir, g), AGENT_FILE)}" for g in args.compare)
    _, paired = head_to_head(config, new, old, 10_000 + args.compare[1], games=args.games,
                             labels=tuple(f"gen{g}" for g in reversed(args.compare)))
    print(json.dumps({"old": args.compare[0], "new": args.compare[1], "games": args.games, **paired}))


if __name__ == "__main__":
    main()
