#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The whole test suite, from a fresh Debian machine: installs what is missing,
# builds the `ci` preset (this tree, warnings as errors, plus the nested TSan
# and ASan+UBSan trees; the style checks are ctests of this tree),
# and runs ctest once. Its last lines are ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh test

jobs=$(nproc)
log=build/ci-build.log
mkdir -p build
echo "bcast: configuring and building the ci preset (log: $log)"
if ! { cmake --preset ci && cmake --build --preset ci -j "$jobs"; } >"$log" 2>&1; then
  tail -n 60 "$log"
  echo "bcast: build failed"
  exit 1
fi
# Parallel builds inside the nested sanitizer trees, too.
export CMAKE_BUILD_PARALLEL_LEVEL="$jobs"
exec ctest --preset ci -j "$jobs" --timeout 1800
