#!/usr/bin/env python3
"""`make bench`, the console's reports (issue 33): how long each report takes over 100,000 orders.

    scripts/bench-reports.py --bin PATH/canteen [--orders 100000] [--days 100] [--database postgres://…]

A real `canteen serve` takes about 60 orders of the benchmark café (scripts/bench-cafe.py) through
the API, some moved to ready by the kitchen and some cancelled; the server is stopped and those
orders (with their lines, tickets and events) are copied in SQL, each copy on another of the last
DAYS café-local days, until the café holds ORDERS orders; the server is started again on that
database and each report is asked for 5 times over the whole range (`Accept: application/json`
and CSV), the median and worst printed and recorded as figures. SQLite by default; PostgreSQL
with --database (an empty database).

The report queries read `customerOrder` by `(cafeId, localDate)` (the UNIQUE index of v2 /
PostgreSQL 1), their lines by `orderLine`'s primary key `(orderId, position)`, tickets by
`ticket_on_orderId`, the `order.ready` events by `orderEvent_on_orderId_sequence`, and the
windows report `customerOrder_on_cafeId_pickupStart` (v16 / PostgreSQL 7).
"""
import argparse
import json
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from urllib.error import HTTPError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from all_day_cafe import all_day_cafe  # noqa: E402

SEED_ORDERS = 60
RUNS = 5


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def call(port, method, path, token, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=600) as answer:
            return answer.status, answer.read()
    except HTTPError as error:
        return error.code, error.read()


class Server:
    def __init__(self, binary, data, store):
        self.port = free_port()
        self.log = open(os.path.join(data, "serve.log"), "ab")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--data-dir", data, "--welcome", "never", *store],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT)
        for _ in range(600):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return
            except OSError:
                if self.process.poll() is not None:
                    self.log.close()
                    sys.exit("canteen serve ended:\n" + open(os.path.join(data, "serve.log")).read()[-2000:])
                time.sleep(0.1)
        sys.exit("canteen serve did not answer /healthz in 60 s")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.log.close()


def token(binary, role, store, data, cafe=None):
    arguments = [binary, "tokens", "create", "--role", role, "--name", f"bench-reports-{role}", "--data-dir", data]
    arguments += ["--cafe", cafe] if cafe else []
    return subprocess.run(arguments + store, check=True, capture_output=True, text=True).stdout.strip()


def seed(binary, data, store):
    """The café and SEED_ORDERS orders through the API; returns the café's document."""
    ops = token(binary, "ops", store, data)
    server = Server(binary, data, store)
    cafe, menu = all_day_cafe(ROOT, "bench", slot_minutes=60, capacity=100000, major=999)
    for path, body in ((f"/v1/cafes/bench", cafe), (f"/v1/cafes/bench/menu", menu)):
        status, answer = call(server.port, "PUT", path, ops, body)
        if status not in (200, 201):
            sys.exit(f"PUT {path}: {status} {answer[:300]}")
    kiosk = token(binary, "kiosk", store, data, "bench")
    kitchen = token(binary, "kitchen", store, data, "bench")
    placed = []
    items = [item["id"] for item in menu["items"]]
    attempt = 0
    while len(placed) < SEED_ORDERS and attempt < SEED_ORDERS * 4:
        item = items[attempt % len(items)]
        attempt += 1
        body = {"cafeId": "bench", "lines": [{"itemId": item, "quantity": 1 + attempt % 3}],
                "customer": {"name": f"Bench {attempt}"}}
        status, answer = call(server.port, "POST", "/v1/orders", kiosk, body,
                              {"Idempotency-Key": str(uuid.uuid4())})
        if status == 201:
            placed.append(json.loads(answer))
    if len(placed) < SEED_ORDERS:
        sys.exit(f"only {len(placed)} orders were taken")
    for index, order in enumerate(placed):
        if index % 7 == 6:
            call(server.port, "POST", f"/v1/orders/{order['id']}/cancel", ops)
            continue
        if index % 3 == 0:
            continue
        for ticket in order["tickets"]:
            for status in (["new"] if ticket["status"] == "held" else []) + ["preparing", "ready"]:
                call(server.port, "POST", f"/v1/tickets/{ticket['id']}/status", kitchen, {"status": status})
    server.stop()
    return ops, cafe


class Engine:
    """Copies the seed orders in SQL."""

    def __init__(self, data, url):
        self.url = url
        self.path = None if url else next(os.path.join(data, name) for name in os.listdir(data)
                                          if name.endswith(".sqlite"))

    def columns(self, table):
        if self.url:
            out = subprocess.run(["psql", "-X", "-qAt", self.url, "-c",
                                  f"SELECT column_name FROM information_schema.columns WHERE table_name = "
                                  f"'{table.lower()}' ORDER BY ordinal_position"],
                                 check=True, capture_output=True, text=True).stdout
            return [line for line in out.split("\n") if line]
        with sqlite3.connect(self.path) as db:
            return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]

    def run(self, statements):
        if self.url:
            subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", self.url],
                           input="BEGIN;\n" + ";\n".join(statements) + ";\nCOMMIT;\n", check=True, text=True)
        else:
            with sqlite3.connect(self.path) as db:
                for statement in statements:
                    db.execute(statement)

    def shifted(self, column):
        """COLUMN (a timestamp) k days earlier."""
        if self.url:
            return f"{column} - make_interval(days => k.days::int)"
        return f"strftime('%Y-%m-%d %H:%M:%f', {column}, '-' || k.days || ' days')"

    def copies(self, count, days):
        """The table `k` of copies 1…COUNT: each with its day offset."""
        if self.url:
            return (f"(SELECT n AS k, n % {days} AS days, n / {days} + 1 AS lap FROM generate_series(1, {count}) AS n)"
                    " AS k")
        return (f"(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {count}) "
                f"SELECT n AS k, n % {days} AS days, n / {days} + 1 AS lap FROM s) AS k")

    def day(self, column):
        if self.url:
            return f"to_char(({column})::date - k.days, 'YYYY-MM-DD')"
        return f"date({column}, '-' || k.days || ' days')"

    def text(self, expression):
        return f"({expression})::text" if self.url else f"CAST({expression} AS TEXT)"

    def multiply(self, copies, days):
        k = self.copies(copies, days)
        suffix = lambda column: f"{column} || '-c' || {self.text('k.k')}"  # noqa: E731
        time_columns = {"createdAt", "updatedAt", "pickupStart", "pickupEnd", "cancelledAt", "readyAt", "fireAt",
                        "firedAt", "startedAt", "finishedAt"}

        def select(table, overrides, where=""):
            columns = self.columns(table)
            expressions = []
            for column in columns:
                key = next((name for name in overrides if name.lower() == column.lower()), None)
                if key:
                    expressions.append(overrides[key])
                elif any(column.lower() == name.lower() for name in time_columns):
                    expressions.append(self.shifted(column))
                else:
                    expressions.append(column)
            return (f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(expressions)} "
                    f"FROM {table}, {k} {where}")

        orders = select("customerOrder", {
            "id": suffix("id"), "number": f"number + 1000 * k.lap", "localDate": self.day("localDate"),
            "tokenId": "NULL",
        })
        lines = select("orderLine", {"orderId": suffix("orderId")})
        tickets = select("ticket", {"id": suffix("id"), "orderId": suffix("orderId"),
                                    "sequence": f"sequence + 1000000 * k.k"})
        events = select("orderEvent", {"id": suffix("id"), "orderId": suffix("orderId"),
                                       "sequence": f"sequence + 1000000 * k.k", "previousSequence": "NULL"})
        self.run([orders, lines, tickets, events])
        if self.url:
            # What autovacuum would do after such a load: the planner's statistics.
            subprocess.run(["psql", "-X", "-q", self.url, "-c", "ANALYZE"], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--orders", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=100)
    parser.add_argument("--database", help="an empty PostgreSQL database (default: SQLite)")
    arguments = parser.parse_args()
    data = tempfile.mkdtemp(prefix="canteen-bench-reports-")
    store = ["--database", arguments.database] if arguments.database else []
    engine_name = "postgres" if arguments.database else "sqlite"
    try:
        started = time.monotonic()
        ops, cafe = seed(arguments.bin, data, store)
        engine = Engine(data, arguments.database)
        copies = -(-arguments.orders // SEED_ORDERS) - 1
        engine.multiply(copies, arguments.days)
        orders = SEED_ORDERS * (copies + 1)
        print(f"{orders} orders of café 'bench' over {arguments.days} days made in "
              f"{time.monotonic() - started:.1f} s ({engine_name})")
        server = Server(arguments.bin, data, store)
        try:
            # The seed orders are on the café's today; the copies on the days before.
            today = cafe_today(server.port, ops)
            last = days_before(today, 0)
            first = days_before(today, arguments.days - 1)
            reports = [
                ("sales-day", f"/v1/cafes/bench/reports/sales?from={first}&to={last}&by=day", None),
                ("sales-hour", f"/v1/cafes/bench/reports/sales?from={first}&to={last}&by=hour", None),
                ("sales-item", f"/v1/cafes/bench/reports/sales?from={first}&to={last}&by=item", None),
                ("sales-item-csv", f"/v1/cafes/bench/reports/sales?from={first}&to={last}&by=item", "text/csv"),
                ("kitchen", f"/v1/cafes/bench/reports/kitchen?from={first}&to={last}", None),
                ("windows", f"/v1/cafes/bench/reports/windows?date={last}", None),
            ]
            check_total(server.port, ops, reports[0][1], orders)
            for name, path, accept in reports:
                times = []
                for _ in range(RUNS):
                    begun = time.perf_counter()
                    status, body = call(server.port, "GET", path, ops, headers={"Accept": accept} if accept else None)
                    times.append((time.perf_counter() - begun) * 1000)
                    if status != 200:
                        sys.exit(f"GET {path}: {status} {body[:300]}")
                median = statistics.median(times)
                print(f"report {name:15} over {orders} orders ({engine_name}): median {median:7.1f} ms, "
                      f"worst {max(times):7.1f} ms, {len(body)} bytes")
                figure(f"reports.{engine_name}.{name}_ms", median, "ms", "lower",
                       f"Report {name} over {orders // 1000}k orders, {engine_name} (median of {RUNS})")
        finally:
            server.stop()
    finally:
        shutil.rmtree(data, ignore_errors=True)


def cafe_today(port, ops):
    """The café's local date now, as its pickup windows say."""
    status, body = call(port, "GET", "/v1/cafes/bench/pickup-windows", ops)
    if status != 200:
        sys.exit(f"GET /v1/cafes/bench/pickup-windows: {status} {body[:300]}")
    return json.loads(body)["date"]


def days_before(date, count):
    import datetime
    return (datetime.date.fromisoformat(date) - datetime.timedelta(days=count)).isoformat()


def check_total(port, ops, path, orders):
    """The day report over the range counts every order (placed or cancelled)."""
    status, body = call(port, "GET", path, ops)
    if status != 200:
        sys.exit(f"GET {path}: {status} {body[:300]}")
    rows = json.loads(body)["rows"]
    counted = sum(row["orders"] + row["cancelledOrders"] for row in rows)
    if counted != orders:
        sys.exit(f"the day report counts {counted} orders, not {orders}")


def figure(id_, value, unit, better, title):
    path = os.environ.get("BENCH_FIGURES")
    if path:
        with open(path, "a") as out:
            out.write(json.dumps({"id": id_, "value": float(value), "unit": unit, "better": better, "title": title},
                                 sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
