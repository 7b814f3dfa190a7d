#!/usr/bin/env bash
# `make bench`: every benchmark, release builds, all figures printed.
#   1. scripts/bench-format.sh   prices and pickup windows formatted per second (one core)
#   2. scripts/bench-beacons.sh  iBeacon parsing + ranging vs Python's beacontools
#   3. scripts/bench-server.sh   the HTTP server of issue 4 (orders, 304 polls, order-to-display)
#   4. scripts/bench-pages.py    the kitchen display in headless Chromium: order → DOM, 200 tickets rendered
#   5. scripts/bench-app.py      the employee page: sign-in round trip, order ready → page shows ready
#   6. scripts/bench-engines.sh  SQLite vs PostgreSQL with one and two servers (orders/s, order-to-display)
#   7. scripts/bench-kitchen.sh  ready-time quotes against a simulated quiet hour and lunch rush (issue 30)
#   8. scripts/bench-reports.py  the console's reports over 100,000 orders, SQLite and PostgreSQL (issue 33)
# See docs/benchmarks.md for what each figure means. Installs wrk (Debian) when it is missing.
#
# BASELINE=REF (a commit, tag or branch) also builds that commit's release `canteen` in a
# git-ignored worktree (.build-baseline/) and runs the server's orders and parked-display phases
# against it in the same run, so that a change is judged against what it replaced.
#
# Every figure is also recorded (scripts/bench-lib.sh, Benchmarks/BenchFigures) and written by
# scripts/bench-report.py to $BENCH_OUT/results.json and results.md (default bench/, which also
# updates the table in docs/benchmarks.md); `make bench-check` compares a run with bench/results.json.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${BENCH_OUT:-bench}"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p .build-bench
export BENCH_FIGURES="$PWD/.build-bench/figures.jsonl"
: >"$BENCH_FIGURES"

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
for product in canteen server-bench bare-hummingbird format-bench beacon-bench; do
    if ! swift build -c release --product "$product" >"$log" 2>&1; then
        cat "$log" >&2
        exit 1
    fi
done

baseline_args=()
if [ -n "${BASELINE:-}" ]; then
    echo "### Building the baseline $BASELINE (release, .build-baseline/)"
    baseline_src=".build-baseline/src"
    wanted="$(git rev-parse "$BASELINE^{commit}")"
    if [ ! -d "$baseline_src" ] || [ "$(git -C "$baseline_src" rev-parse HEAD)" != "$wanted" ]; then
        git worktree remove --force "$baseline_src" 2>/dev/null || rm -rf "$baseline_src"
        git worktree add --detach "$baseline_src" "$wanted" >/dev/null
    fi
    if ! (cd "$baseline_src" && swift build -c release --product canteen) >"$log" 2>&1; then
        cat "$log" >&2
        exit 1
    fi
    baseline_args=(--baseline-bin "$(cd "$baseline_src" && swift build -c release --show-bin-path)/canteen")
fi

echo; echo "### Formatting (scripts/bench-format.sh)"
scripts/bench-format.sh
echo; echo "### iBeacons (scripts/bench-beacons.sh)"
scripts/bench-beacons.sh
echo; echo "### Server (scripts/bench-server.sh)"
scripts/bench-server.sh --skip-build "${baseline_args[@]}"
echo; echo "### Pages in a browser (scripts/bench-pages.py)"
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    make --no-print-directory venv >/dev/null
    .build-venv/bin/python scripts/bench-pages.py --bin "$(swift build -c release --show-bin-path)/canteen"
else
    echo "chromium and chromium-driver are not installed (make deps installs them): skipped"
fi

echo; echo "### The employee page (scripts/bench-app.py)"
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    make --no-print-directory venv >/dev/null
    .build-venv/bin/python scripts/bench-app.py --bin "$(swift build -c release --show-bin-path)/canteen"
else
    echo "chromium and chromium-driver are not installed (make deps installs them): skipped"
fi

echo; echo "### Engines (scripts/bench-engines.sh)"
scripts/bench-engines.sh --skip-build

echo; echo "### Kitchen timing (scripts/bench-kitchen.sh)"
scripts/bench-kitchen.sh --skip-build
echo; echo "### The console's reports over 100,000 orders (scripts/bench-reports.py)"
python3 scripts/bench-reports.py --bin "$(swift build -c release --show-bin-path)/canteen"
if command -v psql >/dev/null 2>&1 && [ -x /usr/lib/postgresql/15/bin/postgres ]; then
    reports_pg="$(mktemp -d /tmp/canteen-bench-reports-pg-XXXXXX)"
    reports_url="$(scripts/private-postgres.sh start "$reports_pg")"
    python3 scripts/bench-reports.py --bin "$(swift build -c release --show-bin-path)/canteen" \
        --database "$reports_url" || reports_failed=1
    scripts/private-postgres.sh stop "$reports_pg" || true
    rm -rf "$reports_pg"
    [ -z "${reports_failed:-}" ]
fi

echo; echo "### Report ($out/results.json, $out/results.md)"
table_in=()
[ "$out" = bench ] && table_in=(--table-in docs/benchmarks.md)
python3 scripts/bench-report.py write "$BENCH_FIGURES" "$out" --load-before "$load_before" "${table_in[@]}"
