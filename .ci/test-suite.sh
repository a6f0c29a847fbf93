#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The whole test suite, from a fresh Debian machine: installs what is missing,
# builds the `ci` preset (this tree, warnings as errors, plus the nested TSan
# and ASan+UBSan trees; the style checks are ctests of this tree),
# and runs ctest once. Its last lines are ctest's summary (after a failure:
# each failed test's reason, then ctest's list of failures again).
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
set +e
ctest --preset ci -j "$jobs" --timeout 1800 2>&1 | tee build/ci-ctest.log
status=${PIPESTATUS[0]}
set -e
# CI shows a red run's last lines only: why each test failed (.ci/why-failed.py),
# then ctest's list of failures again, so that its summary stays the last line.
if [ "$status" -ne 0 ]; then
  python3 .ci/why-failed.py build/ci-ctest.log
  sed -n '/^The following tests FAILED:/,$p' build/ci-ctest.log
fi
exit "$status"
