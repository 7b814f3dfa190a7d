#!/usr/bin/env python3
"""The employee page's two figures (issue 29), against a release `canteen serve` on loopback that
signs people in with the test identity provider (Tests/IdentityProvider/provider.py, in a thread
of this process, also on loopback):

1. Sign-in round trip: `GET /auth/login` → the provider's authorization endpoint (its login form)
   → the form posted → the redirect back to `/auth/callback` (code exchanged at the token
   endpoint, ID token verified against the JWKS) → the session cookie in hand. Plain HTTP from
   this process, one keep-alive connection per host, no browser: what Canteen and the provider
   add, not how fast a person types.
2. Order ready → the page shows it: `/app` open in headless Chromium (signed in), an order placed
   through the API and followed by the page (its event stream); the kitchen's `POST
   /v1/tickets/{id}/status` to ready is sent at a known instant, and a MutationObserver in the page
   records when `data-order-status` turns `ready` (`performance.timeOrigin + performance.now()`).

    scripts/bench-app.py [--sign-ins N] [--orders N] [--bin PATH]

Printed beside ceilings: a sign-in the person waits for should take well under a second here
(ceiling 1,000 ms p99); "ready" should reach the page faster than the kitchen display's own
order-to-screen promise (ceiling 1,000 ms p99). Everything it starts is stopped on exit.
"""

import argparse
import http.client
import json
import os
import statistics
import sys
import time
import urllib.parse
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "Browser"))

READY_OBSERVER = """
window.__readyAt = {};
const section = document.querySelector('.current-order');
new MutationObserver(() => {
  const at = performance.timeOrigin + performance.now();
  if (section.dataset.orderStatus === 'ready' && !(section.dataset.orderId in window.__readyAt)) {
    window.__readyAt[section.dataset.orderId] = at;
  }
}).observe(section, {attributes: true, attributeFilter: ['data-order-status']});
"""


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


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


class Client:
    """Keep-alive HTTP/1.1 to one host, cookies by hand (only what the flow needs)."""

    def __init__(self, base):
        parts = urllib.parse.urlsplit(base)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)

    def request(self, method, target, body=None, headers=None):
        self.connection.request(method, target, body=body, headers=headers or {})
        answer = self.connection.getresponse()
        payload = answer.read()
        return answer.status, answer, payload


def cookie(answer, name):
    for header, value in answer.getheaders():
        if header.lower() == "set-cookie" and value.startswith(name + "="):
            return value.split(";", 1)[0]
    return None


def sign_in_once(canteen, provider, canteen_base):
    """One round trip; (milliseconds, session cookie)."""
    started = time.perf_counter()
    status, answer, _ = canteen.request("GET", "/auth/login?next=/app")
    if status != 302:
        raise SystemExit(f"/auth/login: {status}")
    login_cookie = cookie(answer, "canteen_login")
    authorization = urllib.parse.urlsplit(answer.getheader("Location"))
    status, _, page = provider.request("GET", f"{authorization.path}?{authorization.query}")
    if status != 200 or b'id="login"' not in page:
        raise SystemExit(f"authorize: {status}")
    form = dict(urllib.parse.parse_qsl(authorization.query))
    form.update({"username": "alice", "password": "alice-pw"})
    status, answer, _ = provider.request("POST", "/authorize", body=urllib.parse.urlencode(form),
                                         headers={"Content-Type": "application/x-www-form-urlencoded"})
    if status != 302:
        raise SystemExit(f"login form: {status}")
    back = urllib.parse.urlsplit(answer.getheader("Location"))
    status, answer, payload = canteen.request("GET", f"{back.path}?{back.query}", headers={"Cookie": login_cookie})
    session = cookie(answer, "canteen_session")
    if status != 303 or not session:
        raise SystemExit(f"callback: {status} {payload[:200]}")
    return (time.perf_counter() - started) * 1000, session


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sign-ins", type=int, default=200)
    parser.add_argument("--orders", type=int, default=40)
    parser.add_argument("--bin", default=None, help="the canteen binary (default: the release build)")
    options = parser.parse_args()
    if options.bin:
        os.environ["CANTEEN_BIN"] = options.bin
    from app_support import AppServer, app_browser, sign_in, start_provider
    from canteen_browser import CAFE, test_cafe

    provider, provider_server = start_provider()
    server = AppServer(test_cafe(capacity=100000), provider=provider)
    browser = None
    try:
        # 1. Sign-in round trips (a few first to warm both servers up, not counted).
        canteen = Client(server.base)
        idp = Client(provider.issuer)
        for _ in range(5):
            sign_in_once(canteen, idp, server.base)
        rounds = [sign_in_once(canteen, idp, server.base)[0] for _ in range(options.sign_ins)]

        # 2. Order ready → page.
        kitchen = server.token("kitchen")
        # The page is signed in through the provider's form (its session cookie: the event stream);
        # the orders are placed through the API for the same person.
        user = server.cli("tokens", "create", "--role", "user", "--user", "u-alice")
        browser = app_browser(server.base)
        sign_in(browser, server.base)
        browser.js(READY_OBSERVER)
        api = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)

        def call(method, path, token, body=None, headers=None):
            sent = {"Authorization": f"Bearer {token}", **(headers or {})}
            if body is not None:
                sent["Content-Type"] = "application/json"
            api.request(method, path, body=json.dumps(body) if body is not None else None, headers=sent)
            answer = api.getresponse()
            payload = answer.read()
            if answer.status >= 300:
                raise SystemExit(f"{method} {path}: {answer.status} {payload[:200]}")
            return json.loads(payload) if payload else None

        delays = []
        for index in range(options.orders):
            order = call("POST", "/v1/orders", user, {
                "cafeId": CAFE, "lines": [{"itemId": "soup", "quantity": 1}], "pickup": "asap",
                "customer": {"name": "Bench"}}, {"Idempotency-Key": str(uuid.uuid4())})
            browser.js("window.CanteenApp.follow(arguments[0])", order)
            browser.wait(lambda b: b.js("return document.querySelector('.current-order').dataset.orderId") == order["id"], 10)
            time.sleep(0.3)  # the event stream is open and has sent its history
            ticket = order["tickets"][0]["id"]
            call("POST", f"/v1/tickets/{ticket}/status", kitchen, {"status": "preparing"})
            sent = time.time() * 1000
            call("POST", f"/v1/tickets/{ticket}/status", kitchen, {"status": "ready"})
            browser.wait(lambda b: b.js("return window.__readyAt[arguments[0]]", order["id"]) is not None, 15)
            delays.append(browser.js("return window.__readyAt[arguments[0]]", order["id"]) - sent)
            call("POST", f"/v1/tickets/{ticket}/status", kitchen, {"status": "picked_up"})
        api.close()

        def line(name, values, ceiling):
            return (f"  {name:<46} p50 {statistics.median(values):7.1f} ms   p99 {percentile(values, 0.99):7.1f} ms   "
                    f"max {max(values):7.1f} ms   (ceiling p99 {ceiling:,} ms)")

        build = "release" if "release" in server.binary else "debug"
        print(f"the employee page, {build} server and the test identity provider on loopback:")
        print(line(f"sign-in round trip ({options.sign_ins}×, login → cookie)", rounds, 1000))
        print(line(f"order ready → /app shows ready ({options.orders}×, Chromium)", delays, 1000))
        record("app.sign_in.p50", statistics.median(rounds), "ms", "lower",
               "sign-in round trip (login start → session cookie, provider on loopback), p50", "app.ceiling.sign_in")
        record("app.sign_in.p99", percentile(rounds, 0.99), "ms", "lower",
               "sign-in round trip (login start → session cookie, provider on loopback), p99", "app.ceiling.sign_in")
        record("app.ready_to_page.p50", statistics.median(delays), "ms", "lower",
               "order ready (kitchen's API call) → /app shows ready, p50", "app.ceiling.ready")
        record("app.ready_to_page.p99", percentile(delays, 0.99), "ms", "lower",
               "order ready (kitchen's API call) → /app shows ready, p99", "app.ceiling.ready")
        record("app.ceiling.sign_in", 1000, "ms", "lower", "ceiling: a sign-in round trip on loopback (p99)")
        record("app.ceiling.ready", 1000, "ms", "lower", "ceiling: ready → the employee's page (p99)")
    finally:
        if browser:
            browser.quit()
        server.stop()
        provider_server.shutdown()


if __name__ == "__main__":
    main()
