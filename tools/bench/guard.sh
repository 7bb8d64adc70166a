#!/usr/bin/env bash
# The regression guard: the three-step workflow (api trigger → condition → condition) at 1, 10 and 50
# clients with `Prefer: wait`, against the all-in-one process `npm start` runs, on Node 24 LTS (what
# production runs). It prints the runs benchmark's tables and, last, one row for the dated table in
# docs/benchmarks.md ("Regression guard"): date, commit, Node, runs/s and p50 / p99 per level, load.
#
#   bash tools/bench/guard.sh [--seconds 10]
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../ci/node24.sh
source tools/ci/node24.sh
npm run --silent build
node dist/tools/bench/runs-bench.js --mode prefer --clients 1,10,50 --seconds 10 "$@"
