#!/usr/bin/env bash
# A private, throw-away PostgreSQL 15 server for tests and benchmarks: its own data folder,
# socket folder and loopback port, run by an unprivileged user (initdb and postgres refuse root;
# as root the package's `postgres` user runs them). Nothing of Debian's own cluster is touched.
#
#   scripts/private-postgres.sh start DIR [--durable]  creates DIR (initdb on first use), starts the
#                                                     server, creates database `canteen`, prints its URL
#   scripts/private-postgres.sh stop DIR              stops it (fast shutdown) and waits for the process
#   scripts/private-postgres.sh restart DIR           stops and starts it on the same port (an outage)
#   scripts/private-postgres.sh kill DIR              SIGKILLs the postmaster (a crash; `start` recovers)
#
# DIR must be reachable by that user (under /tmp, not /root). The URL is also written to DIR/url.
# Without --durable the cluster runs with fsync=off (fine for tests, never for figures of durability).
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
command="${1:-}"
dir="${2:-}"
[ -n "$command" ] && [ -n "$dir" ] || { sed -n 2,13p "$0" >&2; exit 2; }
durable=0
[ "${3:-}" = "--durable" ] && durable=1

# Scrub the libpq variables a developer's shell may carry.
for variable in $(env | sed -n 's/^\(PG[A-Z]*\)=.*/\1/p'); do unset "$variable"; done

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

postmaster_pid() {
    [ -f "$dir/data/postmaster.pid" ] && head -1 "$dir/data/postmaster.pid" || true
}

wait_gone() {
    local pid="$1"
    for _ in $(seq 100); do
        # A stopped postmaster lingers a moment as a zombie of PID 1: state Z counts as gone.
        [ -r "/proc/$pid/stat" ] || return 0
        [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = "Z" ] && return 0
        sleep 0.1
    done
    echo "private-postgres: process $pid did not stop" >&2
    return 1
}

start() {
    [ -x "$bin/initdb" ] || { echo "private-postgres: $bin/initdb is missing (apt-get install postgresql-15)" >&2; exit 1; }
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    chmod 0700 "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_owner "$bin/initdb" -D "$dir/data" -U canteen --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
        as_owner mkdir -p "$dir/socket"
    fi
    if [ -f "$dir/port" ]; then
        port="$(cat "$dir/port")"
    else
        port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
        echo "$port" | as_owner tee "$dir/port" >/dev/null
    fi
    local fsync=on
    [ "$durable" = 1 ] || fsync=off
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start -o \
        "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir/socket -c max_connections=600 -c fsync=$fsync -c shared_buffers=128MB" \
        >/dev/null || { tail -20 "$dir/server.log" >&2; exit 1; }
    # The test cluster has no TLS: sslmode=disable spares every connection the offer.
    local url="postgres://canteen@127.0.0.1:$port/canteen?sslmode=disable"
    if ! as_owner /usr/bin/psql -X -q -h "$dir/socket" -p "$port" -U canteen -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'canteen'" | grep -q 1; then
        as_owner /usr/bin/psql -X -q -h "$dir/socket" -p "$port" -U canteen -d postgres -c "CREATE DATABASE canteen" >/dev/null
    fi
    echo "$url" | as_owner tee "$dir/url" >/dev/null
    echo "$url"
}

stop() {
    local pid
    pid="$(postmaster_pid)"
    [ -n "$pid" ] || return 0
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null || true
    wait_gone "$pid"
}

case "$command" in
    start) start ;;
    stop) stop ;;
    restart) stop; start >/dev/null ;;
    kill)
        pid="$(postmaster_pid)"
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
        [ -n "$pid" ] && wait_gone "$pid"
        # Backends die with their postmaster; remove nothing: the next start recovers from the WAL.
        ;;
    *) sed -n 2,13p "$0" >&2; exit 2 ;;
esac
