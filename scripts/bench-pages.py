#!/usr/bin/env python3
"""The kitchen display in a real browser (issue 12): order-to-screen latency and how long the page
takes to render 200 open tickets.

A release `canteen serve` on loopback with a fresh data folder and the browser tests' café; the
kitchen display (`/kds`) open in Debian's headless Chromium. Orders are placed one at a time
through the API (`POST /v1/orders`, keep-alive), paced (one every 250 ms) and then in a burst
(one every 20 ms); a MutationObserver in the page writes the instant each ticket card enters
the DOM (`performance.timeOrigin + performance.now()`), so the figure is sent → in the DOM, not a
polling interval. Between the two, the page is loaded again with the 200 paced tickets open,
five times: load → 200 cards in the DOM and painted, and the script's own share (feed answer →
DOM).

    scripts/bench-pages.py [--orders N] [--interval S] [--loads N] [--bin PATH]

Printed beside the anchors: Square promises "most within 60 s" for its webhooks; coopcycle's
new-order alerts arrive about 15 s late. Everything it starts is stopped on exit.
"""

import argparse
import http.client
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "Browser"))

OBSERVER = """
window.__seen = {};
new MutationObserver((records) => {
  const at = performance.timeOrigin + performance.now();
  for (const record of records) for (const node of record.addedNodes) {
    if (node.nodeType !== 1) continue;
    const cards = node.matches('[data-ticket-id]') ? [node] : node.querySelectorAll('[data-ticket-id]');
    for (const card of cards) if (!(card.dataset.ticketId in window.__seen)) window.__seen[card.dataset.ticketId] = at;
  }
}).observe(document.querySelector('.tickets'), {childList: true, subtree: true});
"""


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--orders", type=int, default=200)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between paced orders")
    parser.add_argument("--bin", default=None, help="the canteen binary (default: the release build)")
    options = parser.parse_args()
    if options.bin:
        os.environ["CANTEEN_BIN"] = options.bin
    from canteen_browser import CAFE, Browser, Server, test_cafe

    cafe = test_cafe(capacity=100000)
    server = Server(cafe)
    browser = None
    try:
        kiosk = server.token("kiosk")
        kitchen = server.token("kitchen")
        browser = Browser()
        browser.open(f"{server.base}/kds?cafe={CAFE}#token={kitchen}")
        browser.wait(lambda b: b.js("return document.querySelector('#kds').dataset.loaded === 'true'"), 30)
        browser.js(OBSERVER)

        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)

        def place(count, interval):
            """Orders one at a time; each ticket's (sent, answered) instants in epoch ms."""
            sent, answered = {}, {}
            for index in range(count):
                body = json.dumps({"cafeId": CAFE, "lines": [{"itemId": "soup", "quantity": 1 + index % 3}],
                                   "pickup": "asap", "customer": {"name": f"Bench {index}"}})
                headers = {"Authorization": f"Bearer {kiosk}", "Content-Type": "application/json",
                           "Idempotency-Key": str(uuid.uuid4())}
                started = time.time() * 1000
                connection.request("POST", "/v1/orders", body=body, headers=headers)
                answer = connection.getresponse()
                order = json.loads(answer.read())
                finished = time.time() * 1000
                if answer.status != 201:
                    raise SystemExit(f"order {index}: {answer.status} {order}")
                ticket = order["tickets"][0]["id"]
                sent[ticket], answered[ticket] = started, finished
                time.sleep(interval)
            tickets = list(sent)
            browser.wait(lambda b: b.js("return arguments[0].every((t) => window.__seen[t] !== undefined)", tickets), 60)
            seen = browser.js("return window.__seen")
            return ([seen[t] - sent[t] for t in sent], [seen[t] - answered[t] for t in sent])

        paced = place(options.orders, options.interval)

        loads, scripts = [], []
        for _ in range(options.loads):
            browser.open(f"{server.base}/kds?cafe={CAFE}")
            browser.wait(lambda b: b.js("return performance.getEntriesByName('canteen:tickets-painted').length") > 0, 60)
            count = browser.js("return document.querySelectorAll('.tickets [data-ticket-id]').length")
            if count != options.orders:
                raise SystemExit(f"the page shows {count} tickets, not {options.orders}")
            loads.append(browser.js("return performance.getEntriesByName('canteen:tickets-painted')[0].startTime"))
            scripts.append(browser.js("return performance.getEntriesByName('canteen:render')[0].duration"))

        browser.js(OBSERVER)
        burst = place(options.orders, 0.02)
        connection.close()

        def line(name, values):
            return (f"  {name:<34} p50 {statistics.median(values):7.1f} ms   p99 {percentile(values, 0.99):7.1f} ms   "
                    f"max {max(values):7.1f} ms")

        print(f"order → kitchen display DOM, orders placed one at a time through the API (keep-alive), "
              f"headless Chromium, {'release' if 'release' in server.binary else 'debug'} server:")
        print(f" {options.orders} orders, one every {options.interval * 1000:.0f} ms:")
        print(line("from the order being sent", paced[0]))
        print(line("from the API's answer", paced[1]))
        print(f" {options.orders} more in a burst, one every 20 ms, {options.orders}–{2 * options.orders} tickets on screen:")
        print(line("from the order being sent", burst[0]))
        print("  anchors: Square's webhooks \"most within 60 s\" (60,000 ms); coopcycle's alerts ~15 s (15,000 ms)")
        print(f"render {options.orders} open tickets, median of {len(loads)} loads: page load → painted "
              f"{statistics.median(loads):.0f} ms (min {min(loads):.0f}, max {max(loads):.0f}); "
              f"the script's render (feed answer → DOM) {statistics.median(scripts):.0f} ms")
        record("pages.order_to_screen.p50", statistics.median(paced[0]), "ms", "lower",
               "order → ticket in the KDS DOM (headless Chromium), p50", "pages.anchor.coopcycle")
        record("pages.order_to_screen.p99", percentile(paced[0], 0.99), "ms", "lower",
               "order → ticket in the KDS DOM (headless Chromium), p99", "pages.anchor.coopcycle")
        record("pages.burst_to_screen.p99", percentile(burst[0], 0.99), "ms", "lower",
               "order → KDS DOM, one order per 20 ms, p99", "pages.anchor.coopcycle")
        record("pages.render_200", statistics.median(loads), "ms", "lower",
               f"KDS page load → {options.orders} open tickets painted (median)")
        record("pages.anchor.coopcycle", 15000, "ms", "lower", "coopcycle's new-order alerts (anchor)")
    finally:
        if browser:
            browser.quit()
        server.stop()


def record(id_, value, unit, better, title, reference=None):
    """One figure for the benchmark report (scripts/bench-report.py), when $BENCH_FIGURES names its file."""
    path = os.environ.get("BENCH_FIGURES")
    if not path:
        return
    figure = {"id": id_, "value": float(value), "unit": unit, "better": better, "title": title}
    if reference:
        figure["reference"] = reference
    with open(path, "a") as out:
        out.write(json.dumps(figure, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
