"""Behaviour cloning of HeuristicAgent into a MaskablePPO policy, with DAgger and value pretraining.

Command::

    python -m train.bc --config train/configs/recipe.json --out runs/bc/clone.zip
                       [--games 300] [--dagger-rounds 1] [--epochs 4] [--eval-games 400]

Data: games of four HeuristicAgents (every seat's decisions are recorded; cheap,
about 100 decisions per seat and game). Each record is the seat's features (its
observation, plus the advisers' one-hot choices when the config names
``advisers``, ``train.hints``), its legal-action mask, the teacher's action and
the seat's discounted end-of-game reward (the config's ``reward`` and ``gamma``),
the target of the value head.

Training: the policy network of the MaskablePPO model that ``train.build_model``
makes for the config (the very network PPO fine-tunes; save it and start PPO
with ``init_from``), with masked cross-entropy on the actor and mean squared
error on the value head, Adam, minibatches.

DAgger (Ross et al., 2011): after the first fit, the clone plays one seat
against three teachers; the teacher labels the clone's own positions (what it
would have played there) and those records join the data set before the next fit,
so the clone learns to recover from its own mistakes.

Reported: held-out agreement with the teacher on decisions with more than one
legal action, and the clone's win rate against three HeuristicAgents (the
tournament of ``train.evaluate``, seats rotated, 95% Wilson interval).
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch

from agents.tournament import agent_factory
from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.engine.game import Game
from fifthave_env.env_common import end_reward, game_config
from fifthave_env.observation import Observer

from .checkpoint import save_checkpoint
from .config import load_config
from .evaluate import LEARNER_LABEL, evaluate
from .hints import Advisers
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


def play_recorded(config, rng, teacher="heuristic", learner=None, learner_seat=None):
    """One game of teachers (``learner`` at ``learner_seat`` if given), every seat's decisions labelled by
    its teacher; returns the records as lists (features, masks, teacher actions, discounted returns)."""
    game_cfg = game_config(config.reward, None, num_players=config.num_players, board=config.board,
                           max_turns=config.max_turns)
    game = Game(game_cfg, rng=np.random.default_rng(rng.integers(2**63)))
    observer = Observer(game_cfg)
    n = config.num_players
    make_teacher = agent_factory(teacher)
    teachers, advisers = [], []
    for seat in range(n):
        agent = make_teacher()
        agent.reset(game_cfg, seat, np.random.default_rng(rng.integers(2**63)))
        teachers.append(agent)
        seat_advisers = Advisers(config.advisers)
        seat_advisers.reset(game_cfg, seat, rng)
        advisers.append(seat_advisers)
    if learner is not None:
        learner.reset(game_cfg, learner_seat, np.random.default_rng(rng.integers(2**63)))
    per_seat = [([], [], []) for _ in range(n)]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    while not game.is_over:
        seat = game.actor
        observation = observer.observe(game, seat).copy()
        game.action_mask(mask)
        legal = mask.astype(bool)
        features = advisers[seat].features(observation, legal)
        label = int(teachers[seat].act(observation, legal))
        action = label
        if learner is not None and seat == learner_seat:
            action = int(learner.act(observation, legal))
            if action != label:
                teachers[seat].drop_plan()
        advisers[seat].record(action)
        feats, masks, labels = per_seat[seat]
        feats.append(features)
        masks.append(legal.copy())
        labels.append(label)
        game.apply(action)
    records = ([], [], [], [])
    for seat, (feats, masks, labels) in enumerate(per_seat):
        outcome = float(end_reward(config.reward, game, seat))
        steps = len(labels)
        returns = [outcome * config.gamma ** (steps - 1 - t) for t in range(steps)]
        for lst, values in zip(records, (feats, masks, labels, returns)):
            lst += values
    return records


def fit(model, data, epochs, batch_size, learning_rate, value_weight, rng, held_out=None):
    """Masked cross-entropy on the actor and MSE on the value head; returns held-out agreement."""
    policy = model.policy
    features, masks, actions, returns = data
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = rng.permutation(len(actions))
        total = 0.0
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            obs = torch.as_tensor(features[idx])
            values, log_prob, _ = policy.evaluate_actions(obs, torch.as_tensor(actions[idx]),
                                                          action_masks=torch.as_tensor(masks[idx]))
            loss = -log_prob.mean() + value_weight * torch.nn.functional.mse_loss(
                values.flatten(), torch.as_tensor(returns[idx]))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            total += float(loss) * len(idx)
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f}"
              + (f", held-out agreement {agreement(model, held_out):.3f}" if held_out is not None else ""),
              flush=True)
    policy.set_training_mode(False)
    return agreement(model, held_out) if held_out is not None else None


def agreement(model, data):
    """Share of decisions with more than one legal action where the policy's most likely action is the teacher's."""
    features, masks, actions, _ = data
    choice = masks.sum(axis=1) > 1
    logits = ActorNet(model.policy).logits(features[choice])
    logits[~masks[choice]] = -np.inf
    return float(np.mean(logits.argmax(axis=1) == actions[choice]))


def collect(config, games, rng, learner=None):
    records = Records()
    for _ in range(games):
        seat = int(rng.integers(config.num_players))
        records.extend(*play_recorded(config, rng, learner=learner, learner_seat=seat))
    return records


def main(argv=None):
    from .train import build_model, make_vec_env

    parser = argparse.ArgumentParser(prog="python -m train.bc", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, help="the TrainConfig PPO will fine-tune with")
    parser.add_argument("--out", required=True, help="where the cloned checkpoint goes (.zip)")
    parser.add_argument("--games", type=int, default=300, help="teacher games in the first data set")
    parser.add_argument("--held-out-games", type=int, default=40)
    parser.add_argument("--dagger-rounds", type=int, default=1)
    parser.add_argument("--dagger-games", type=int, default=150, help="clone games per DAgger round")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--value-weight", type=float, default=0.5)
    parser.add_argument("--eval-games", type=int, default=400, help="games against three heuristics")
    parser.add_argument("--seed", type=int)
    args = parser.parse_args(argv)
    config = load_config(args.config, {"seed": args.seed, "n_envs": 1, "subproc": False,
                                       "run_dir": os.path.dirname(os.path.abspath(args.out))})
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    rng = np.random.default_rng([config.seed, 0xBC])
    started = time.perf_counter()
    held_out = collect(config, args.held_out_games, rng).arrays()
    data = collect(config, args.games, rng)
    print(f"{len(data)} teacher decisions from {args.games} games ({time.perf_counter() - started:.0f} s)", flush=True)
    env = make_vec_env(config)
    model = build_model(config, env)
    report = {"advisers": config.advisers, "net_arch": config.net_arch, "rounds": []}
    for round_ in range(args.dagger_rounds + 1):
        if round_:
            clone = PolicyAgent(ActorNet(model.policy), deterministic=False, name=LEARNER_LABEL,
                                advisers=config.advisers)
            added = collect(config, args.dagger_games, rng, learner=clone)
            data.extend(added.features, added.masks, added.actions, added.returns)
            print(f"DAgger round {round_}: {len(added)} relabelled decisions, {len(data)} in all", flush=True)
        score = fit(model, data.arrays(), args.epochs, args.batch_size, args.learning_rate, args.value_weight,
                    rng, held_out)
        report["rounds"].append({"decisions": len(data), "held_out_agreement": round(score, 4)})
    save_checkpoint(model, args.out, config, {"behaviour_cloning": report})
    net = ActorNet(model.policy)
    for deterministic in (True, False):
        result = evaluate(lambda: PolicyAgent(net, deterministic=deterministic, name=LEARNER_LABEL,
                                              advisers=config.advisers),
                          "heuristic", args.eval_games, config, seed=config.seed + 1_000_003)
        report["vs_heuristic_" + ("greedy_policy" if deterministic else "sampled")] = result.row()
    report["seconds"] = round(time.perf_counter() - started)
    print(json.dumps(report, indent=2))
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(report, f, indent=2)
    env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
