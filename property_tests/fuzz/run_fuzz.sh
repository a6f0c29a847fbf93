#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the libFuzzer target with clang and fuzzes for SECONDS, starting from
# the seed corpus in this folder (which it never writes to: new inputs go to
# BUILD_DIR/corpus). Extra arguments go to libFuzzer (e.g. -jobs=8 -workers=8).
#
# usage: run_fuzz.sh [SECONDS] [BUILD_DIR] [libFuzzer args...]
# env:   BCAST_FUZZ_CXX (clang++-14, else clang++)
#        BCAST_FUZZ_TARGET: commands (default: the command language on the channel
#        and the model, corpus/) or history (the history reader and checker,
#        history_corpus/)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-60}
build=${2:-$root/build-fuzz}
# Absolute: the script changes into it, and libFuzzer is given paths below it.
mkdir -p "$build" && build=$(cd "$build" && pwd)
shift $(( $# > 2 ? 2 : $# ))

cxx=${BCAST_FUZZ_CXX:-$(command -v clang++-14 || command -v clang++ || true)}
if [[ -z $cxx ]]; then echo "run_fuzz.sh: no clang++ found (set BCAST_FUZZ_CXX)"; exit 2; fi
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi

cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DBCAST_ROOT="$root" > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 2; }
target=${BCAST_FUZZ_TARGET:-commands}
case $target in
  commands) binary=bcast_fuzz; seeds=$here/corpus; max_len=1201 ;;        # 1 + 3 * 400 commands (longer inputs are ignored)
  history)  binary=bcast_fuzz_history; seeds=$here/history_corpus; max_len=8192 ;; # the target ignores longer files
  *) echo "run_fuzz.sh: BCAST_FUZZ_TARGET must be commands or history"; exit 2 ;;
esac
cmake --build "$build" --target "$binary" || exit 2

mkdir -p "$build/corpus-$target" "$build/artifacts"
cd "$build"
# -timeout: seconds per input.
exec "./$binary" -max_total_time="$seconds" -timeout=10 -max_len=$max_len -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/" "$@" "$build/corpus-$target" "$seeds"
