#!/usr/bin/env python3
"""The fixed loads of scripts/count-instructions.sh, against a server running under callgrind.

    scripts/callgrind-load.py orders PORT KIOSK_TOKEN COUNT CONNECTIONS KEY_PREFIX
    scripts/callgrind-load.py healthz PORT COUNT CONNECTIONS
    scripts/callgrind-load.py parked PORT KIOSK_TOKEN KITCHEN_TOKEN DISPLAYS SERVER_PID KEY

`orders` places COUNT orders (the order of scripts/bench-server.sh: 2 lines, two stations, "asap")
over CONNECTIONS keep-alive connections and fails unless every answer is a 201.
`parked` parks DISPLAYS long-polls at the feed's latest cursor, waits until the server is idle,
turns callgrind's instrumentation on, places one order, waits until every display has its answer,
and turns instrumentation off.
"""
import json, os, select, socket, subprocess, sys, threading, time


def order_request(token, key):
    body = json.dumps({"cafeId": "bench", "lines": [{"itemId": "orange_juice", "quantity": 1, "options": []},
                                                    {"itemId": "croissant", "quantity": 1, "options": []}],
                       "pickup": "asap", "customer": {"name": f"Bench {key}"}}, separators=(",", ":")).encode()
    head = (f"POST /v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"Idempotency-Key: {key}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode() + body


def read_response(sock, buffer=b""):
    """(status, body, rest) of one HTTP/1.1 response with a Content-Length (or none)."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed")
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed")
        rest += chunk
    return status, rest[:length], rest[length:]


def connect(port):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def orders(port, token, count, connections, prefix):
    failures = []
    def worker(index, share):
        sock = connect(port)
        for n in range(share):
            sock.sendall(order_request(token, f"{prefix}-{index}-{n}"))
            status, body, rest = read_response(sock)
            if status != 201:
                failures.append(f"{status} {body[:200]!r}")
        sock.close()
    shares = [count // connections + (1 if i < count % connections else 0) for i in range(connections)]
    threads = [threading.Thread(target=worker, args=(i, s)) for i, s in enumerate(shares)]
    for t in threads: t.start()
    for t in threads: t.join()
    if failures:
        sys.exit(f"{len(failures)} orders failed, first: {failures[0]}")
    print(f"placed {count} orders over {connections} connections")


def healthz(port, count, connections):
    failures = []
    def worker(share):
        sock = connect(port)
        for _ in range(share):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status, body, rest = read_response(sock)
            if status != 200:
                failures.append(status)
        sock.close()
    shares = [count // connections + (1 if i < count % connections else 0) for i in range(connections)]
    threads = [threading.Thread(target=worker, args=(s,)) for s in shares]
    for t in threads: t.start()
    for t in threads: t.join()
    if failures:
        sys.exit(f"{len(failures)} healthz requests failed")
    print(f"answered {count} GET /healthz over {connections} connections")


def cpu_ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def wait_idle(pid, quiet=1.0, limit=600):
    end = time.monotonic() + limit
    last = cpu_ticks(pid)
    while time.monotonic() < end:
        time.sleep(quiet)
        now = cpu_ticks(pid)
        if now - last <= 2:
            return
        last = now


def latest_cursor(port, token):
    sock = connect(port)
    cursor = None
    while True:
        target = "/v1/cafes/bench/tickets" + (f"?after={cursor}" if cursor is not None else "")
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        status, body, _ = read_response(sock)
        page = json.loads(body)
        if status != 200:
            sys.exit(f"feed answered {status}")
        if not page["tickets"]:
            sock.close()
            return int(page["cursor"])
        cursor = int(page["cursor"])


def parked(port, kiosk, kitchen, displays, pid, key):
    cursor = latest_cursor(port, kitchen)
    poll = (f"GET /v1/cafes/bench/tickets?after={cursor}&wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {kitchen}\r\nIf-None-Match: \"{cursor}\"\r\n\r\n").encode()
    socks = [connect(port) for _ in range(displays)]
    for s in socks:
        s.sendall(poll)
    wait_idle(pid)
    subprocess.run(["callgrind_control", "-z", str(pid)], check=True, capture_output=True)
    subprocess.run(["callgrind_control", "-i", "on", str(pid)], check=True, capture_output=True)
    kiosk_sock = connect(port)
    kiosk_sock.sendall(order_request(kiosk, key))
    status, body, _ = read_response(kiosk_sock)
    if status != 201:
        sys.exit(f"order answered {status}: {body[:200]!r}")
    poller = select.epoll()
    for s in socks:
        poller.register(s.fileno(), select.EPOLLIN)
    waiting, answered = {s.fileno() for s in socks}, 0
    end = time.monotonic() + 600
    while waiting and time.monotonic() < end:
        for fd, _ in poller.poll(1.0):
            if fd in waiting:
                waiting.discard(fd)
                poller.unregister(fd)
                answered += 1
    wait_idle(pid, quiet=0.5)
    subprocess.run(["callgrind_control", "-i", "off", str(pid)], check=True, capture_output=True)
    for s in socks: s.close()
    if waiting:
        sys.exit(f"{len(waiting)} displays never answered")
    print(f"{answered} parked displays answered after one order")


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "orders":
        orders(int(args[0]), args[1], int(args[2]), int(args[3]), args[4])
    elif mode == "healthz":
        healthz(int(args[0]), int(args[1]), int(args[2]))
    elif mode == "parked":
        parked(int(args[0]), args[1], args[2], int(args[3]), int(args[4]), args[5])
    else:
        sys.exit(__doc__)
