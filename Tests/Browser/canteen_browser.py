"""What the browser tests of the pages share: a real `canteen serve` on a free loopback port with
its own data folder, a test café that is open now, tokens, API calls, Debian's headless Chromium
driven by selenium (never downloaded), a proxy that can fail on purpose, and screenshots.

Everything runs on 127.0.0.1 and is stopped by the test that started it.
"""

import datetime
import http.client
import json
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import zoneinfo
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / ".build-screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
CAFE = "testcafe"
PHONE = (390, 844)
DESKTOP = (1280, 800)


def canteen_binary():
    """The debug `canteen` that `make test-browser` built (or $CANTEEN_BIN)."""
    if os.environ.get("CANTEEN_BIN"):
        return os.environ["CANTEEN_BIN"]
    path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, check=True,
                          capture_output=True, text=True).stdout.strip()
    return str(Path(path) / "canteen")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# MARK: - The test café


def midday_zone():
    """An IANA zone where it is now between 09:00 and 15:00, so that the café is open, its day
    part `evening` (20:00–22:00) is not, and its pickup windows last the whole test."""
    now = datetime.datetime.now(datetime.timezone.utc)
    for name in ["Pacific/Kiritimati", "Pacific/Auckland", "Australia/Sydney", "Asia/Tokyo", "Asia/Shanghai",
                 "Asia/Kolkata", "Asia/Dubai", "Europe/Moscow", "Europe/Berlin", "Europe/London", "Atlantic/Azores",
                 "America/Sao_Paulo", "America/New_York", "America/Chicago", "America/Denver",
                 "America/Los_Angeles", "Pacific/Honolulu"]:
        local = now.astimezone(zoneinfo.ZoneInfo(name))
        if 9 <= local.hour < 15:
            return name
    raise RuntimeError("no zone in the list has midday now")


def text(en, ar, ja=None):
    return {"en": en, "ar": ar, "ja": ja or en}


def test_cafe(capacity=20, board_ready_minutes=10, default_locale="en_US"):
    """A café open all day every day, with two stations, modifiers, allergens and a day part."""
    every_day = {day: [{"open": "00:00", "close": "24:00"}] for day in
                 ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]}
    return {
        "id": CAFE,
        "languages": ["en", "ar", "ja"],
        "names": text("Test Canteen", "كانتين التجربة", "テスト食堂"),
        "timeZone": midday_zone(),
        "currency": "USD",
        "defaultLocale": default_locale,
        "tax": {"rateBasisPoints": 1000, "included": False},
        "hours": every_day,
        "beaconRegion": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 4242},
        "pickup": {"slotMinutes": 15, "capacity": capacity, "capacityUnit": "orders", "leadMinutes": 0},
        "display": {"ticketWarningMinutes": 5, "ticketLateMinutes": 8, "boardReadyMinutes": board_ready_minutes},
        "dayParts": [{"id": "evening", "names": text("Evening", "المساء", "夜"), "start": "20:00", "end": "22:00"}],
        "categories": [
            {"id": "drinks", "names": text("Drinks", "مشروبات", "ドリンク")},
            {"id": "food", "names": text("Food", "طعام", "フード")},
        ],
        "items": [
            {"id": "latte", "category": "drinks", "names": text("Latte", "لاتيه", "ラテ"),
             "descriptions": text("Espresso with steamed milk.", "إسبريسو مع حليب مبخر.", "エスプレッソとスチームミルク。"),
             "price": 425, "station": "bar", "allergens": ["milk"],
             "modifierGroups": [
                 {"id": "size", "names": text("Size", "الحجم", "サイズ"), "min": 1, "max": 1, "options": [
                     {"id": "small", "names": text("Small", "صغير", "S"), "priceDelta": 0},
                     {"id": "large", "names": text("Large", "كبير", "L"), "priceDelta": 75}]},
                 {"id": "shots", "names": text("Extra shots", "جرعات إضافية", "ショット追加"), "min": 0, "max": 2,
                  "options": [{"id": "espresso", "names": text("Espresso", "إسبريسو", "エスプレッソ"), "priceDelta": 85}]},
             ]},
            {"id": "lemonade", "category": "drinks", "names": text("Lemonade", "ليموناضة", "レモネード"),
             "descriptions": text("Fresh lemons, cane sugar.", "ليمون طازج وسكر قصب.", "生レモンときび砂糖。"),
             "price": 350, "station": "bar", "allergens": []},
            {"id": "salad", "category": "food", "names": text("Garden salad", "سلطة الحديقة", "ガーデンサラダ"),
             "descriptions": text("Greens, seeds, lemon dressing.", "خضار وبذور وصلصة ليمون.", "葉物、種、レモンドレッシング。"),
             "price": 895, "station": "grill", "allergens": ["sesame"]},
            {"id": "soup", "category": "food", "names": text("Tomato soup", "شوربة طماطم", "トマトスープ"),
             "descriptions": text("With toasted bread.", "مع خبز محمص.", "トースト付き。"),
             "price": 650, "station": "grill", "allergens": ["gluten", "milk"]},
            {"id": "stew", "category": "food", "names": text("Evening stew", "يخنة المساء", "夜のシチュー"),
             "descriptions": text("Served from 20:00.", "تقدم من الساعة 20:00.", "20時から。"),
             "price": 1250, "station": "grill", "allergens": ["gluten"], "dayParts": ["evening"]},
        ],
    }


# MARK: - The server


class Server:
    """`canteen serve` on a loopback port with its own data folder; `kill()` and `start()` again
    keep the port and the data, as a crashed and restarted server would."""

    def __init__(self, cafe=None):
        self.binary = canteen_binary()
        self.folder = Path(tempfile.mkdtemp(prefix="canteen-browser-"))
        self.data = self.folder / "data"
        menus = self.folder / "menus"
        menus.mkdir()
        (menus / f"{CAFE}.json").write_text(json.dumps(cafe or test_cafe()), encoding="utf-8")
        self.menus = menus
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.log = open(self.folder / "serve.log", "ab")
        self.start()
        self.ops = self.token("ops")

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "serve", "--data-dir", str(self.data), "--host", "127.0.0.1", "--port", str(self.port),
             "--menus", str(self.menus), "--locales", str(REPO / "Locales"), "--log-level", "warning"],
            cwd=REPO, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"canteen serve exited: see {self.folder / 'serve.log'}")
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("canteen serve did not answer within 60 s")

    def kill(self):
        """SIGKILL: no graceful shutdown, as when the machine loses power."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def terminate(self):
        """SIGTERM: a graceful shutdown, as systemd stops the service; the data stays."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def metric(self, name):
        """A metric's value from GET /metrics (read with the ops token: metrics are not public)."""
        request = urllib.request.Request(f"{self.base}/metrics", headers={"Authorization": f"Bearer {self.ops}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            for line in answer.read().decode().splitlines():
                if line.startswith(name + " "):
                    return float(line.split(" ")[1])
        return 0.0

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def cli(self, *arguments):
        return subprocess.run([self.binary, *arguments, "--data-dir", str(self.data)], cwd=REPO, check=True,
                              capture_output=True, text=True).stdout.strip()

    def token(self, role, cafe=CAFE, name=None):
        arguments = ["tokens", "create", "--role", role]
        if role != "ops" and cafe:
            arguments += ["--cafe", cafe]
        if name:
            arguments += ["--name", name]
        return self.cli(*arguments)

    def token_id(self, name):
        for line in self.cli("tokens", "list").splitlines():
            fields = line.split("\t")
            if fields[3] == name:
                return fields[0]
        raise KeyError(name)

    def api(self, method, path, token=None, body=None, headers=None, expect=None):
        """An API call; returns (status, json)."""
        request = urllib.request.Request(self.base + path, method=method)
        request.add_header("Authorization", f"Bearer {token or self.ops}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, data=data, timeout=30) as answer:
                status, payload = answer.status, answer.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        result = json.loads(payload) if payload else None
        if expect is not None and status != expect:
            raise AssertionError(f"{method} {path}: {status} {result}")
        return status, result

    def place_order(self, kiosk_token, lines, name="Noor Al-Sabah", key=None):
        _, order = self.api("POST", "/v1/orders", token=kiosk_token, expect=201,
                            headers={"Idempotency-Key": key or str(uuid.uuid4())},
                            body={"cafeId": CAFE, "lines": lines, "pickup": "asap", "customer": {"name": name}})
        return order

    def order(self, order_id):
        return self.api("GET", f"/v1/orders/{order_id}", expect=200)[1]

    def ticket_statuses(self, order_id):
        return {ticket["id"]: ticket["status"] for ticket in self.order(order_id)["tickets"]}

    def move(self, ticket_id, status):
        return self.api("POST", f"/v1/tickets/{ticket_id}/status", body={"status": status}, expect=200)[1]

    def open_tickets(self):
        return self.api("GET", f"/v1/cafes/{CAFE}/tickets", expect=200)[1]["tickets"]


# MARK: - A proxy that fails on purpose


class FaultProxy:
    """Forwards HTTP from the browser to the server, one request per connection. `down = True`
    refuses every connection and cuts the event streams in flight (the network is gone);
    `drop_next_order_answer = True` lets the next `POST /v1/orders` reach the server and then
    closes the browser's connection without its answer. Every order request's Idempotency-Key is
    recorded. An event stream's answer is passed on as it arrives."""

    def __init__(self, server):
        self.server = server
        self._down = False
        self.drop_next_order_answer = False
        self.order_keys = []
        self.streams = set()
        self.lock = threading.Lock()
        proxy = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                if proxy.down:
                    return
                request_line = self.rfile.readline()
                if not request_line:
                    return
                method, target, _ = request_line.decode("latin-1").split(" ", 2)
                headers = {}
                while True:
                    line = self.rfile.readline().decode("latin-1")
                    if line in ("\r\n", "\n", ""):
                        break
                    name, value = line.split(":", 1)
                    headers[name.strip()] = value.strip()
                length = int(headers.get("Content-Length", "0"))
                body = self.rfile.read(length) if length else None
                drop = False
                if method == "POST" and target == "/v1/orders":
                    proxy.order_keys.append(headers.get("Idempotency-Key"))
                    drop, proxy.drop_next_order_answer = proxy.drop_next_order_answer, False
                forwarded = {name: value for name, value in headers.items()
                             if name.lower() not in ("host", "connection", "content-length", "keep-alive")}
                connection = http.client.HTTPConnection("127.0.0.1", proxy.server.port, timeout=60)
                try:
                    connection.request(method, target, body=body, headers=forwarded)
                    answer = connection.getresponse()
                    if "text/event-stream" in (answer.getheader("Content-Type") or ""):
                        self.stream(answer, connection)
                        return
                    payload = answer.read()
                except OSError:
                    return
                finally:
                    connection.close()
                if drop or proxy.down:
                    return
                head = [f"HTTP/1.1 {answer.status} {answer.reason}"]
                for name, value in answer.getheaders():
                    if name.lower() not in ("connection", "content-length", "transfer-encoding"):
                        head.append(f"{name}: {value}")
                head += [f"Content-Length: {len(payload)}", "Connection: close", "", ""]
                try:
                    self.wfile.write("\r\n".join(head).encode("latin-1") + payload)
                except OSError:
                    pass

            def stream(self, answer, connection):
                """Passes an event stream on, part by part, until either side ends or the proxy goes down."""
                head = [f"HTTP/1.1 {answer.status} {answer.reason}"]
                for name, value in answer.getheaders():
                    if name.lower() not in ("connection", "content-length", "transfer-encoding"):
                        head.append(f"{name}: {value}")
                head += ["Connection: close", "", ""]
                with proxy.lock:
                    if proxy.down:
                        return
                    proxy.streams.add((self.connection, connection.sock))
                try:
                    self.wfile.write("\r\n".join(head).encode("latin-1"))
                    self.wfile.flush()
                    while True:
                        part = answer.read1(65536)
                        if not part:
                            return
                        self.wfile.write(part)
                        self.wfile.flush()
                except (OSError, ValueError, http.client.HTTPException):
                    return
                finally:
                    with proxy.lock:
                        proxy.streams.discard((self.connection, connection.sock))

        class Threaded(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.listener = Threaded(("127.0.0.1", 0), Handler)
        self.port = self.listener.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.listener.serve_forever, daemon=True)
        self.thread.start()

    @property
    def down(self):
        return self._down

    @down.setter
    def down(self, value):
        with self.lock:
            self._down = value
            cut, self.streams = (self.streams, set()) if value else (set(), self.streams)
        for pair in cut:
            for sock in pair:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except (OSError, AttributeError):
                    pass

    def close(self):
        self.down = True
        self.listener.shutdown()
        self.listener.server_close()


# MARK: - The browser

STREAM_RECORDER = """
window.__streams = [];
window.__events = [];
const NativeEventSource = window.EventSource;
window.EventSource = class extends NativeEventSource {
  constructor(url, init) {
    super(url, init);
    window.__streams.push(String(url));
    for (const name of ['snapshot', 'changes']) {
      super.addEventListener(name, (event) => {
        const page = JSON.parse(event.data);
        window.__events.push({ name, id: event.lastEventId,
          tickets: page.tickets.map((ticket) => [ticket.id, ticket.status]) });
      });
    }
  }
};
"""


class Browser:
    """Debian's Chromium, headless, with its own temporary profile, at an exact viewport size
    (DevTools' device metrics: `--window-size` alone leaves a smaller viewport)."""

    def __init__(self, language="en-US", size=DESKTOP):
        self.profile = Path(tempfile.mkdtemp(prefix="canteen-chromium-"))
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                         f"--user-data-dir={self.profile / 'profile'}", f"--lang={language}",
                         f"--window-size={size[0]},{size[1]}"]:
            options.add_argument(argument)
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
        service = Service(CHROMEDRIVER, env={**os.environ, "HOME": str(self.profile)})
        self.driver = webdriver.Chrome(service=service, options=options)
        self.resize(size)

    def resize(self, size, mobile=None):
        width, height = size
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1,
            "mobile": (width < 600) if mobile is None else mobile})

    def open(self, url):
        self.driver.get(url)

    def record_streams(self):
        """From the next page load on, every EventSource the page opens is recorded: its address
        in `window.__streams`, each `snapshot` and `changes` event (name, id, tickets) in
        `window.__events`, before the page's own listeners see it."""
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STREAM_RECORDER})

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def wait(self, condition, timeout=10, message=""):
        """Waits until `condition(browser)` is truthy and returns it."""
        def check(_):
            try:
                return condition(self)
            except StaleElementReferenceException:
                return False
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(check, message)

    def wait_for(self, css, timeout=10, visible=True):
        def present(browser):
            elements = browser.find_all(css)
            shown = [element for element in elements if not visible or element.is_displayed()]
            return shown[0] if shown else False
        return self.wait(present, timeout, f"{css} did not appear")

    def click(self, css):
        element = self.wait_for(css)
        element.click()
        return element

    def screenshot(self, name):
        SCREENSHOTS.mkdir(exist_ok=True)
        self.driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))

    def quit(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


def shots(browser, name, element=None):
    """Screenshots of the current state at 1280×800 and at a phone's width (with `element`, if
    given, scrolled to the middle of each)."""
    scroll = "arguments[0].scrollIntoView({block: 'center'})"
    browser.resize(DESKTOP)
    if element is not None:
        browser.js(scroll, element)
    browser.screenshot(f"{name}-1280x800")
    browser.resize(PHONE)
    time.sleep(0.15)
    if element is not None:
        browser.js(scroll, element)
    browser.screenshot(f"{name}-phone")
    browser.resize(DESKTOP)
    time.sleep(0.1)


__all__ = ["Browser", "FaultProxy", "Server", "CAFE", "DESKTOP", "PHONE", "REPO", "SCREENSHOTS", "By",
           "TimeoutException", "shots", "test_cafe"]
