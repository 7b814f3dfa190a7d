#!/usr/bin/env bash
# `make bench`: every benchmark, release builds, all figures printed.
#   1. scripts/bench-format.sh   prices and pickup windows formatted per second (one core)
#   2. scripts/bench-beacons.sh  iBeacon parsing + ranging vs Python's beacontools
#   3. scripts/bench-server.sh   the HTTP server of issue 4 (orders, 304 polls, order-to-display)
# See docs/benchmarks.md for what each figure means. Installs wrk (Debian) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v wrk >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "Installing wrk (Debian) for the healthz and 304-poll figures"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1 \
        || { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1; } \
        || echo "wrk could not be installed: its figures are skipped"
fi

echo "### Building release products"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for product in canteen server-bench format-bench beacon-bench; do
    if ! swift build -c release --product "$product" >"$log" 2>&1; then
        cat "$log" >&2
        exit 1
    fi
done

echo; echo "### Formatting (scripts/bench-format.sh)"
scripts/bench-format.sh
echo; echo "### iBeacons (scripts/bench-beacons.sh)"
scripts/bench-beacons.sh
echo; echo "### Server (scripts/bench-server.sh)"
scripts/bench-server.sh --skip-build
