#!/usr/bin/env python3
"""Several `canteen serve` processes on one PostgreSQL database behave as one (issue 15).

    scripts/multi-server-test.py --bin PATH/canteen --database postgres://... --postgres-dir DIR

Starts three servers on the (empty) database, kiosks placing orders spread over them, kitchen
displays long-polling each of them and displays on the ticket event stream that move to another
server every 2 s, resuming with Last-Event-ID. Mid-load one server is killed with SIGKILL; kiosks
whose server died retry the same Idempotency-Key on another, displays move to another with their
cursor.
Then PostgreSQL itself is restarted under load (scripts/private-postgres.sh restart DIR): requests
meanwhile must get 503 `database_unavailable`, the servers must reconnect by themselves and the
long-polls resume. Checks at the end, against the database:

  - every acknowledged order exists, once; every idempotency key placed one order;
  - the capacity used of every pickup window equals the units of the orders stored in it, within
    its capacity (one window is ordered past its capacity on purpose);
  - every display, long-polling or streaming, saw every ticket of the café exactly once;
  - a display parked on one server woke for orders placed on another;
  - firing by prep time (issue 30): orders placed on every server with a ticket held for a few
    seconds; the servers' timers, all running, fire each held ticket exactly once (the feed moves
    once per firing, a display sees each fired ticket once), at its time.

Standard library only. Prints what it did; exits 1 on the first failed check.
"""
import argparse
import datetime
import http.client
import http.server
import re
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
parser.add_argument("--database", required=True, help="URL of an empty database")
parser.add_argument("--postgres-dir", required=True, help="the private server's folder (for the restart)")
parser.add_argument("--servers", type=int, default=3)
parser.add_argument("--kiosks", type=int, default=12)
parser.add_argument("--displays", type=int, default=3)
parser.add_argument("--streams", type=int, default=2, help="displays on the event stream")
parser.add_argument("--seconds", type=float, default=12.0, help="load before the kill, and after it")
args = parser.parse_args()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from all_day_cafe import all_day_cafe  # noqa: E402
CAFE = "multi"
CAPACITY = 40
failures = []


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def check(condition, message):
    log(("ok: " if condition else "FAILED: ") + message)
    if not condition:
        failures.append(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(sql):
    out = subprocess.run(["psql", "-X", "-q", "-tA", args.database, "-c", sql], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def canteen(*arguments):
    out = subprocess.run([args.bin, *arguments, "--database", args.database], check=True, capture_output=True, text=True,
                         cwd=ROOT)
    return out.stdout.strip()


def request(port, method, path, token, body=None, headers=None, timeout=15):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        sent = dict(headers or {})
        sent["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        payload = response.read()
        return response.status, dict(response.getheaders()), payload
    finally:
        connection.close()


# MARK: - Servers

work = tempfile.mkdtemp(prefix="canteen-multi-")
servers = []  # {"port", "process"}


def start_server():
    port = free_port()
    logfile = open(os.path.join(work, f"server-{port}.log"), "w")
    # The webhook receiver listens on loopback, which webhooks reach only when allowed.
    process = subprocess.Popen([args.bin, "serve", "--database", args.database, "--port", str(port), "--menus", "Menus",
                                "--log-level", "notice", "--webhook-allow-private", "127.0.0.0/8"],
                               cwd=ROOT, stdout=logfile, stderr=subprocess.STDOUT)
    server = {"port": port, "process": process, "log": logfile.name}
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            sys.exit(f"server on {port} exited: {open(logfile.name).read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.05)
    sys.exit(f"server on {port} did not start")


def alive(server):
    return server["process"].poll() is None


def stop_all():
    for server in servers:
        if alive(server):
            server["process"].send_signal(signal.SIGTERM)
    for server in servers:
        try:
            server["process"].wait(timeout=15)
        except subprocess.TimeoutExpired:
            server["process"].kill()


ops = canteen("tokens", "create", "--role", "ops", "--name", "multi-ops")
kiosk = canteen("tokens", "create", "--role", "kiosk", "--name", "multi-kiosk")
kitchen = canteen("tokens", "create", "--role", "kitchen", "--name", "multi-kitchen")
log("three tokens created with `canteen tokens create --database` (the first migrated the database)")

for _ in range(args.servers):
    servers.append(start_server())
log(f"{len(servers)} servers on ports {[s['port'] for s in servers]}, one database")

try:
    # The café: open all day, every day, 15-minute windows of CAPACITY orders, no lead time, in a
    # zone where it is about 08:00 now (so that "asap" finds windows today).
    cafe, menu = all_day_cafe(ROOT, CAFE, slot_minutes=15, capacity=CAPACITY, major=777)
    cafe["beacons"] = []
    for path, document in ((f"/v1/cafes/{CAFE}", cafe), (f"/v1/cafes/{CAFE}/menu", menu)):
        status, _, payload = request(servers[0]["port"], "PUT", path, ops, document)
        assert status in (200, 201), (path, status, payload)
    items = [item["id"] for item in menu["items"] if not item.get("dayParts") and not item.get("modifierGroups")][:3]

    # A webhook receiver on loopback, subscribed to order.placed: every server runs the delivery
    # service on the one outbox. Each request takes 20 ms, so two servers sending one delivery at
    # once would show as two overlapping requests for one event id.
    received = []  # (event id, order id, start, end)

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            started = time.time()
            body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
            time.sleep(0.02)
            order = re.search(r'"(ord_[A-Za-z0-9_-]+)"', body)
            with receiver_lock:
                received.append((self.headers.get("Canteen-Event-Id"), order.group(1) if order else None, started,
                                 time.time()))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_):
            pass

    receiver_lock = threading.Lock()
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    status, _, payload = request(servers[2]["port"], "POST", "/v1/webhooks", ops,
                                 {"url": f"http://127.0.0.1:{receiver.server_address[1]}/hook", "cafeId": CAFE,
                                  "events": ["order.placed"]})
    assert status == 201, (status, payload)

    # A café change made on server 0 is served by the others (their caches follow it).
    cafe["defaultLocale"] = "fr_CA"
    request(servers[0]["port"], "PUT", f"/v1/cafes/{CAFE}", ops, cafe)
    seen_everywhere = False
    deadline = time.time() + 5
    while time.time() < deadline and not seen_everywhere:
        seen_everywhere = all(json.loads(request(s["port"], "GET", f"/v1/cafes/{CAFE}", ops)[2]).get("defaultLocale") == "fr_CA"
                              for s in servers)
        time.sleep(0.02)
    check(seen_everywhere, "a café change made on one server is served by every server")

    # The windows today: the second one is ordered past its capacity on purpose (the first may
    # stop taking orders while the test runs, when it starts just before a window's cut-off).
    status, _, payload = request(servers[1]["port"], "GET", f"/v1/cafes/{CAFE}/pickup-windows", kiosk)
    windows = json.loads(payload)["windows"]
    contested = windows[1 if len(windows) > 1 else 0]["start"]

    # MARK: - Load
    lock = threading.Lock()
    acknowledged = {}  # key -> order id
    answers = []  # (second the request was sent, status), for the timeline
    statuses = {}
    unavailable_codes = set()
    stop_kiosks = threading.Event()
    stop_displays = threading.Event()
    first_cursor = None

    def living_ports():
        return [s["port"] for s in servers if alive(s)]

    def kiosk_loop(number):
        rng = random.Random(number)
        sequence = 0
        while not stop_kiosks.is_set():
            sequence += 1
            key = f"k{number}-{sequence}"
            pickup = {"start": contested} if sequence % 3 == 0 else "asap"
            body = {"cafeId": CAFE, "pickup": pickup, "customer": {"name": key},
                    "lines": [{"itemId": rng.choice(items), "quantity": 1, "options": []}]}
            attempt = 0
            while not stop_kiosks.is_set() or attempt > 0:
                ports = living_ports()
                port = ports[(number + attempt) % len(ports)]
                attempt += 1
                sent = time.time()
                try:
                    status, headers, payload = request(port, "POST", "/v1/orders", kiosk, body, {"Idempotency-Key": key})
                except (OSError, http.client.HTTPException):
                    status, payload = "connection", b""
                code = json.loads(payload)["error"]["code"] if status in (409, 503) else None
                with lock:
                    label = f"{status} {code}" if code else status
                    statuses[label] = statuses.get(label, 0) + 1
                    answers.append((sent, time.time(), status))
                if status == 201:
                    with lock:
                        acknowledged[key] = json.loads(payload)["id"]
                    break
                if status == 503:
                    with lock:
                        unavailable_codes.add(code)
                if status in (503, "connection", 409) and attempt < 200:
                    if code == "pickup_window_full":
                        break
                    time.sleep(0.05)
                    continue
                if status not in (409, 503, "connection"):
                    with lock:
                        failures.append(f"order {key} answered {status}: {payload[:200]!r}")
                break

    seen = [[] for _ in range(args.displays)]
    wakeups = []  # (display, seconds from the POST on another server to the display's answer)

    def display_loop(number):
        cursor = first_cursor
        index = number
        while not stop_displays.is_set():
            ports = living_ports()
            port = ports[index % len(ports)]
            try:
                status, headers, payload = request(port, "GET", f"/v1/cafes/{CAFE}/tickets?after={cursor}&wait=2", kitchen,
                                                   headers={"If-None-Match": f'"{cursor}"'}, timeout=10)
            except (OSError, http.client.HTTPException):
                index += 1
                time.sleep(0.05)
                continue
            if status == 304:
                continue
            if status != 200:
                time.sleep(0.1)
                continue
            page = json.loads(payload)
            for ticket in page["tickets"]:
                seen[number].append((ticket["id"], time.time()))
            cursor = int(page["cursor"])

    streamed = [[] for _ in range(args.streams)]
    resumes = [0] * args.streams

    def stream_loop(number):
        """Follows the event stream, moving to the next living server every 2 s (or when its
        server dies), resuming with Last-Event-ID; an event counts once its blank line arrived."""
        last_id = first_cursor
        index = number
        while not stop_displays.is_set():
            ports = living_ports()
            port = ports[index % len(ports)]
            index += 1
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", f"/v1/cafes/{CAFE}/tickets/events",
                                   headers={"Authorization": f"Bearer {kitchen}", "Last-Event-ID": str(last_id)})
                answer = connection.getresponse()
                if answer.status != 200:
                    time.sleep(0.1)
                    continue
                resumes[number] += 1
                until = time.time() + 2
                event_id, tickets = None, []
                while not stop_displays.is_set() and time.time() < until:
                    line = answer.readline().decode()
                    if not line:
                        break
                    line = line.rstrip("\n")
                    if line.startswith("id: "):
                        event_id = int(line[4:])
                    elif line.startswith("data: "):
                        tickets = json.loads(line[6:])["tickets"]
                    elif line == "" and event_id is not None:
                        streamed[number].extend((ticket["id"], time.time()) for ticket in tickets)
                        last_id, event_id, tickets = event_id, None, []
            except (OSError, http.client.HTTPException, ValueError):
                time.sleep(0.05)
            finally:
                connection.close()

    status, _, payload = request(servers[0]["port"], "GET", f"/v1/cafes/{CAFE}/tickets", kitchen)
    first_cursor = int(json.loads(payload)["cursor"])

    # A display parked on server 0 wakes for an order placed on server 1 (NOTIFY, then a re-read).
    for attempt in range(5):
        box = {}

        def park():
            started = time.time()
            box["answer"] = request(servers[0]["port"], "GET", f"/v1/cafes/{CAFE}/tickets?after={first_cursor}&wait=20",
                                    kitchen, headers={"If-None-Match": f'"{first_cursor}"'}, timeout=30)
            box["at"] = time.time()

        parked = threading.Thread(target=park)
        parked.start()
        time.sleep(0.5)
        posted = time.time()
        status, _, payload = request(servers[1]["port"], "POST", "/v1/orders", kiosk,
                                     {"cafeId": CAFE, "pickup": "asap", "customer": {"name": f"wake{attempt}"},
                                      "lines": [{"itemId": items[0], "quantity": 1, "options": []}]},
                                     {"Idempotency-Key": f"wake-{attempt}"})
        acknowledged[f"wake-{attempt}"] = json.loads(payload)["id"]
        parked.join()
        wakeups.append(box["at"] - posted)
        first_cursor = int(json.loads(box["answer"][2])["cursor"]) if box["answer"][0] == 200 else first_cursor
    wakeups.sort()
    check(box["answer"][0] == 200 and wakeups[-1] < 5,
          f"a display parked on server 0 woke for orders placed on server 1: median {wakeups[len(wakeups) // 2] * 1000:.0f} ms, "
          f"worst {wakeups[-1] * 1000:.0f} ms (the issue's target is 100 ms; this machine is shared)")
    # An order followed on server 0 (GET /v1/orders/{id}?wait= with its version) wakes when the
    # kitchen moves it on server 1: order events are read on the other server's notification.
    follows = []
    for attempt in range(3):
        order_id = acknowledged[f"wake-{attempt}"]
        status, headers, payload = request(servers[0]["port"], "GET", f"/v1/orders/{order_id}", kiosk)
        etag = headers.get("ETag") or headers.get("etag")
        ticket_id = json.loads(payload)["tickets"][0]["id"]
        box = {}

        def follow():
            box["answer"] = request(servers[0]["port"], "GET", f"/v1/orders/{order_id}?wait=20", kiosk,
                                    headers={"If-None-Match": etag}, timeout=30)
            box["at"] = time.time()

        follower = threading.Thread(target=follow)
        follower.start()
        time.sleep(0.5)
        moved = time.time()
        status, _, payload = request(servers[1]["port"], "POST", f"/v1/tickets/{ticket_id}/status", kitchen,
                                     {"status": "preparing"})
        assert status == 200, (status, payload)
        follower.join()
        follows.append((box["at"] - moved, box["answer"][0], json.loads(box["answer"][2]).get("status")))
    delays = sorted(delay for delay, _, _ in follows)
    check(all(code == 200 and state == "preparing" for _, code, state in follows) and delays[-1] < 5,
          f"an order followed on server 0 woke when moved on server 1: median {delays[len(delays) // 2] * 1000:.0f} ms, "
          f"worst {delays[-1] * 1000:.0f} ms (the issue's target is 100 ms; this machine is shared)")

    # The displays below start after these orders.
    first_cursor = int(json.loads(request(servers[0]["port"], "GET", f"/v1/cafes/{CAFE}/tickets", kitchen)[2])["cursor"])

    kiosk_threads = [threading.Thread(target=kiosk_loop, args=(n,)) for n in range(args.kiosks)]
    display_threads = [threading.Thread(target=display_loop, args=(n,)) for n in range(args.displays)]
    display_threads += [threading.Thread(target=stream_loop, args=(n,)) for n in range(args.streams)]
    for thread in display_threads + kiosk_threads:
        thread.start()

    time.sleep(args.seconds / 2)
    victim = servers[-1]
    victim["process"].send_signal(signal.SIGKILL)
    victim["process"].wait()
    log(f"SIGKILLed the server on port {victim['port']} mid-load ({len(acknowledged)} orders acknowledged so far)")
    time.sleep(args.seconds / 2)

    log(f"restarting PostgreSQL under load ({len(acknowledged)} orders acknowledged so far)")
    restart_started = time.time()
    subprocess.run([os.path.join(ROOT, "scripts", "private-postgres.sh"), "restart", args.postgres_dir], check=True)
    back = time.time()
    log(f"PostgreSQL back after {back - restart_started:.1f} s")

    def placed_after(instant):
        with lock:
            return [answered for sent, answered, status in answers if sent >= instant and status == 201]

    recovered_deadline = back + 20
    while len(placed_after(back)) < 20 and time.time() < recovered_deadline:
        time.sleep(0.05)
    after = sorted(placed_after(back))
    check(len(after) >= 20, f"the servers reconnected by themselves: {len(after)} orders sent after PostgreSQL was back "
                            f"were placed, the first {((after or [back])[0] - back) * 1000:.0f} ms after it was back")
    time.sleep(2)

    stop_kiosks.set()
    stopping = time.time()
    for thread in kiosk_threads:
        thread.join()
    stopped_in = time.time() - stopping
    log(f"kiosks stopped ({stopped_in:.1f} s to finish their last orders): answers {statuses}")
    with lock:
        slowest = max(answered - sent for sent, answered, status in answers)
    check(stopped_in < 6 and slowest < 7, f"no request hung through the kill and the restart: the slowest answer took "
                                         f"{slowest:.1f} s (a call waits at most 3 s for a connection, 5 s in all)")
    with lock:
        timeline = {}
        for sent, answered, status in answers:
            second = int(sent - restart_started + 100) - 100
            timeline.setdefault(second, {}).setdefault(status, 0)
            timeline[second][status] += 1
    log("answers by the second they were sent, around the restart: " + "; ".join(
        f"{second:+d}s {dict(sorted(timeline[second].items(), key=str))}" for second in sorted(timeline) if -2 <= second <= 6))
    unavailable = sum(count for label, count in statuses.items() if str(label).startswith("503"))
    check(unavailable_codes == {"database_unavailable"} and unavailable > 0,
          f"requests during the outage got 503 with code {sorted(unavailable_codes)} ({unavailable} of them)")
    check(not any(str(label).startswith("5") and not str(label).startswith("503") for label in statuses),
          "no other 5xx answer during the kill and the restart")

    # MARK: - Checks
    tickets = set(psql(f"SELECT id FROM ticket WHERE cafeId = '{CAFE}' AND sequence > {first_cursor}").split())
    deadline = time.time() + 20
    while time.time() < deadline and any(len({t for t, _ in display}) < len(tickets) for display in seen + streamed):
        time.sleep(0.1)
    stop_displays.set()
    for thread in display_threads:
        thread.join()

    ids = list(acknowledged.values())
    stored = int(psql("SELECT COUNT(*) FROM customerOrder WHERE id IN (%s)" % ",".join(f"'{i}'" for i in ids)))
    check(stored == len(set(ids)) == len(ids), f"every acknowledged order exists, once ({len(ids)} acknowledged, {stored} found)")
    orders = int(psql(f"SELECT COUNT(*) FROM customerOrder WHERE cafeId = '{CAFE}'"))
    records = int(psql("SELECT COUNT(DISTINCT key) FROM idempotencyRecord"))
    check(orders == records, f"one order per idempotency key ({orders} orders, {records} keys; kills and retries included)")
    mismatched = psql(f"""
        SELECT s.start, s.used, COALESCE(SUM(o.capacityUnits) FILTER (WHERE o.cancelledAt IS NULL), 0)
        FROM pickupSlot s LEFT JOIN customerOrder o ON o.cafeId = s.cafeId AND extract(epoch FROM o.pickupStart) = s.start
        WHERE s.cafeId = '{CAFE}' GROUP BY s.start, s.used
        HAVING s.used <> COALESCE(SUM(o.capacityUnits) FILTER (WHERE o.cancelledAt IS NULL), 0) OR s.used > {CAPACITY}
        """)
    check(mismatched == "", f"capacity used equals the orders stored in every window, none past {CAPACITY}: {mismatched or 'all equal'}")
    contested_key = int(datetime.datetime.fromisoformat(contested.replace("Z", "+00:00")).timestamp())
    full = int(psql(f"SELECT COALESCE(MAX(used), 0) FROM pickupSlot WHERE cafeId = '{CAFE}' AND start = {contested_key}"))
    check(full == CAPACITY, f"the contested window holds exactly its capacity ({full} of {CAPACITY})")
    for number, display in enumerate(seen):
        ids_seen = [t for t, _ in display]
        check(len(ids_seen) == len(set(ids_seen)) and set(ids_seen) == tickets,
              f"display {number} saw every ticket exactly once ({len(ids_seen)} answers, {len(set(ids_seen))} distinct, "
              f"{len(tickets)} tickets, {len(tickets - set(ids_seen))} missing)")
    for number, display in enumerate(streamed):
        ids_seen = [t for t, _ in display]
        check(len(ids_seen) == len(set(ids_seen)) and set(ids_seen) == tickets and resumes[number] > 3,
              f"stream display {number} saw every ticket exactly once over {resumes[number]} streams on the servers in "
              f"turn ({len(ids_seen)} tickets in events, {len(set(ids_seen))} distinct, {len(tickets)} tickets, "
              f"{len(tickets - set(ids_seen))} missing)")
    # Every acknowledged order's order.placed reached the receiver (at least once: a server
    # killed mid-attempt, or a round whose result was lost in the restart, is retried once its
    # lease ends), and no event was ever being sent by two servers at once.
    wanted = set(acknowledged.values())
    deadline = time.time() + 60
    while time.time() < deadline:
        with receiver_lock:
            delivered = {order for _, order, _, _ in received}
        if wanted <= delivered:
            break
        time.sleep(0.2)
    with receiver_lock:
        by_event = {}
        for event, order, started, ended in received:
            by_event.setdefault(event, []).append((started, ended))
    overlapping = [event for event, spans in by_event.items()
                   if any(a[0] < b[1] and b[0] < a[1] for i, a in enumerate(spans) for b in spans[i + 1:])]
    repeats = sum(len(spans) - 1 for spans in by_event.values())
    check(wanted <= delivered and not overlapping,
          f"webhooks: every acknowledged order's order.placed was delivered ({len(wanted & delivered)} of {len(wanted)}), "
          f"never by two servers at once ({len(overlapping)} overlapping); {repeats} sent again after the kill or restart")
    receiver.shutdown()

    # MARK: - Firing held tickets across servers
    # A café whose long station takes 4 s and short one 1 s: each order's short ticket is held until
    # its long ticket's expected finish (nobody cooks here, so the long tickets queue: 3 s for the
    # first order, 47 s for the twelfth). Every living server runs its timer on the one database;
    # each held ticket must fire once, at its time.
    fire_cafe, fire_menu = all_day_cafe(ROOT, "multifire", slot_minutes=15, capacity=1000, major=778)
    fire_cafe["beacons"] = []
    plain = [item for item in fire_menu["items"] if not item.get("dayParts") and not item.get("modifierGroups")]
    stations = sorted({item["station"] for item in plain})
    long_station, short_station = stations[0], stations[1]
    fire_cafe["stations"] = [{"id": long_station, "prepSeconds": 4}, {"id": short_station, "prepSeconds": 1}]
    for path, document in (("/v1/cafes/multifire", fire_cafe), ("/v1/cafes/multifire/menu", fire_menu)):
        status, _, payload = request(living_ports()[0], "PUT", path, ops, document)
        assert status in (200, 201), (path, status, payload)
    long_item = next(item["id"] for item in plain if item["station"] == long_station)
    short_item = next(item["id"] for item in plain if item["station"] == short_station)
    fire_cursor = int(json.loads(request(living_ports()[0], "GET", "/v1/cafes/multifire/tickets", kitchen)[2])["cursor"])
    feed_before = int(psql("SELECT value FROM feedSequence"))
    held = {}  # ticket id -> fireAt
    for number in range(12):
        port = living_ports()[number % len(living_ports())]
        status, _, payload = request(port, "POST", "/v1/orders", kiosk,
                                     {"cafeId": "multifire", "pickup": "asap", "customer": {"name": f"fire{number}"},
                                      "lines": [{"itemId": long_item, "quantity": 1, "options": []},
                                                {"itemId": short_item, "quantity": 1, "options": []}]},
                                     {"Idempotency-Key": f"fire-{number}"})
        assert status == 201, (status, payload)
        for ticket in json.loads(payload)["tickets"]:
            if ticket["status"] == "held":
                held[ticket["id"]] = ticket["fireAt"]
    fired_seen = {}
    cursor = fire_cursor
    last_fire = max(datetime.datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() for at in held.values())
    deadline = max(time.time(), last_fire) + 30
    while time.time() < deadline and len(fired_seen) < len(held):
        port = living_ports()[int(time.time()) % len(living_ports())]
        status, _, payload = request(port, "GET", f"/v1/cafes/multifire/tickets?after={cursor}&wait=5", kitchen,
                                     headers={"If-None-Match": f'"{cursor}"'}, timeout=15)
        if status != 200:
            continue
        page = json.loads(payload)
        for ticket in page["tickets"]:
            if ticket["id"] in held and ticket["status"] == "new":
                fired_seen[ticket["id"]] = fired_seen.get(ticket["id"], 0) + 1
        cursor = int(page["cursor"])
    feed_moves = int(psql("SELECT value FROM feedSequence")) - feed_before
    late = psql("SELECT COUNT(*) FROM ticket WHERE cafeId = 'multifire' AND fireAt IS NOT NULL "
                "AND (status <> 'new' OR firedAt < fireAt OR firedAt > fireAt + interval '10 seconds')")
    check(len(held) == 12 and set(fired_seen) == set(held) and all(count == 1 for count in fired_seen.values())
          and feed_moves == 12 * 2 + 12 and late == "0",
          f"held tickets fired once across {len(living_ports())} servers: {len(held)} held, {len(fired_seen)} seen fired "
          f"(each {sorted(set(fired_seen.values()))} time), the feed moved {feed_moves} times for 24 tickets written "
          f"and {len(held)} fired, {late} fired early, late by more than 10 s, or not at all")
finally:
    stop_all()
    for server in servers:
        if failures:
            print(f"--- {server['log']} (last lines)")
            print("".join(open(server["log"]).readlines()[-15:]))
    if not failures:
        shutil.rmtree(work, ignore_errors=True)

if failures:
    print(f"{len(failures)} checks FAILED")
    sys.exit(1)
print("multi-server test: every check passed")
