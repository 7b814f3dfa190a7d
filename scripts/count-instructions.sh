#!/usr/bin/env bash
# Instructions per durable order and per woken display, counted by valgrind's callgrind on a
# release `canteen serve`: a repeatable measure on a busy machine, where wall-clock figures swing.
#
#   scripts/count-instructions.sh [--bin PATH] [--orders N] [--connections C] [--parked D] [--slowdown K] [--keep DIR] [--postgres]
#
# The server runs under callgrind with instrumentation off while it starts, the bench café is
# set up (scripts/bench-cafe.py) and 300 orders warm it up; then it counts N GET /healthz (what
# HTTP alone costs) and N orders placed over C connections (default 2,000 over 32), and one order
# waking D parked displays (default 2,000; 0 skips it). Prints each part split by library and
# function (scripts/callgrind-split.py).
# Under callgrind the threads take turns on one core, so group-commit batches are full (up to
# C orders); the counts are what the server executes, not how long it takes. With --postgres the
# server stores in a private PostgreSQL (scripts/private-postgres.sh, fsync off) instead of SQLite:
# the counts are then canteen's alone, not PostgreSQL's.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

bin="$(swift build -c release --show-bin-path 2>/dev/null)/canteen"
orders=2000
connections=32
parked=2000
slowdown=50
keep=""
postgres=0
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --orders) orders="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --parked) parked="$2"; shift 2 ;;
        --keep) keep="$2"; shift 2 ;;
        --slowdown) slowdown="$2"; shift 2 ;;
        --postgres) postgres=1; shift ;;
        *) echo "usage: scripts/count-instructions.sh [--bin PATH] [--orders N] [--connections C] [--parked D] [--slowdown K] [--keep DIR] [--postgres]" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

work="$(mktemp -d)"
server_pid=""
pgdir=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$server_pid" 2>/dev/null || true
    fi
    if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work"/callgrind.* "$keep"/ 2>/dev/null || true; fi
    if [ -n "$pgdir" ]; then scripts/private-postgres.sh stop "$pgdir" >/dev/null 2>&1 || true; rm -rf "$pgdir"; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

scripts/bench-cafe.py "$work"
# Valgrind 3.19 cannot read Swift 6's DWARF 5; the symbol table is enough to name functions.
objcopy --strip-debug "$bin" "$work/canteen"
# scripts/valgrind-shim.c: valgrind 3.19 needs it to run libdispatch, and SLOWDOWN=K slows the
# clocks the server reads as much as callgrind slows the server (so that once-a-second work
# keeps its native share of each order).
cc -O2 -shared -fPIC -o "$work/shim.so" scripts/valgrind-shim.c
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
store=(--data-dir "$work/data")
if [ "$postgres" = 1 ]; then
    pgdir="$(mktemp -d /tmp/canteen-count-pg-XXXXXX)"
    store=(--database "$(scripts/private-postgres.sh start "$pgdir")")
fi
ops_token="$("$bin" tokens create --role ops --name bench-ops "${store[@]}")"
kiosk_token="$("$bin" tokens create --role kiosk --name bench-kiosk "${store[@]}")"
kitchen_token="$("$bin" tokens create --role kitchen --name bench-kitchen "${store[@]}")"
SLOWDOWN="$slowdown" LD_PRELOAD="$work/shim.so" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$work/canteen" serve "${store[@]}" --port "$port" --menus Menus --log-level warning >"$work/server.log" 2>&1 &
server_pid=$!
wait_healthy "$port" "$server_pid" "$work/server.log" 600 0.5 || exit 1
put_bench_cafe "$port" "$ops_token" "$work" || exit 1
echo "== $bin under callgrind; load average $(cut -d' ' -f1-3 /proc/loadavg)"
scripts/callgrind-load.py orders "$port" "$kiosk_token" 300 "$connections" warm >/dev/null

callgrind_control -z "$server_pid" >/dev/null
callgrind_control -i on "$server_pid" >/dev/null
scripts/callgrind-load.py healthz "$port" "$orders" "$connections"
callgrind_control -i off "$server_pid" >/dev/null
callgrind_control -d healthz "$server_pid" >/dev/null
echo "== GET /healthz: $orders over $connections connections (what HTTP alone costs)"
scripts/callgrind-split.py "$(ls -t "$work"/callgrind.out.* | head -1)" "$orders" request --top 8

callgrind_control -z "$server_pid" >/dev/null
callgrind_control -i on "$server_pid" >/dev/null
scripts/callgrind-load.py orders "$port" "$kiosk_token" "$orders" "$connections" counted
callgrind_control -i off "$server_pid" >/dev/null
callgrind_control -d orders "$server_pid" >/dev/null
echo "== orders: $orders over $connections connections"
scripts/callgrind-split.py "$(ls -t "$work"/callgrind.out.* | head -1)" "$orders" order

if [ "$parked" -gt 0 ]; then
    scripts/callgrind-load.py parked "$port" "$kiosk_token" "$kitchen_token" "$parked" "$server_pid" parked-1
    callgrind_control -d parked "$server_pid" >/dev/null
    echo "== one order waking $parked parked displays (the order's own instructions included)"
    scripts/callgrind-split.py "$(ls -t "$work"/callgrind.out.* | head -1)" "$parked" display
fi
