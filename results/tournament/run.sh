#!/usr/bin/env bash
# The measured tournaments of results/tournament/README.md (600 games each, seed 0, 2 workers).
set -euo pipefail
cd "$(dirname "$0")/../.."
T=".venv/bin/fifthave tournament --games 600 --seed 0 --workers ${WORKERS:-2} --quiet"
OUT=results/tournament
for board in 5 6; do
  $T --board $board --agents heuristic random*3 --out $OUT/heuristic_vs_random_4p_board$board
  $T --board $board --agents heuristic greedy*3  --out $OUT/heuristic_vs_greedy_4p_board$board
  $T --board $board --agents heuristic greedy*2  --out $OUT/heuristic_vs_greedy_3p_board$board
  $T --board $board --agents heuristic greedy    --out $OUT/heuristic_vs_greedy_2p_board$board
done
$T --agents heuristic-value heuristic-conservative heuristic-aggressive heuristic-hoarder --out $OUT/bidding_4p_board5
$T --agents heuristic-value heuristic-aggressive heuristic-hoarder --out $OUT/bidding_3p_board5
$T --agents greedy random random random --out $OUT/greedy_vs_random_4p_board5
