#!/bin/sh
# Prices and pickup windows formatted per second on one core (CanteenFormat, cached styles).
# Usage: scripts/bench-format.sh [seconds per measurement, default 2]
#        scripts/bench-format.sh --calls N   (exactly N calls each, for callgrind)
set -eu
cd "$(dirname "$0")/.."
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! swift build -c release --product format-bench >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
bench="$(swift build -c release --show-bin-path 2>/dev/null)/format-bench"
# The benchmark is single-threaded; pin it to one core where taskset exists.
if command -v taskset >/dev/null 2>&1; then
    taskset -c 0 "$bench" "$@"
else
    "$bench" "$@"
fi
