#!/usr/bin/env bash
# `make test-postgres`: the store suite on PostgreSQL and the multi-server test, against a private
# PostgreSQL 15 server (scripts/private-postgres.sh: its own folder under /tmp, port and socket,
# run by the `postgres` user when root) that is stopped at the end, whatever happens.
#
#   1. every store test on both engines (CANTEEN_TEST_DATABASE_URL set: each test makes its own database)
#   2. scripts/multi-server-test.py: three `canteen serve` on one database, a SIGKILL, a PostgreSQL restart
#
# Expects `swift build --build-tests` done (make test-postgres does it).
set -euo pipefail
cd "$(dirname "$0")/.."

dir="$(mktemp -d /tmp/canteen-pg-XXXXXX)"
cleanup() {
    scripts/private-postgres.sh stop "$dir" || true
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
url="$(scripts/private-postgres.sh start "$dir")"
echo "== private PostgreSQL at $url (folder $dir, started in $(( $(date +%s) - started )) s)"

echo "== store suite on SQLite and PostgreSQL"
# Known defect (issue 15, open): in about one run in five the suite on PostgreSQL stops making
# progress (every task suspended, no query running, no timer armed). The suite normally takes about
# a minute: bound it, say so loudly when it hangs, and run it once more; a second hang fails.
for attempt in 1 2; do
    status=0
    CANTEEN_TEST_DATABASE_URL="$url" timeout --signal=KILL 600 swift test --skip-build --filter CanteenStoreTests \
        || status=$?
    [ "$status" -eq 0 ] && break
    if [ "$status" -ne 137 ] || [ "$attempt" -eq 2 ]; then exit "$status"; fi
    echo "== HUNG: the store suite made no progress for 600 s and was killed; running it once more (issue 15)"
done

echo "== multi-server test"
psql -X -q "$url" -c "CREATE DATABASE canteen_multi" >/dev/null
python3 scripts/multi-server-test.py --bin "$(swift build --show-bin-path)/canteen" \
    --database "${url/\/canteen\?/\/canteen_multi?}" --postgres-dir "$dir"
echo "== test-postgres done in $(( $(date +%s) - started )) s"
