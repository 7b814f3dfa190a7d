#!/usr/bin/env bash
# Kitchen timing (issue 30): `canteen kitchen simulate` replays a quiet hour and a lunch rush
# against a server it starts (release build, temporary SQLite database, clock 30 times real time)
# and records, per scenario, the median and p90 absolute error of `readyAt` and of the naive
# quote ("placing time + the longest dish's prep time"), beside the targets: readyAt p90 at most
# 2 minutes in a rush where the naive quote is off by more than 5 minutes (p90).
#
#   scripts/bench-kitchen.sh [--seed N] [--speed X] [--skip-build]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

seed=1
speed=30
build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --seed) seed="$2"; shift 2 ;;
        --speed) speed="$2"; shift 2 ;;
        --skip-build) build=0; shift ;;
        *) echo "usage: scripts/bench-kitchen.sh [--seed N] [--speed X] [--skip-build]" >&2; exit 2 ;;
    esac
done
[ "$build" = 1 ] && swift build -c release --product canteen >/dev/null
bin="$(swift build -c release --show-bin-path 2>/dev/null)/canteen"
[ -x "$bin" ] || { echo "bench-kitchen: $bin is missing (swift build -c release --product canteen)" >&2; exit 1; }

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
"$bin" kitchen simulate --seed "$seed" --speed "$speed" --json "$results"

# The targets, recorded as figures so that each measured one stands beside its target.
figure kitchen.target.readyat_p90 120 s lower "kitchen: readyAt p90 error ceiling (target)"
figure kitchen.target.naive_p90 300 s higher "kitchen: naive p90 error that makes a rush (target floor)"
while read -r name ready_median ready_p90 naive_median naive_p90; do
    figure "kitchen.$name.readyat_median" "$ready_median" s lower "kitchen $name: readyAt error, median"
    figure "kitchen.$name.readyat_p90" "$ready_p90" s lower "kitchen $name: readyAt error, p90" kitchen.target.readyat_p90
    figure "kitchen.$name.naive_median" "$naive_median" s lower "kitchen $name: naive quote error, median"
    figure "kitchen.$name.naive_p90" "$naive_p90" s lower "kitchen $name: naive quote error, p90" kitchen.target.naive_p90
done < <(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["name"], r["readyAt"]["median"], r["readyAt"]["p90"], r["naive"]["median"], r["naive"]["p90"])
' "$results")
python3 - "$results" <<'PY'
import json, sys
rush = next((r for r in json.load(open(sys.argv[1])) if r["name"] == "rush"), None)
if rush:
    met = rush["readyAt"]["p90"] <= 120 and rush["naive"]["p90"] > 300
    print(f"rush: readyAt p90 {rush['readyAt']['p90']} s (ceiling 120 s), naive p90 {rush['naive']['p90']} s "
          f"(a rush needs > 300 s): target {'met' if met else 'NOT met'}")
PY
