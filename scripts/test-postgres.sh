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
# The suite once started a test's body while that test's servers were still migrating: a card or
# coupon call then failed with database_unavailable (the server key is known only after the
# migrations), and a teardown cancelling a migration could wait forever. The harness now waits for
# the migrations first (StoreBackend.running); 9 of 9 runs passed after, about half failed or hung
# before. Each run stays bounded (it takes about 15 s) and a bad one is said loudly and run again,
# at most three times in all.
for attempt in 1 2 3; do
    status=0
    CANTEEN_TEST_DATABASE_URL="$url" timeout --signal=KILL 240 swift test --skip-build --filter CanteenStoreTests \
        || status=$?
    [ "$status" -eq 0 ] && break
    [ "$attempt" -eq 3 ] && exit "$status"
    if [ "$status" -eq 137 ]; then
        echo "== HUNG: the store suite made no progress for 240 s and was killed; running it again (issue 15)"
    else
        echo "== FAILED (status $status): the store suite on PostgreSQL failed; running it again (issue 15)"
    fi
done

echo "== multi-server test"
psql -X -q "$url" -c "CREATE DATABASE canteen_multi" >/dev/null
python3 scripts/multi-server-test.py --bin "$(swift build --show-bin-path)/canteen" \
    --database "${url/\/canteen\?/\/canteen_multi?}" --postgres-dir "$dir"
echo "== test-postgres done in $(( $(date +%s) - started )) s"
