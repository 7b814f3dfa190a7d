#!/usr/bin/env bash
# The engines side by side (issue 15), in one run on one machine state: orders/s and
# order-to-display latency on
#   1. SQLite, one server (the embedded default);
#   2. PostgreSQL, one server;
#   3. PostgreSQL, two servers on one database (kiosks spread over both; displays on the first,
#      the display phase's orders sent to the second, so every ticket crosses servers).
# PostgreSQL is a private, durable (fsync on) server of Debian's postgresql-15 in a temporary
# folder, stopped at the end. For "where the time goes", each orders phase also reports the CPU
# the canteen servers and the PostgreSQL processes used per order, the transactions PostgreSQL
# committed (orders per commit = the group commit's batch), and what one fdatasync costs here.
#
#   scripts/bench-engines.sh [--duration S] [--warmup S] [--connections N] [--skip-build]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

duration=10
warmup=2
connections=32
build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --skip-build) build=0; shift ;;
        *) echo "usage: scripts/bench-engines.sh [--duration S] [--warmup S] [--connections N] [--skip-build]" >&2; exit 2 ;;
    esac
done

if [ "$build" = 1 ]; then
    for product in canteen server-bench; do swift build -c release --product "$product" >/dev/null; done
fi
# BENCH_BIN points at other builds of canteen and server-bench (an A/B of two builds).
bin="${BENCH_BIN:-$(swift build -c release --show-bin-path 2>/dev/null)}"
for product in canteen server-bench; do
    [ -x "$bin/$product" ] || { echo "bench-engines: $bin/$product is missing (swift build -c release --product $product)" >&2; exit 1; }
done
ulimit -n 65536 2>/dev/null || true

work="$(mktemp -d)"
pgdir="$(mktemp -d /tmp/canteen-bench-pg-XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    scripts/private-postgres.sh stop "$pgdir" >/dev/null 2>&1 || true
    rm -rf "$work" "$pgdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

url="$(scripts/private-postgres.sh start "$pgdir" --durable)"
postmaster="$(head -1 "$pgdir/data/postmaster.pid")"
echo "== engines: SQLite (WAL, synchronous=FULL) vs a private PostgreSQL 15 (fsync on, synchronous_commit on) at $url"
echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores shared by servers, PostgreSQL and the client)"

# The bench café, as scripts/bench-server.sh makes it (scripts/bench-cafe.py).
scripts/bench-cafe.py "$work"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# CPU ticks (user + system, 1/100 s) of a list of PIDs; of every PostgreSQL process of the cluster.
ticks() { local total=0; for pid in "$@"; do total=$(( total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0) )); done; echo "$total"; }
pg_ticks() { ticks "$postmaster" $(pgrep -P "$postmaster" || true); }
# Transactions that wrote tickets (one update of the feed's position row each): the group commits.
batches() { sleep 1; psql -X -tAq "$1" -c "SELECT COALESCE(SUM(n_tup_upd), 0) FROM pg_stat_user_tables WHERE relname = 'feedsequence'"; }

# run LABEL ENGINE SERVERS: fresh database, SERVERS servers, the orders then the display phase.
run() {
    local label="$1" engine="$2" count="$3" store=() ports=()
    local database="${url/\/canteen\?//bench_${label//-/_}?}"
    if [ "$engine" = sqlite ]; then
        store=(--data-dir "$work/$label")
    else
        psql -X -q "$url" -c "CREATE DATABASE bench_${label//-/_}" >/dev/null
        store=(--database "$database")
    fi
    local kiosk kitchen ops
    ops="$("$bin/canteen" tokens create --role ops --name bench-ops "${store[@]}" 2>/dev/null)"
    kiosk="$("$bin/canteen" tokens create --role kiosk --name bench-kiosk "${store[@]}" 2>/dev/null)"
    kitchen="$("$bin/canteen" tokens create --role kitchen --name bench-kitchen "${store[@]}" 2>/dev/null)"
    local servers=()
    for n in $(seq "$count"); do
        local port; port="$(free_port)"
        "$bin/canteen" serve "${store[@]}" --port "$port" --menus Menus --log-level warning >"$work/$label-$n.log" 2>&1 &
        servers+=("$!"); pids+=("$!"); ports+=("$port")
        for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    done
    put_bench_cafe "${ports[0]}" "$ops" "$work" || return 1
    local order_ports; order_ports="$(IFS=,; echo "${ports[*]}")"
    local canteen_before pg_before commits_before canteen_after pg_after commits_after
    canteen_before="$(ticks "${servers[@]}")"; pg_before="$(pg_ticks)"
    commits_before="$([ "$engine" = sqlite ] && echo 0 || batches "$database")"
    BENCH_FIGURES="" "$bin/server-bench" --port "${ports[0]}" --order-ports "$order_ports" --kiosk-token "$kiosk" --kitchen-token "$kitchen" \
        --cafe bench --connections "$connections" --warmup "$warmup" --duration "$duration" --phases orders \
        >"$work/$label.orders" 2>&1 || true
    canteen_after="$(ticks "${servers[@]}")"; pg_after="$(pg_ticks)"
    commits_after="$([ "$engine" = sqlite ] && echo 0 || batches "$database")"
    local placed
    if [ "$engine" = sqlite ]; then
        placed="$(python3 -c "import sqlite3; print(sqlite3.connect('$work/$label/canteen.sqlite').execute('SELECT COUNT(*) FROM customerOrder').fetchone()[0])")"
    else
        placed="$(psql -X -tAq "$database" -c "SELECT COUNT(*) FROM customerOrder")"
    fi
    BENCH_FIGURES="" "$bin/server-bench" --port "${ports[0]}" --order-ports "${ports[-1]}" --kiosk-token "$kiosk" --kitchen-token "$kitchen" \
        --cafe bench --phases display >"$work/$label.display" 2>&1 || true
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done

    # Orders counted over warm-up and measurement both (what the CPU and commit counters saw).
    local per_second p99 display_p99
    per_second="$(sed -n 's/^POST \/v1\/orders.*: \([0-9]*\) orders\/s.*/\1/p' "$work/$label.orders")"
    p99="$(sed -n 's/^POST \/v1\/orders.*p99 \([0-9.]* ms\).*/\1/p' "$work/$label.orders")"
    display_p99="$(sed -n 's/^order-to-display.*p99 \([0-9.]* ms\).*/\1/p' "$work/$label.display")"
    python3 - "$label" "${per_second:-0}" "${p99:-?}" "${display_p99:-?}" "$placed" "$(( canteen_after - canteen_before ))" \
        "$(( pg_after - pg_before ))" "$(( commits_after - commits_before ))" "$engine" <<'PY'
import sys
label, per_second, p99, display_p99, placed, canteen, pg, commits, engine = sys.argv[1:]
placed, canteen, pg, commits = int(placed or 0), int(canteen), int(pg), int(commits)
line = f"{label:<22} {per_second:>7} orders/s  order p99 {p99:>9}  order-to-display p99 {display_p99:>9}"
if placed:
    line += f"  | CPU per order: canteen {canteen * 10 / placed * 1000:6.0f} µs"
    if engine != "sqlite":
        line += f", postgres {pg * 10 / placed * 1000:6.0f} µs; {commits} ticket-writing commits, {placed / max(commits, 1):.1f} orders each"
print(line)
PY
    grep -h "first unexpected\|connection failed\|pairs never received" "$work/$label.orders" "$work/$label.display" | sed 's/^/    /' || true
    # For make bench's table: each set-up's orders/s and CPU per order (canteen, and PostgreSQL's
    # processes), PostgreSQL's against SQLite's of the same run (issue 28: ≥ 40 %, ≤ 2×).
    if [ "${placed:-0}" -gt 0 ]; then
        local cpu reference=""
        cpu="$(( canteen_after - canteen_before ))"
        [ "$engine" = sqlite ] || cpu="$(( cpu + pg_after - pg_before ))"
        [ "$label" = sqlite-1-server ] || reference=engines_sqlite_1_server
        figure "engines_${label//-/_}_orders" "${per_second:-0}" "orders/s" higher \
            "engines, $label: durable orders, $connections kiosks" "${reference:+${reference}_orders}"
        figure "engines_${label//-/_}_cpu" "$(( cpu * 10000 / placed ))" "µs" lower \
            "engines, $label: CPU per order (canteen$([ "$engine" = sqlite ] || echo " + PostgreSQL"))" \
            "${reference:+${reference}_cpu}"
    fi
}

echo "== $duration s of orders from $connections kiosks (after $warmup s warm-up), then 200 orders one every 20 ms to 50 long-polling displays"
run sqlite-1-server sqlite 1
run postgres-1-server postgres 1
run postgres-2-servers postgres 2

echo "== disk: one commit's fsync here"
python3 - "$pgdir" <<'PY'
import os, statistics, sys, time
fd = os.open(os.path.join(sys.argv[1], "fsync.bin"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
samples, end = [], time.monotonic() + 1.5
while time.monotonic() < end:
    start = time.perf_counter(); os.write(fd, b"x" * 8192); os.fdatasync(fd); samples.append(time.perf_counter() - start)
os.close(fd)
samples.sort()
print(f"write 8 KiB + fdatasync: p50 {statistics.median(samples) * 1e3:.2f} ms, p99 {samples[int(len(samples) * 0.99)] * 1e3:.2f} ms "
      f"({len(samples)} runs): every commit that makes orders durable waits for one")
PY
