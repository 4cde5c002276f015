"""Mutation testing: apply one-line mutations one at a time and see whether the test suite notices.

    python scripts/mutate.py                 # every mutation in MUTATIONS
    python scripts/mutate.py --only 3 7      # some of them (by number)
    python scripts/mutate.py --list          # print the list

Each mutation is ``(file, old, new, tests)``: ``old`` must occur exactly once in
``file``; the mutated copy is checked by running ``tests`` (pytest paths, stopping
at the first failure). The work happens in a scratch copy of the repository (in a
temporary directory, never in the working tree), one mutation at a time, so an
interrupted run leaves nothing behind. A mutation the tests do not catch
"survives"; the report lists the survivors so that each can be judged (equivalent
to the original, or a gap to close with a test). Mutations marked
``EQUIVALENT`` below were judged equivalent: they are run and reported too, so the
judgement stays visible.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RULES = sorted(f"tests/engine/{name}" for name in os.listdir(os.path.join(ROOT, "tests", "engine"))
               if name.startswith("test_rules_"))
# Fast, focused tests first: pytest stops at the first failure, so a caught mutation costs little.
ENGINE = RULES + ["tests/env/test_env.py", "tests/env/test_replay.py", "tests/engine/test_properties.py"]
OBSERVATION = ["tests/env/test_observation.py", "tests/env/test_observation_details.py", "tests/env/test_env.py",
               "tests/env/test_gym_env.py", "tests/engine/test_rules_information.py", "tests/agents/test_agents.py"]
ENVS = ["tests/env/test_env.py", "tests/env/test_gym_env.py"]
TOURNAMENT = ["tests/agents/test_tournament.py", "tests/agents/test_agents.py"]
BIDDING = ["tests/agents/test_bidding_limit.py", "tests/agents/test_agents.py", "tests/agents/test_tournament.py"]
COPIED = ("fifthave_env", "fifthave", "agents", "train", "tests", "pyproject.toml", "README.md")  # fifthave/agents, fifthave/train: symlinks

ENGINE_DIR = "fifthave_env/engine/"

# (file, old, new, tests): one line each; the comment says what the mutation breaks.
MUTATIONS = [
    # scoring (R17, R19, R24, R27, R28)
    (ENGINE_DIR + "scoring.py", "SPECIAL_SCORING = {3: (3, 4), 6: (4, 6), 9: (5, 8)}",
     "SPECIAL_SCORING = {3: (3, 4), 6: (4, 6), 9: (5, 7)}", ENGINE),
    (ENGINE_DIR + "scoring.py", "if sum(1 for plot in g.owned[p] if plot >= 0) >= needed:",
     "if sum(1 for plot in g.owned[p] if plot >= 0) > needed:", ENGINE),
    (ENGINE_DIR + "scoring.py", "else values[plot]) * g.plot_height[plot]", "else values[plot])", ENGINE),
    (ENGINE_DIR + "scoring.py", "if 0 <= owner < g.n:", "if 0 <= owner:", ENGINE),
    (ENGINE_DIR + "scoring.py", "k = min(3, len(g.box))", "k = min(2, len(g.box))", ENGINE),
    (ENGINE_DIR + "scoring.py", "return [p for p in tied if sizes[p] == most]", "return tied", ENGINE),
    (ENGINE_DIR + "scoring.py", "return VP_BY_SHOP_TYPES[len(set(drawn_types))]",
     "return VP_BY_SHOP_TYPES[len(drawn_types)]", ENGINE),
    # auctions (R20-R26, R34-R37)
    (ENGINE_DIR + "auction.py", "if g.auc_total[p] > g.auc_high:\n", "if g.auc_total[p] >= g.auc_high:\n",
     ENGINE),
    (ENGINE_DIR + "auction.py", "return empty if empty else shops_only", "return empty | shops_only",
     ENGINE),
    (ENGINE_DIR + "auction.py", "if total > g.auc_high:\n        g.auc_alea_state = ALEA_IN",
     "if total >= g.auc_high:\n        g.auc_alea_state = ALEA_IN", ENGINE),
    (ENGINE_DIR + "auction.py", "if seen >> v & 1:\n            break", "if seen >> v & 1:\n            pass",
     ENGINE),
    (ENGINE_DIR + "auction.py", "if g.auc_turns < 2:", "if g.auc_turns < 1:", ENGINE),
    (ENGINE_DIR + "auction.py", "g.scores[p] += halves[p] // 2", "g.scores[p] += halves[p]", ENGINE),
    (ENGINE_DIR + "auction.py", "g.scores[declarer] += skyscrapers_in(g, d)",
     "g.scores[declarer] += 2 * skyscrapers_in(g, d)", ENGINE),
    (ENGINE_DIR + "auction.py", "g.pile_known[c] += 1", "pass", ENGINE),
    (ENGINE_DIR + "auction.py", "known[k] += cards[k]", "pass", ENGINE),
    (ENGINE_DIR + "auction.py", "return [DECLARE_STOP]", "return [BUILD]", ENGINE),
    (ENGINE_DIR + "auction.py", "if value == best and g.alea_supply:", "if value == best:", ENGINE),
    # the turn (R6, R13-R18, R20, R29)
    (ENGINE_DIR + "game.py", "take = min(3, self.supply[p])  # R13", "take = 3  # R13", ENGINE),
    (ENGINE_DIR + "game.py", "if self.owned[p][d] < 0:\n                self._give_black(p)",
     "if self.owned[p][d] <= 0:\n                self._give_black(p)", ENGINE),
    (ENGINE_DIR + "game.py", "if len(left) == 1:  # R9", "if len(left) == 0:  # R9", ENGINE),
    (ENGINE_DIR + "game.py", "if pos < NUM_DISTRICTS and not self.closed[pos]:",
     "if pos < NUM_DISTRICTS:", ENGINE),
    (ENGINE_DIR + "game.py", "if self.turn >= self.config.max_turns:  # R29",
     "if self.turn > self.config.max_turns:  # R29", ENGINE),
    (ENGINE_DIR + "game.py", "if self.stops >= 2:  # R24", "if self.stops >= 3:  # R24", ENGINE),
    (ENGINE_DIR + "game.py", "if self.piles[c] and c != self.first_draw]",
     "if self.piles[c]]", ENGINE),
    (ENGINE_DIR + "game.py", "self.markers[self.auc_comm][loc] = False", "pass", ENGINE),
    # the board (R6, R7)
    (ENGINE_DIR + "board.py", "    1: (3, 4),", "    1: (4,),", ENGINE),
    (ENGINE_DIR + "board.py", "neighbors.append((base + (p - 1) % k, base + (p + 1) % k))",
     "neighbors.append((base + (p - 1) % k, base + (p + 2) % k))", ENGINE),
    (ENGINE_DIR + "board.py", "stack[0:0] = SUCCESSORS[loc]", "pass", ENGINE),
    # cards (R1)
    (ENGINE_DIR + "cards.py", "BLACK_COUNTS = (20, 16, 14)  # R1", "BLACK_COUNTS = (20, 15, 15)  # R1", ENGINE),
    (ENGINE_DIR + "cards.py", "BUILD_LIMIT = (3, 2, 1)", "BUILD_LIMIT = (3, 2, 2)", ENGINE),
    (ENGINE_DIR + "cards.py", "if cards[k] and KIND_LIMIT[k] < limit:", "if KIND_LIMIT[k] < limit:", ENGINE),
    (ENGINE_DIR + "actions.py", "if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):",
     "if not isinstance(action, (int, np.integer)):", ENVS + ["tests/agents/test_tournament.py"]),
    # the observation (seat-relative, hidden information)
    ("fifthave_env/observation.py", "a[fp + g.first_player] = 1", "a[fp + g.actor] = 1", OBSERVATION),
    ("fifthave_env/observation.py", "_PACK_KINDS(a, (_O[\"known_cards\"] + q * NUM_KINDS) * _FLOAT, *known)",
     "_PACK_KINDS(a, (_O[\"known_cards\"] + q * NUM_KINDS) * _FLOAT, *hands[q])", OBSERVATION),  # an opponent's hand leaks
    ("fifthave_env/observation.py", "a[_O[\"high_bidder\"] + g.auc_high_bidder] = 1",
     "a[_O[\"high_bidder\"] + g.actor] = 1", OBSERVATION),
    ("fifthave_env/observation.py", "for value in pile[: min(known, len(pile) - 1)]:",
     "for value in pile[: known]:", OBSERVATION),
    ("fifthave_env/observation.py", "a[p] = g.turn / g.config.max_turns", "a[p] = g.turn / 300", OBSERVATION),
    ("fifthave_env/observation.py", "a[sc + q] = min(g.scores[q] / 50, OBS_HIGH)",
     "a[sc + q] = min(g.scores[q] / 18, OBS_HIGH)", OBSERVATION),
    # the environments
    ("fifthave_env/env_common.py", "return 0 if game.truncated else (1 if seat in game.winners else -1)",
     "return 1 if seat in game.winners else -1", ENVS),
    ("fifthave_env/env_common.py", "return game.scores[seat] - max(game.scores[q] for q in range(game.n) if q != seat)",
     "return game.scores[seat] - max(game.scores)", ENVS),
    ("fifthave_env/fifth_avenue_v0.py", "if game.truncated:\n                self.truncations[a] = True",
     "if False:\n                self.truncations[a] = True", ENVS),
    ("fifthave_env/fifth_avenue_v0.py", "if seat == game.actor else np.zeros(NUM_ACTIONS, dtype=np.int8)",
     "if True else np.zeros(NUM_ACTIONS, dtype=np.int8)", ENVS),
    ("fifthave_env/fifth_avenue_v0.py", "self._cumulative_rewards[agent] = 0", "pass", ENVS),
    ("fifthave_env/gym_env.py", "terminated = game.is_over and not game.truncated",
     "terminated = game.is_over", ENVS),
    ("fifthave_env/gym_env.py", "return self._observer.observe(self.game, self.learner_seat)",
     "return self._observer.observe(self.game, max(self.game.actor, 0))", ENVS),
    # the tournament and its statistics
    ("agents/tournament.py", "env_seed = deal_seed(setup.seed, deal)", "env_seed = deal_seed(setup.seed, game_index)",
     TOURNAMENT),
    ("agents/tournament.py", "return [(seat + rotation) % num_players for seat in range(num_players)]",
     "return [seat for seat in range(num_players)]", TOURNAMENT),
    ("agents/tournament.py", "wins += 1 / len(record[\"winners\"])", "wins += 1",
     TOURNAMENT),
    ("agents/stats.py", "ranks.append(better + (equal + 1) / 2)", "ranks.append(better + 1)",
     TOURNAMENT),
    ("agents/tournament.py", "if before == BID_DECISION and action == BID_CONFIRM and seat not in self.confirmed_here:",
     "if before == BID_DECISION and action == BID_CONFIRM:", TOURNAMENT),
    # bidding
    ("agents/bidding.py", "return 0.7 * limit", "return 0.5 * limit", BIDDING),
    ("agents/bidding.py", "return min(0.6 * worth, 0.5 * in_hand)", "return min(0.6 * worth, 0.9 * in_hand)",
     BIDDING),
    ("agents/bidding.py", "return 1.4 * worth", "return 1.2 * worth", BIDDING),
    ("agents/bidding.py", "return 2 * worth if worth >= self.strike_worth else 0.8 * worth",
     "return 2 * worth", BIDDING),
    ("agents/bidding.py", "if total > limit:", "if total > limit + 1:", BIDDING),
]

WORKERS = 1

# Mutations judged equivalent (same behaviour for every input the code can receive), by number, with why.
EQUIVALENT = {}


def scratch_copy(root):
    """A copy of the code and the tests of the repository at ``root`` in a temporary directory."""
    target = tempfile.mkdtemp(prefix="fifthave-mutate-")
    for name in COPIED:
        source = os.path.join(root, name)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(target, name), symlinks=True,  # fifthave/agents -> ../agents stays a link
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    return target


def run_mutation(copy, number, mutation, timeout):
    path, old, new, tests = mutation
    target = os.path.join(copy, path)
    with open(target) as f:
        original = f.read()
    count = original.count(old)
    if count != 1:
        return "stale", f"the text to mutate occurs {count} times in {path}"
    with open(target, "w") as f:
        f.write(original.replace(old, new))
    try:
        started = time.perf_counter()
        workers = ["-n", str(WORKERS)] if WORKERS > 1 else []
        result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *workers,
                                 *tests],
                                cwd=copy, capture_output=True, text=True, timeout=timeout,
                                env={**os.environ, "PYTHONPATH": copy, "PYTHONDONTWRITEBYTECODE": "1"})
        seconds = time.perf_counter() - started
        if result.returncode == 0:
            return "survived", f"{seconds:.0f} s"
        failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
        if result.returncode == 1 or failed:  # with xdist, -x reports the stop as an interruption (code 2)
            return "caught", (failed[0][7:] if failed else "tests failed") + f" ({seconds:.0f} s)"
        return "error", f"pytest exit code {result.returncode}: {result.stdout[-300:]}"
    except subprocess.TimeoutExpired:
        return "caught", f"timeout after {timeout} s (an endless loop counts as caught)"
    finally:
        with open(target, "w") as f:
            f.write(original)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", type=int, nargs="+", help="mutation numbers (1-based) to run")
    parser.add_argument("--list", action="store_true", help="print the mutations and exit")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per mutation")
    parser.add_argument("--workers", type=int, default=1, help="pytest-xdist workers per run")
    parser.add_argument("--repo", default=ROOT, help="the repository (working tree) to copy and mutate")
    args = parser.parse_args(argv)
    global WORKERS
    WORKERS = args.workers
    chosen = args.only or range(1, len(MUTATIONS) + 1)
    if args.list:
        for number in chosen:
            path, old, new, _ = MUTATIONS[number - 1]
            print(f"{number:3d} {path}: {old.strip()!r} -> {new.strip()!r}")
        return 0
    copy = scratch_copy(args.repo)
    outcomes = {}
    try:
        for number in chosen:
            path, old, new, _ = MUTATIONS[number - 1]
            status, detail = run_mutation(copy, number, MUTATIONS[number - 1], args.timeout)
            outcomes[number] = status
            note = f"  [equivalent: {EQUIVALENT[number]}]" if number in EQUIVALENT else ""
            print(f"{number:3d} {status:8s} {path}: {old.strip()!r} -> {new.strip()!r}: {detail}{note}", flush=True)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    caught = sum(s == "caught" for s in outcomes.values())
    survivors = [n for n, s in outcomes.items() if s == "survived"]
    other = [n for n, s in outcomes.items() if s not in ("caught", "survived")]
    print(f"\n{caught} of {len(outcomes)} mutations caught; survivors: {survivors or 'none'}"
          + (f" (equivalent: {[n for n in survivors if n in EQUIVALENT]})" if survivors else "")
          + (f"; stale or errors: {other}" if other else ""))
    return 0 if not other else 1


if __name__ == "__main__":
    sys.exit(main())
