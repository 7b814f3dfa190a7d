# Sourced by the bench scripts. `figure ID VALUE UNIT higher|lower "TITLE" [REFERENCE_ID]`
# appends one figure of this run to $BENCH_FIGURES (JSON lines; nothing when it is unset or the
# value is empty). scripts/bench-report.py turns the lines into bench/results.json and the table.
figure() {
    [ -n "${BENCH_FIGURES:-}" ] && [ -n "${2:-}" ] || return 0
    python3 - "$@" >>"$BENCH_FIGURES" <<'PY'
import json, sys
id_, value, unit, better, title = sys.argv[1:6]
figure = {"id": id_, "value": float(value), "unit": unit, "better": better, "title": title}
if len(sys.argv) > 6 and sys.argv[6]:
    figure["reference"] = sys.argv[6]
print(json.dumps(figure, sort_keys=True))
PY
}

# wait_healthy PORT PID LOG TRIES INTERVAL: waits until GET /healthz answers on PORT; if PID
# exits first, prints LOG and fails.
wait_healthy() {
    local port="$1" pid="$2" log="$3" tries="$4" interval="$5"
    for _ in $(seq "$tries"); do
        curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
        sleep "$interval"
    done
}

# put_bench_cafe PORT OPS_TOKEN DIR: PUTs DIR/cafe.json and DIR/menu.json (scripts/bench-cafe.py)
# as café "bench"; anything but 200 or 201 is printed and fails.
put_bench_cafe() {
    local port="$1" token="$2" dir="$3" part file status
    for part in "" /menu; do
        file="$dir/cafe.json"; [ "$part" = /menu ] && file="$dir/menu.json"
        status="$(curl -s -o "$dir/put.out" -w '%{http_code}' -X PUT -H "Authorization: Bearer $token" \
            -H 'Content-Type: application/json' --data-binary "@$file" "http://127.0.0.1:$port/v1/cafes/bench$part")"
        case "$status" in
            200|201) ;;
            *) echo "PUT /v1/cafes/bench$part: $status $(cat "$dir/put.out")" >&2; return 1 ;;
        esac
    done
}
