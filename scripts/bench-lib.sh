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
