#!/usr/bin/env bash
# `make fuzz`: the parsers of untrusted bytes under libFuzzer with AddressSanitizer
# (Benchmarks/FuzzTargets, one binary `canteen-fuzz`, the target chosen by CANTEEN_FUZZ_TARGET).
#
#   scripts/fuzz.sh [SECONDS per target, default 120] [TARGETS, default "btsnoop hci nfc menu order"]
#
# Corpora grow in .build-fuzz/corpus/TARGET (kept between runs), seeded from
# Benchmarks/FuzzTargets/Seeds/TARGET (and Menus/ for menu). A crash, a sanitizer report or a
# broken invariant stops that target and leaves the input in .build-fuzz/findings/TARGET/:
# fix it, then copy it to Tests/FuzzRegressionTests/Findings/TARGET/ so `make test` replays it.
# Prints runs and executions per second for each target; exits 1 when any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-120}"
targets="${2:-btsnoop hci nfc menu order}"
scratch=".build-fuzz"

echo "### Building canteen-fuzz (release, -sanitize=fuzzer,address) in $scratch"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! swift build -c release --product canteen-fuzz --scratch-path "$scratch" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
bin="$scratch/release/canteen-fuzz"

found=0
results=()
for target in $targets; do
    corpus="$scratch/corpus/$target"
    findings="$scratch/findings/$target"
    mkdir -p "$corpus" "$findings"
    seeds=("Benchmarks/FuzzTargets/Seeds/$target")
    [ "$target" = menu ] && seeds+=("Menus")
    echo "### $target: ${seconds} s"
    status=0
    CANTEEN_FUZZ_TARGET="$target" "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
        -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >"$scratch/$target.log" 2>&1 || status=$?
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$target.log" | tail -1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$scratch/$target.log" | tail -1)"
    coverage="$(grep -o 'cov: [0-9]*' "$scratch/$target.log" | tail -1 | cut -d' ' -f2)"
    artifacts="$(find "$findings" -type f | wc -l)"
    if [ "$status" != 0 ] || [ "$artifacts" != 0 ]; then
        found=1
        grep -m 5 -E 'ERROR|fatal error|fuzz invariant|SUMMARY' "$scratch/$target.log" || true
        echo "    findings in $findings (exit $status)"
    fi
    results+=("$(printf '%-8s %12s runs %10s exec/s  coverage %6s  corpus %5s  findings %s' \
        "$target" "${runs:-?}" "${rate:-?}" "${coverage:-?}" "$(find "$corpus" -type f | wc -l)" "$artifacts")")
done

echo
echo "### canteen-fuzz, ${seconds} s per target, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}"
exit "$found"
