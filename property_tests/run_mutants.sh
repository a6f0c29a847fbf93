#!/usr/bin/env bash
# Seeded mutants vs. the property tests (docs/property-tests.md).
#
# For each of the four single-threaded mutants in model_tests/mutants/, apply
# it to a scratch copy of impl/, compile the property-test binary against that
# copy (the channel's own asserts off, -DNDEBUG, so a kill comes from a
# property, not from an internal assert), run the std_primitives instantiation of
# every property with a modest RC_PARAMS, and require at least one property to
# fail. The unmutated code is built and run the same way first, as a control:
# it must pass, so a kill cannot come from the setup. Prints a table
# mutant / killed-by; exit status 0 iff every mutant is killed.
#
# usage: run_mutants.sh [REPO_ROOT] [WORK_DIR]
# env:   CXX (g++), BCAST_MUTANT_RC_PARAMS ("max_success=1000 noshrink=1"),
#        BCAST_MUTANT_JOBS (nproc), BCAST_MUTANT_CXXFLAGS, BCAST_MUTANT_LIBS
set -euo pipefail

root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
work=${2:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cxx=${CXX:-g++}
rc_params=${BCAST_MUTANT_RC_PARAMS:-"max_success=1000 noshrink=1"}
jobs=${BCAST_MUTANT_JOBS:-$(nproc)}
extra_flags=${BCAST_MUTANT_CXXFLAGS:-}
libs=${BCAST_MUTANT_LIBS:-"-lrapidcheck -lgtest_main -lgtest"}
mutants=(missed-count-off-by-one copy-starts-at-tail drop-keeps-unread evict-newest)

# ---- build: the control and every mutant, $jobs at a time ------------------
build() { # name [patch]
    local name=$1 patch=${2:-} dir="$work/$1"
    rm -rf "$dir" && mkdir -p "$dir"
    cp -r "$root/impl" "$dir/impl"
    if [[ -n $patch ]]; then
        (cd "$dir" && patch -s -p1 < "$patch") > "$dir/patch.log" 2>&1 || { echo "patch failed" >> "$dir/patch.log"; return 1; }
    fi
    # shellcheck disable=SC2086
    "$cxx" -std=c++20 -O1 -DNDEBUG -w $extra_flags \
        -I"$dir/impl/include" -I"$root/spec/include" -I"$root/property_tests/include" -I"$root/impl/tests/support" \
        "$root/property_tests/src/properties.cpp" -o "$dir/properties" $libs -pthread \
        > "$dir/build.log" 2>&1
}

pids=()
names=(control "${mutants[@]}")
for name in "${names[@]}"; do
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
    if [[ $name == control ]]; then build control & else build "$name" "$root/model_tests/mutants/$name.patch" & fi
    pids+=($!)
done
status=0
for i in "${!names[@]}"; do
    if ! wait "${pids[$i]}"; then
        echo "ERROR: could not build '${names[$i]}':"; cat "$work/${names[$i]}/patch.log" "$work/${names[$i]}/build.log" 2>/dev/null | tail -30
        status=2
    fi
done
(( status == 0 )) || exit $status

# ---- run -------------------------------------------------------------------
run() { # name [checks] -> prints the failed properties, or "crash (...)", or nothing
    local dir="$work/$1" checks=${2:-all} rc=0
    local log="$dir/run-$checks.log"
    BCAST_PROPERTY_CHECKS=$checks RC_PARAMS="$rc_params" "$dir/properties" --gtest_filter='std_primitives.*' > "$log" 2>&1 || rc=$?
    local failed
    failed=$(sed -n 's/^\[  FAILED  \] std_primitives\.\([a-z_]*\)[, ].*/\1/p' "$log" | sort -u | paste -sd, -)
    if (( rc > 128 )) || { (( rc != 0 )) && [[ -z $failed ]]; }; then
        failed="crash (exit $rc)${failed:+, $failed}"
    fi
    echo "$failed"
}

control=$(run control)
control_named=$(run control named)
if [[ -n $control || -n $control_named ]]; then
    echo "ERROR: the unmutated code fails the property tests: $control / $control_named (see $work/control/)"
    exit 2
fi

# Column 2: the properties as they run in the suite (every result compared with
# the spec model, plus each property's own statement). Column 3: the same runs
# with the comparison off (BCAST_PROPERTY_CHECKS=named), so only the named
# statements (overflow, lag, close, lifetimes, ...) can fail.
row() { printf '%-24s | %-58s | %s\n' "$@"; }
echo "RC_PARAMS=\"$rc_params\", properties std_primitives.*, impl asserts off (-DNDEBUG)"
row "mutant" "killed by (suite as run)" "killed by (named statements alone)"
row "------------------------" "----------------------------------------------------------" "----------------------------------"
row "(control: unmutated)" "none - passes" "none - passes"
for name in "${mutants[@]}"; do
    killed_by=$(run "$name")
    named=$(run "$name" named)
    if [[ -z $killed_by ]]; then killed_by="SURVIVED"; status=1; fi
    row "$name" "$killed_by" "${named:-survived}"
done
echo "logs: $work/<mutant>/run-{all,named}.log"
exit $status
