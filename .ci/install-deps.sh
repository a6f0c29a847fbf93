#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Installs the Debian packages bcast needs that are missing, and nothing else.
# Usage: bash .ci/install-deps.sh test|bench
set -euo pipefail

common=(cmake make g++ python3 patch libgtest-dev libgmock-dev libbenchmark-dev)
case "${1:-test}" in
  test)  wanted=("${common[@]}" clang libclang-rt-14-dev clang-format clang-tidy librapidcheck-dev relacy-dev valgrind doxygen libasio-dev gdb
                 pkg-config clang-19 libc++-19-dev libc++abi-19-dev lintian
                 cargo rustc librust-async-broadcast-dev librust-futures-lite-dev librust-serde-json-dev librust-waker-fn-dev
                 librust-tokio-dev) ;;
  bench) wanted=("${common[@]}" valgrind binutils gnuplot-nox cargo rustc
                 librust-async-broadcast-dev librust-tokio-dev librust-futures-lite-dev librust-libc-dev) ;;
  *) echo "usage: $0 test|bench" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bcast: installing missing Debian packages: ${missing[*]}"
run_as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "bcast: run as root, or install: ${missing[*]}" >&2; exit 1; }
  run_as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${run_as_root[@]}" apt-get update -q >/dev/null
"${run_as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
