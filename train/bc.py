"""Behaviour cloning into a MaskablePPO policy, with DAgger and value pretraining; with a search agent as
the teacher, one iteration of expert iteration.

A run whose config has ``bc`` (``BCConfig``) starts here: ``fifthave.train.train`` builds
the MaskablePPO model (the very network PPO then fine-tunes) and calls
``behaviour_cloning`` before the first PPO rollout; the report (agreement per
fit) goes to ``RUN_DIR/bc.json``, and the run's first evaluation row (step 0)
is the clone's win rate. With ``total_timesteps`` 0 the clone is the result.

Data: games whose recorded seats are played by the teacher, ``bc.teacher``:
HeuristicAgent (or any scripted agent) in every seat, or a search agent
(``search:ROLLOUTS:DEPTH``, ``fifthave.agents.search``) in one seat against the config's
``opponents`` (``bc.teacher_seats``); the searching seat gets its seat's sampler
of determinizations as in a tournament, so its labels use only what the seat
knows. Learning to predict the search's choices from the observation is expert
iteration's apprentice step (Anthony, Tian and Barber, 2017). Each record is the
seat's features (its observation, plus the advisers' one-hot choices when the
config names ``advisers``, ``fifthave.train.hints``), its legal-action mask, the teacher's
action and the seat's discounted end-of-game reward (the config's ``reward`` and
``gamma``), the target of the value head. Games are played in ``config.workers``
processes, each from a generator drawn first, so the data does not depend on the
number of workers.

Fit: masked cross-entropy on the actor and squared error on the value head,
Adam, minibatches; all draws from a generator seeded by the config's seed.

DAgger (Ross et al., 2011): after the first fit the clone plays one seat against
teachers (or the opponents); the teacher labels the clone's own positions (what
it would have played there) and those records join the data before the next fit,
so the clone learns to recover from its own mistakes.

Agreement is measured on held-out teacher games, over decisions with more than
one legal action.
"""

import multiprocessing
import time

import numpy as np
import torch

from fifthave.agents.tournament import agent_factory
from fifthave_env.engine.game import Game
from fifthave_env.env_common import end_reward, game_config
from fifthave_env.observation import Observer
from fifthave_env.runner import GameHooks, play
from fifthave_env.runtime import WorkerPool

from .hints import Advisers
from .opponents import ScriptedOpponents
from .policy_agent import ActorNet, PolicyAgent


class Records:
    """Growing arrays of (features, mask, teacher action, return)."""

    def __init__(self):
        self.features, self.masks, self.actions, self.returns = [], [], [], []

    def extend(self, features, masks, actions, returns):
        self.features += features
        self.masks += masks
        self.actions += actions
        self.returns += returns

    def arrays(self):
        return (np.asarray(self.features, dtype=np.float32), np.asarray(self.masks, dtype=bool),
                np.asarray(self.actions, dtype=np.int64), np.asarray(self.returns, dtype=np.float32))

    def __len__(self):
        return len(self.actions)


class _Labeller(GameHooks):
    """At each decision of a recorded seat: its features and mask, and the teacher's action as the label; the
    learner (DAgger) plays its own action at its seat, and a teacher it overrode drops its plan."""

    def __init__(self, observer, advisers, learner, learner_seat):
        self.observer, self.advisers, self.learner, self.learner_seat = observer, advisers, learner, learner_seat
        self.per_seat = {seat: ([], [], []) for seat in advisers}

    def decided(self, decision):
        seat, game = decision.seat, decision.game
        if seat not in self.per_seat:
            return None
        observation = self.observer.observe(game, seat).copy()
        legal = game.action_mask().astype(bool)
        features = self.advisers[seat].features(observation, legal)
        label = action = decision.action
        if self.learner is not None and seat == self.learner_seat:
            action = int(self.learner.act(observation, legal))
            if action != label:
                decision.agent.drop_plan()
        self.advisers[seat].record(action)
        feats, masks, labels = self.per_seat[seat]
        feats.append(features)
        masks.append(legal)
        labels.append(label)
        return action


def play_recorded(config, rng, learner=None, learner_seat=None):
    """One game whose recorded seats are labelled by ``config.bc.teacher``; returns their records as lists
    (features, masks, teacher actions, discounted returns).

    With ``teacher_seats="all"`` teachers play every seat and every seat is recorded; with ``"one"`` one seat
    (``learner_seat``, else drawn from ``rng``) is the teacher's, the others play ``config.opponents``, and
    only that seat is recorded. ``learner`` (if given) plays ``learner_seat`` and the teacher only labels
    its positions (DAgger)."""
    game_cfg = game_config(config.reward, None, num_players=config.num_players, board=config.board,
                           max_turns=config.max_turns)
    game = Game(game_cfg, rng=np.random.default_rng(rng.integers(2**63)))
    observer = Observer(game_cfg, version=config.observation_layout)
    n = config.num_players
    one_seat = config.bc.teacher_seats == "one"
    if learner_seat is None and (one_seat or learner is not None):
        learner_seat = int(rng.integers(n))
    recorded = [learner_seat] if one_seat else list(range(n))
    make_teacher = agent_factory(config.bc.teacher)
    opponents = iter(ScriptedOpponents(config.opponents)(rng, n - 1)) if one_seat else None
    players, advisers = [], {}
    for seat in range(n):
        agent = make_teacher() if seat in recorded else next(opponents)
        agent.reset(game_cfg, seat, np.random.default_rng(rng.integers(2**63)))
        players.append(agent)
        if seat in recorded:
            advisers[seat] = Advisers(config.advisers)
            advisers[seat].reset(game_cfg, seat, rng)
    if learner is not None:
        learner.reset(game_cfg, learner_seat, np.random.default_rng(rng.integers(2**63)))
    labeller = _Labeller(observer, advisers, learner, learner_seat)
    play(game, players, [labeller])
    records = ([], [], [], [])
    for seat, (feats, masks, labels) in labeller.per_seat.items():
        outcome = float(end_reward(config.reward, game, seat))
        steps = len(labels)
        returns = [outcome * config.gamma ** (steps - 1 - t) for t in range(steps)]
        for lst, values in zip(records, (feats, masks, labels, returns)):
            lst += values
    return records


def _play_seeded(config, seed, learner):
    return play_recorded(config, np.random.default_rng(seed), learner=learner)


def fit(model, data, settings, rng, held_out, log=print):
    """Masked cross-entropy on the actor and MSE on the value head; returns the held-out agreement."""
    policy = model.policy
    features, masks, actions, returns = data
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.learning_rate)
    policy.set_training_mode(True)
    for epoch in range(settings.epochs):
        order = rng.permutation(len(actions))
        total = 0.0
        for start in range(0, len(order), settings.batch_size):
            idx = order[start:start + settings.batch_size]
            obs = torch.as_tensor(features[idx])
            values, log_prob, _ = policy.evaluate_actions(obs, torch.as_tensor(actions[idx]),
                                                          action_masks=torch.as_tensor(masks[idx]))
            loss = -log_prob.mean() + settings.value_weight * torch.nn.functional.mse_loss(
                values.flatten(), torch.as_tensor(returns[idx]))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            total += loss.item() * len(idx)
        log(f"  epoch {epoch + 1}/{settings.epochs}: loss {total / len(order):.4f}, "
            f"held-out agreement {agreement(model, held_out):.3f}")
    policy.set_training_mode(False)
    return agreement(model, held_out)


def agreement(model, data):
    """Share of decisions with more than one legal action where the policy's most likely action is the teacher's."""
    features, masks, actions, _ = data
    choice = masks.sum(axis=1) > 1
    logits = ActorNet(model.policy).logits(features[choice])
    logits[~masks[choice]] = -np.inf
    return float(np.mean(logits.argmax(axis=1) == actions[choice]))


def collect(config, games, rng, learner=None):
    """Records of ``games`` games, played in ``config.workers`` processes (0: here); each game's generator
    is drawn from ``rng`` first, so the records do not depend on the number of workers. ``learner`` (if
    given) plays one seat drawn per game."""
    seeds = rng.integers(2**63, size=games)
    jobs = [(config, int(seed), learner) for seed in seeds]
    if config.workers > 1 and games > 1:
        # an executor's exit waits for its workers; a Pool's terminates them, and one killed while sending a
        # result can leave the pool waiting forever (fifthave.agents.tournament.fork_pool)
        with WorkerPool(min(config.workers, games), mp_context=multiprocessing.get_context("spawn"),
                        initializer=torch.set_num_threads, initargs=(1,)) as pool:
            results = list(pool.map(_play_seeded, *zip(*jobs)))
    else:
        results = [_play_seeded(*job) for job in jobs]
    records = Records()
    for result in results:
        records.extend(*result)
    return records


def behaviour_cloning(config, model, log=print):
    """Fit ``model``'s policy (a MaskablePPO model built for ``config``) to ``config.bc.teacher``; returns a report
    (decisions and held-out agreement after each fit, seconds)."""
    settings = config.bc
    rng = np.random.default_rng([config.seed, 0xBC])
    started = time.perf_counter()
    held_out = collect(config, settings.held_out_games, rng).arrays()
    data = collect(config, settings.games, rng)
    log(f"behaviour cloning: {len(data)} decisions of {settings.teacher} from {settings.games} games "
        f"({time.perf_counter() - started:.0f} s)")
    report = {"teacher": settings.teacher, "advisers": list(config.advisers), "rounds": []}
    for round_ in range(settings.dagger_rounds + 1):
        if round_:
            clone = PolicyAgent(ActorNet(model.policy), name="clone", meta={"config": config.to_dict()})
            added = collect(config, settings.dagger_games, rng, learner=clone)
            data.extend(added.features, added.masks, added.actions, added.returns)
            log(f"DAgger round {round_}: {len(added)} of the clone's decisions labelled, {len(data)} in all")
        score = fit(model, data.arrays(), settings, rng, held_out, log)
        report["rounds"].append({"decisions": len(data), "held_out_agreement": round(score, 4)})
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report
