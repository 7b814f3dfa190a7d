#!/bin/sh
# Prices and pickup windows formatted per second on one core (CanteenFormat, cached styles).
# Usage: scripts/bench-format.sh [seconds per measurement, default 2]
set -eu
cd "$(dirname "$0")/.."
swift build -c release --product format-bench >/dev/null
bench="$(swift build -c release --show-bin-path)/format-bench"
# The benchmark is single-threaded; pin it to one core where taskset exists.
if command -v taskset >/dev/null 2>&1; then exec taskset -c 0 "$bench" "$@"; fi
exec "$bench" "$@"
