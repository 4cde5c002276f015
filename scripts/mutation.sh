#!/usr/bin/env bash
# Mutation testing with mutmut (the `mutation` extra), one module at a time, each against the
# tests that guard it, so a run takes minutes rather than the whole suite per mutant.
# Not run in CI (slow). Results and the judgement of every survivor: docs/mutation.md.
#
#   bash scripts/mutation.sh determinize          # one module (names below)
#   bash scripts/mutation.sh all                  # every module, one after the other
#   MUTATION_JOBS=1 bash scripts/mutation.sh stats  # fewer parallel workers on a shared machine
#   bash scripts/mutation.sh savefile 'fifthave_env.engine.savefile.x__first_player*'
#                                                 # only the mutants of some functions (mutmut's globs)
#   MUTATION_TIMEOUT_MULTIPLIER=60 bash scripts/mutation.sh ppo   # a longer timeout (mutmut's default 15)
#   MUTATION_ISOLATION=fork bash scripts/mutation.sh stats   # mutmut's fork isolation (default here: forkserver)
#
# Each module runs in its own scratch copy of the repository (build/mutation/NAME), so the
# work tree is never modified; `cd build/mutation/NAME && mutmut results` / `mutmut show
# MUTANT` / `mutmut browse` inspect a finished run there. The summary line per module is
# appended to build/mutation/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python
MUTMUT="$(dirname "$PYTHON")/mutmut"
[ -x "$MUTMUT" ] || MUTMUT=mutmut
JOBS=${MUTATION_JOBS:-2}

# module name -> "source file|test files[|pytest -k expression]" (the tests that exercise the module, by
# file name: found anywhere under tests/, so the table holds in a flat tests/ and in the folders per
# layer; the -k expression leaves out slow tests that a faster one in the set replaces as a guard).
# MUTATION_K overrides the expression (MUTATION_K= for every test of the files: a re-run of survivors).
declare -A MODULES=(
  [determinize]="fifthave_env/engine/determinize.py|test_determinize.py test_determinize_leaks.py"
  [stats]="fifthave/agents/stats.py|test_stats.py test_stats_reference.py test_stats_definitions.py"
  [checks]="fifthave_env/engine/checks.py|test_validation.py test_checks.py test_savefile.py"
  [savefile]="fifthave_env/engine/savefile.py|test_savefile_definitions.py test_savefile_reference.py test_savefile.py|not every_configuration_and_decision and not property_a_mutated"
  [bidlab]="fifthave/agents/bidlab.py|test_bidlab.py test_bidlab_reference.py test_bidlab_definitions.py"
  [search]="fifthave/agents/search.py|test_search.py test_search_reference.py"
  [ppo]="fifthave/train/ppo.py|test_ppo_setup.py test_ppo.py test_ppo_kl.py test_ppo_definitions.py test_train.py test_reproduce.py"
  [candidate_values]="fifthave/train/candidate_values.py|test_candidate_values_definitions.py test_candidate_values_fit_loss.py test_candidate_values_pool.py test_candidate_values_reference.py test_candidate_values_advice_free.py test_candidate_values.py|not trains_evaluates_and_reproduces and not interrupted_collection_resumes and not ctrl_c"
  [values_agent]="fifthave/train/values_agent.py|test_candidate_values.py test_candidate_values_advice_free.py test_values_agent_definitions.py test_candidate_values_fit_loss.py"
  [checkpoint]="fifthave/train/checkpoint.py|test_checkpoint.py test_checkpoint_definitions.py test_league.py"
  [openspiel_game]="fifthave_env/openspiel_game.py|test_openspiel_game.py test_openspiel_game_definitions.py"
)
ORDER="determinize checks values_agent checkpoint search bidlab stats candidate_values openspiel_game savefile ppo"  # fastest first

run_module() {
  local name=$1 spec=${MODULES[$1]:-}
  shift
  local only=("$@")  # mutant name globs; none: every mutant of the module
  if [ -z "$spec" ]; then
    echo "unknown module '$name'; one of: $ORDER, all" >&2
    exit 2
  fi
  local source=${spec%%|*} rest=${spec#*|} tests="" t
  local files=${rest%%|*} select=""
  [ "$files" != "$rest" ] && select=${rest#*|}
  select=${MUTATION_K-$select}
  for t in $files; do
    t=$(find tests -name "$t" | head -1)
    [ -n "$t" ] && tests="$tests $t"
  done
  local work=$ROOT/build/mutation/$name
  rm -rf "$work"
  mkdir -p "$work"
  # agents/ and train/ are imported as fifthave.agents / fifthave.train through symlinks; mutmut
  # names a mutant after its file's path and only activates it in the module of that name, and its
  # copy does not follow symlinks: the scratch copy makes them real folders under fifthave/ (-L).
  # The top-level agents/ and train/ are copied too (tests read files there), never imported.
  local packages="fifthave_env fifthave" p
  cp -rL fifthave_env fifthave agents train tests pyproject.toml "$work"/
  find "$work" -name __pycache__ -prune -exec rm -rf {} +
  {
    echo "[mutmut]"
    echo "source_paths ="
    for p in $packages; do echo "    $p"; done
    echo "only_mutate = $source"
    echo "pytest_add_cli_args_test_selection ="
    for t in $tests; do echo "    $t"; done
    if [ -n "$select" ]; then echo "    -k"; echo "    $select"; fi
    # mutmut's timeout is (estimated test time + 1 s) x this (its default 15); a loaded machine
    # can push a slow guard test past it, so re-runs of timeouts raise it
    if [ -n "${MUTATION_TIMEOUT_MULTIPLIER:-}" ]; then echo "timeout_multiplier = $MUTATION_TIMEOUT_MULTIPLIER"; fi
    # fork (mutmut's default) forks each mutant's child from the process that ran the tests: after torch ran
    # there, children of ppo hung on a lock (no CPU) or failed tests that pass (docs/mutation.md);
    # forkserver forks them from a clean server process
    echo "process_isolation = ${MUTATION_ISOLATION:-forkserver}"
  } > "$work/setup.cfg"
  echo "== $name: mutating $source, tests:$tests${select:+ (-k '$select')}"
  # no PYTHONPATH: mutmut puts its mutated copy first on sys.path. One torch/OpenMP thread: mutmut
  # forks a child per mutant from the process that ran the tests, and a fork taken after torch's
  # thread pool ran can wait forever on a lock a pool thread held (values_agent's run hung so).
  (cd "$work" && env -u PYTHONPATH OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$MUTMUT" run --max-children "$JOBS" "${only[@]}" > run.log 2>&1) || true
  (cd "$work" && env -u PYTHONPATH "$MUTMUT" results --all true > results.txt 2>&1) || true
  local killed survived unchecked other total
  killed=$(grep -c ': killed$' "$work/results.txt" || true)
  survived=$(grep -c ': survived$' "$work/results.txt" || true)
  unchecked=$(grep -c ': not checked$' "$work/results.txt" || true)  # outside the globs
  total=$(grep -c ': ' "$work/results.txt" || true)
  other=$((total - killed - survived - unchecked))
  local line="$name: $((total - unchecked)) mutants run (of $total), $killed killed, $survived survived,"
  line="$line $other other (timeout/no tests/suspicious)"
  echo "$line"
  echo "$(date -u +%FT%TZ) $line" >> "$ROOT/build/mutation/summary.txt"
  grep -v ': killed$\|: not checked$' "$work/results.txt" || true
}

target=${1:-}
if [ -z "$target" ]; then
  echo "usage: bash scripts/mutation.sh MODULE|all   (MODULE: $ORDER)" >&2
  exit 2
fi
mkdir -p build/mutation
if [ "$target" = all ]; then
  for m in $ORDER; do run_module "$m"; done
else
  shift
  run_module "$target" "$@"
fi
