#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The main job: the position experiment (plain vs atomic receiver position,
# and the Rust peers), quick mode unless --full is given.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh bench
if [ "${1:-}" = "--full" ]; then
  exec python3 bench/run_experiment.py
fi
exec python3 bench/run_experiment.py --quick
