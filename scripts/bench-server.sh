#!/usr/bin/env bash
# The server benchmark of issue 4: a release `canteen serve` on loopback with a fresh data dir,
# loaded by server-bench (Benchmarks/ServerBench) and, where installed, wrk; plus the cost of
# one fsync on the data dir's disk and SQLite's commit rate there with synchronous FULL vs NORMAL.
#
#   scripts/bench-server.sh [--duration S] [--warmup S] [--connections N] [--skip-build]
#                           [--baseline-bin PATH] [--phases LIST] [--profile]
#
# With --baseline-bin (a `canteen` built from an older commit, see scripts/bench.sh BASELINE=REF),
# the same healthz, orders and parked-display phases run against that binary too, on a fresh
# data dir, right after the current one: both figures come from one run on one machine state.
#
# Phases: healthz, pipeline, orders, polls, display, parked, streams, follow (server-bench); pipeline
# (issue 28) loads GET /healthz on a bare Hummingbird (Benchmarks/BareHummingbird), on this server
# (log level warning) and on a second one at the default level (info, each request's log line
# written to a file), three rounds in turn, and prints each Canteen figure as a share of the
# bare one's; webhooks
# (this script): the orders phase again while a slow receiver (200 ms a request, Python) is sent
# every order.placed, beside the orders phase run just before it without one (orders/s and the
# server's CPU per order), and idle (this script): the server memory that 10,000 idle keep-alive
# connections, then 10,000 idle ticket event streams hold, each on a fresh server.
#
# Prints every figure; the server and every helper are stopped on exit (trap).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

duration=10
warmup=2
connections=32
build=1
baseline_bin=""
profile=0
phases="healthz,pipeline,orders,polls,display,parked,streams,follow,webhooks,idle"
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --skip-build) build=0; shift ;;
        --baseline-bin) baseline_bin="$2"; shift 2 ;;
        --phases) phases="$2"; shift 2 ;;
        --profile) profile=1; shift ;;
        *) echo "usage: scripts/bench-server.sh [--duration S] [--warmup S] [--connections N] [--skip-build] [--baseline-bin PATH] [--phases LIST]" >&2; exit 2 ;;
    esac
done
# 2,000 parked displays, and 10,000 idle streams, need as many sockets on each side.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# The server and the client are separate processes: each holds one end of the 10,000 idle
# connections, plus its own files.
if [[ ",$phases," == *",idle,"* ]] && [ "$(ulimit -n)" -lt 11000 ]; then
    echo "(ulimit -n is $(ulimit -n): the idle phase needs 11,000 open files in each process; it is skipped)"
    phases="${phases//idle/}"
fi

work="$(mktemp -d)"
server_pid=""
receiver_pid=""
reference_pids=()
cleanup() {
    if [ -n "$receiver_pid" ]; then kill "$receiver_pid" 2>/dev/null || true; fi
    for pid in "${reference_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# MARK: - Build
if [ "$build" = 1 ]; then
    for product in canteen server-bench bare-hummingbird; do
        if ! swift build -c release --product "$product" >"$work/build.log" 2>&1; then
            cat "$work/build.log" >&2
            exit 1
        fi
    done
fi
# BENCH_BIN points at other builds of canteen and server-bench (a debug build checks the plumbing).
bin="${BENCH_BIN:-$(swift build -c release --show-bin-path 2>/dev/null)}"

# profile_orders LABEL: the orders phase again, with perf sampling the server (where each
# order's microseconds go). Needs perf (linux-perf); skipped without it.
profile_orders() {
    [ "$profile" = 1 ] || return 0
    command -v perf >/dev/null 2>&1 || { echo "(perf not installed: no profile)"; return 0; }
    local ticks_before ticks_after
    ticks_before="$(awk '{print $14 + $15}' "/proc/$server_pid/stat")"
    perf record -q -e cpu-clock -F 4000 -g -p "$server_pid" -o "$work/$1.perf" -- sleep "$duration" >/dev/null 2>&1 &
    local perf_pid=$!
    "$bin/server-bench" --port "$port" --kiosk-token "$kiosk_token" --kitchen-token "$kitchen_token" --cafe bench \
        --connections "$connections" --warmup 0 --duration "$duration" --phases orders >"$work/$1.orders" 2>&1
    wait "$perf_pid" 2>/dev/null || true
    ticks_after="$(awk '{print $14 + $15}' "/proc/$server_pid/stat")"
    local done_orders
    done_orders="$(sed -n 's/^POST \/v1\/orders.*(\([0-9]*\) in .*/\1/p' "$work/$1.orders")"
    echo "== profile of the orders phase ($1): $(sed -n 's/^POST \/v1\/orders, [0-9]* kiosks: //p' "$work/$1.orders")"
    scripts/profile-orders.py "$work/$1.perf" "${done_orders:-0}" "$duration" \
        "$(( ticks_after - ticks_before ))e-2" || true
}

# MARK: - Server
# start_server BIN DATA [OPTION…]: a `canteen serve` of BIN on a free port with the bench café,
# given the extra serve options; sets port, ops_token, kiosk_token, kitchen_token and server_pid.
start_server() {
    local server_bin="$1" data="$2"
    shift 2
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    ops_token="$("$server_bin" tokens create --role ops --name bench-ops --data-dir "$data")"
    kiosk_token="$("$server_bin" tokens create --role kiosk --name bench-kiosk --data-dir "$data")"
    kitchen_token="$("$server_bin" tokens create --role kitchen --name bench-kitchen --data-dir "$data")"
    # The webhook phase's receiver listens on loopback, which webhooks reach only when allowed (a
    # baseline older than the option allows it anyway).
    local allow=()
    if "$server_bin" serve --help 2>/dev/null | grep -q -- --webhook-allow-private; then
        allow=(--webhook-allow-private 127.0.0.0/8)
    fi
    "$server_bin" serve --data-dir "$data" --port "$port" --menus Menus --log-level warning "${allow[@]}" "$@" \
        >"$work/server.log" 2>&1 &
    server_pid=$!
    wait_healthy "$port" "$server_pid" "$work/server.log" 100 0.1 || exit 1
    put_bench_cafe "$port" "$ops_token" "$work" || exit 1
}

stop_server() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

# The bench café (scripts/bench-cafe.py): Seattle's menu, open all day, room for every order "asap".
scripts/bench-cafe.py "$work"
start_server "$bin/canteen" "$work/data"

# The pipeline phase's references: a bare Hummingbird, and Canteen at the default log level.
pipeline_args=()
if [[ ",$phases," == *",pipeline,"* ]]; then
    free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
    bare_port="$(free_port)"
    "$bin/bare-hummingbird" --port "$bare_port" >"$work/bare.log" 2>&1 &
    reference_pids+=($!)
    wait_healthy "$bare_port" "$!" "$work/bare.log" 100 0.1 || exit 1
    info_port="$(free_port)"
    "$bin/canteen" serve --data-dir "$work/info-data" --port "$info_port" --menus Menus --log-level info \
        >"$work/info.log" 2>&1 &
    reference_pids+=($!)
    wait_healthy "$info_port" "$!" "$work/info.log" 100 0.1 || exit 1
    pipeline_args=(--bare-port "$bare_port" --info-port "$info_port")
fi

echo "== server: release canteen serve on 127.0.0.1:$port, fresh data dir, SQLite WAL + synchronous=FULL"
echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared; server and client share $(nproc) cores)"
"$bin/server-bench" --port "$port" --kiosk-token "$kiosk_token" --kitchen-token "$kitchen_token" --cafe bench \
    --connections "$connections" --warmup "$warmup" --duration "$duration" --phases "$phases" "${pipeline_args[@]}" \
    --final-cursor | tee "$work/server-bench.out"
for pid in "${reference_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
reference_pids=()

# MARK: - wrk (a lighter, event-driven client for the two read-only figures)
if command -v wrk >/dev/null 2>&1; then
    cursor="$(sed -n 's/^final feed cursor: //p' "$work/server-bench.out")"
    threads=2
    echo "== wrk ($threads threads, $connections connections, ${duration} s), same server"
    wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "http://127.0.0.1:$port/healthz" >"$work/wrk.out" 2>&1 || true
    echo "wrk GET /healthz: $(sed -n 's/^Requests\/sec: *//p' "$work/wrk.out") req/s; p50 $(awk '$1=="50%"{print $2}' "$work/wrk.out"), p99 $(awk '$1=="99%"{print $2}' "$work/wrk.out")"
    figure wrk_healthz_rps "$(sed -n 's/^Requests\/sec: *//p' "$work/wrk.out")" req/s higher "GET /healthz with wrk, $connections connections (the HTTP ceiling, event-driven client)"
    if [ -n "$cursor" ]; then
        wrk -t"$threads" -c64 -d"${duration}s" --latency -H "Authorization: Bearer $kitchen_token" \
            -H "If-None-Match: \"$cursor\"" "http://127.0.0.1:$port/v1/cafes/bench/tickets?after=$cursor" >"$work/wrk.out" 2>&1 || true
        non2xx="$(sed -n 's/^ *Non-2xx or 3xx responses: *//p' "$work/wrk.out")"
        echo "wrk 304 polls (64 connections): $(sed -n 's/^Requests\/sec: *//p' "$work/wrk.out") polls/s; p50 $(awk '$1=="50%"{print $2}' "$work/wrk.out"), p99 $(awk '$1=="99%"{print $2}' "$work/wrk.out")${non2xx:+; NOT 304: $non2xx}"
        [ -n "$non2xx" ] || figure wrk_polls_304_per_s "$(sed -n 's/^Requests\/sec: *//p' "$work/wrk.out")" polls/s higher \
            "304 polls with wrk, 64 connections" wrk_healthz_rps
    fi
else
    echo "(wrk not installed: apt-get install wrk for the event-driven healthz and 304 figures)"
fi

# MARK: - Webhooks (order placement while a slow receiver is sent every order)
# orders_with_cpu LABEL: the orders phase on the running server, then the server's CPU over it
# (warm-up included) per order counted.
orders_with_cpu() {
    local before after placed
    before="$(awk '{print $14 + $15}' "/proc/$server_pid/stat")"
    "$bin/server-bench" --port "$port" --kiosk-token "$kiosk_token" --kitchen-token "$kitchen_token" --cafe bench \
        --connections "$connections" --warmup "$warmup" --duration "$duration" --phases orders | grep -v '^targets' \
        | tee "$work/$1.out"
    after="$(awk '{print $14 + $15}' "/proc/$server_pid/stat")"
    placed="$(sed -n 's/^POST \/v1\/orders.*(\([0-9]*\) in .*/\1/p' "$work/$1.out")"
    python3 -c "import sys; t, n = float(sys.argv[1]) / 100, int(sys.argv[2] or 0); print(f'    server CPU {t:.1f} s over the phase, {t / max(n, 1) * 1e6:.0f} µs per order placed')" \
        "$((after - before))" "${placed:-0}"
}
if [[ ",$phases," == *",webhooks,"* ]]; then
    receiver_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    python3 - "$receiver_port" "$work/received" <<'PY' &
# A webhook receiver that takes 200 ms per request and counts what it accepted.
import http.server, sys, threading, time
port, count_file = int(sys.argv[1]), sys.argv[2]
count, lock = [0], threading.Lock()
class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        time.sleep(0.2)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        with lock:
            count[0] += 1
    def log_message(self, *args):
        pass
def report():
    while True:
        with lock:
            open(count_file, "w").write(str(count[0]))
        time.sleep(0.2)
threading.Thread(target=report, daemon=True).start()
http.server.ThreadingHTTPServer(("127.0.0.1", port), Receiver).serve_forever()
PY
    receiver_pid=$!
    for _ in $(seq 50); do [ -f "$work/received" ] && break; sleep 0.1; done
    echo "== webhooks: the orders phase without a webhook, then with every order.placed sent to a receiver taking 200 ms a request"
    orders_with_cpu without-webhook
    # Created once the orders phase's last writes are in; an answer without an id is printed (a
    # refusal names what was wrong) and tried again, up to five times.
    hook_id=""
    for _ in 1 2 3 4 5; do
        hook="$(curl -s -X POST -H "Authorization: Bearer $ops_token" -H 'Content-Type: application/json' \
            -d "{\"url\": \"http://127.0.0.1:$receiver_port/hook\", \"events\": [\"order.placed\"]}" "http://127.0.0.1:$port/v1/webhooks")"
        hook_id="$(python3 -c 'import json, sys; print(json.load(sys.stdin).get("id", ""))' <<<"$hook" 2>/dev/null || true)"
        [ -n "$hook_id" ] && break
        echo "webhook not created: ${hook:-no answer}" >&2
        sleep 1
    done
    [ -n "$hook_id" ] || { echo "the webhook phase could not create its webhook" >&2; exit 1; }
    receiver_before="$(awk '{print $14 + $15}' "/proc/$receiver_pid/stat")"
    orders_with_cpu with-webhook
    receiver_after="$(awk '{print $14 + $15}' "/proc/$receiver_pid/stat")"
    echo "    the Python receiver's own CPU on the same cores: $(python3 -c "import sys; print(f'{int(sys.argv[1]) / 100:.1f} s')" "$((receiver_after - receiver_before))")"
    without="$(sed -n 's/^POST \/v1\/orders, [0-9]* kiosks: \([0-9]*\) orders\/s.*/\1/p' "$work/without-webhook.out")"
    with="$(sed -n 's/^POST \/v1\/orders, [0-9]* kiosks: \([0-9]*\) orders\/s.*/\1/p' "$work/with-webhook.out")"
    echo "webhooks: ${without:-?} orders/s without a webhook, ${with:-?} right after with the slow receiver subscribed;" \
        "it had accepted $(cat "$work/received") deliveries when the phase ended (32 at a time, 200 ms each)"
    curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $ops_token" "http://127.0.0.1:$port/v1/webhooks/$hook_id"
    kill "$receiver_pid" 2>/dev/null || true
    wait "$receiver_pid" 2>/dev/null || true
    receiver_pid=""
fi

profile_orders current
stop_server

# MARK: - Idle connections (server memory per connection, each kind on a fresh server)
if [[ ",$phases," == *",idle,"* ]]; then
    echo "== idle: server memory (VmRSS) before and after 10,000 idle connections, each kind on a fresh server"
    for kind in idle-keepalive idle-streams; do
        # An idle timeout long enough for 10,000 keep-alive connections to open and be measured.
        start_server "$bin/canteen" "$work/$kind-data" --idle-timeout 600
        "$bin/server-bench" --port "$port" --kiosk-token "$kiosk_token" --kitchen-token "$kitchen_token" --cafe bench \
            --server-pid "$server_pid" --phases "$kind" | grep -v '^server-bench:'
        stop_server
    done
    # The reference beneath both: a bare Hummingbird server (NIO's default receive buffers, no
    # middleware), its idle keep-alive connections after its own GET /healthz.
    bare_idle_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    "$bin/bare-hummingbird" --port "$bare_idle_port" >"$work/bare-idle.log" 2>&1 &
    bare_idle_pid=$!
    reference_pids+=("$bare_idle_pid")
    wait_healthy "$bare_idle_port" "$bare_idle_pid" "$work/bare-idle.log" 100 0.1 || exit 1
    BENCH_FIGURES="" "$bin/server-bench" --port "$bare_idle_port" --kiosk-token none --kitchen-token none --cafe bench \
        --server-pid "$bare_idle_pid" --phases idle-keepalive | grep '^idle' | sed 's/^/bare Hummingbird: /'
    kill "$bare_idle_pid" 2>/dev/null || true
    wait "$bare_idle_pid" 2>/dev/null || true
fi

# MARK: - Baseline (an older build, same run)
if [ -n "$baseline_bin" ]; then
    echo "== baseline: $baseline_bin ($("$baseline_bin" --version 2>/dev/null || echo "older build")), fresh data dir, same phases for orders"
    start_server "$baseline_bin" "$work/baseline-data"
    echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    BENCH_FIGURES="" "$bin/server-bench" --port "$port" --kiosk-token "$kiosk_token" --kitchen-token "$kitchen_token" --cafe bench \
        --connections "$connections" --warmup "$warmup" --duration "$duration" --phases healthz,orders,parked \
        | tee "$work/baseline-bench.out"
    profile_orders baseline
    stop_server
fi

# MARK: - Disk
echo "== disk: what durability costs here"
python3 - "$work" <<'PY'
# Bounded loops (about 2 s each) on the data dir's filesystem.
import os, sqlite3, statistics, sys, time
work = sys.argv[1]

def timed(step, seconds=2.0):
    samples, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        step()
        samples.append(time.perf_counter() - start)
    samples.sort()
    return samples

def show(label, samples, figure=None):
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"{label}: {len(samples) / sum(samples):,.0f}/s; each p50 {statistics.median(samples) * 1e3:.2f} ms, "
          f"p99 {p99 * 1e3:.2f} ms ({len(samples)} runs)")
    if figure and os.environ.get("BENCH_FIGURES"):
        import json
        with open(os.environ["BENCH_FIGURES"], "a") as out:
            out.write(json.dumps({"id": figure, "value": len(samples) / sum(samples), "unit": "commits/s",
                                  "better": "higher", "title": label + " (the durable-write ceiling)"}, sort_keys=True) + "\n")

fd = os.open(f"{work}/fsync.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
show("write 100 B + fsync", timed(lambda: (os.write(fd, b"x" * 100), os.fsync(fd))))
show("write 100 B + fdatasync", timed(lambda: (os.write(fd, b"x" * 100), os.fdatasync(fd))))
os.close(fd)

# One small INSERT per transaction in a WAL database, as a server commit: FULL syncs the WAL at
# every commit; NORMAL only at checkpoints (an order may be lost on power loss, never corrupted).
for mode in ("FULL", "NORMAL"):
    path = f"{work}/sync-{mode}.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(f"PRAGMA synchronous = {mode}")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    def commit():
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t (body) VALUES (?)", ("x" * 300,))
        db.execute("COMMIT")
    show(f"SQLite WAL commit (1 row), synchronous={mode}", timed(commit),
         "sqlite_commits_full" if mode == "FULL" else None)
    db.close()
PY
