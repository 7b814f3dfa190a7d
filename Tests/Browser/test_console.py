"""The operator's console (`/ops`, issue 33) in a real browser against a real `canteen serve`: a
price changed in the console reaches the kiosk within a second; an invalid price shows the API's
message at its field and saves nothing; a kitchen tablet is provisioned through a QR code that
Debian's `zbarimg` decodes from a screenshot back to the exact URL, which opens the kitchen
display, and revoking the token sends that display back to sign in; the reports' figures equal
the orders placed; Arabic reads right to left. Screenshots of every section land in
`.build-screenshots/` at 1280×800 and at a phone's width."""

import datetime
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import zoneinfo
from pathlib import Path

from canteen_browser import CAFE, DESKTOP, PHONE, SCREENSHOTS, shots
from test_pages import PageTestCase, open_page

SECTIONS = ["overview", "menus", "cafe", "devices", "webhooks", "cards", "reports", "audit"]


def open_console(browser, server, section="overview"):
    browser.open(f"{server.base}/ops?section={section}#token={server.ops}")
    browser.wait(lambda b: b.find("#console").is_displayed(), 20, "the console did not open")
    return browser


def item_editor(browser, item):
    return browser.wait_for(f'.item-editor[data-item-id="{item}"]')


class ConsoleTestCase(PageTestCase):
    def menu_version(self, server):
        return server.api("GET", f"/v1/cafes/{CAFE}/menu/document", expect=200)[1]["version"]


class MenuEditorTests(ConsoleTestCase):
    def test_a_price_changed_in_the_console_is_on_the_kiosk_within_a_second(self):
        server = self.server()
        console, kiosk = self.browser(), self.browser()
        open_page(kiosk, server.base, "kiosk", server.token("kiosk"))
        kiosk.js("""new MutationObserver(() => {
            const price = document.querySelector('[data-item-id="latte"] .item-price');
            if (price && price.textContent.includes('4.80') && !window.__changedAt) window.__changedAt = Date.now();
        }).observe(document.querySelector('.menu'), {subtree: true, childList: true, characterData: true});""")
        open_console(console, server, "menus")
        editor = item_editor(console, "latte")
        price = editor.find_element("css selector", "input[name=price]")
        self.assertEqual(price.get_attribute("value"), "4.25")
        before = self.menu_version(server)
        price.clear()
        price.send_keys("4.80")
        console.js("window.__saved = null; document.querySelector('.menu-form').addEventListener('submit', () => {"
                   " const watch = new MutationObserver(() => { if (document.querySelector('.notice')) {"
                   " window.__saved = Date.now(); watch.disconnect(); } });"
                   " watch.observe(document.getElementById('notices'), {childList: true}); });")
        console.click(".save-menu")
        console.wait(lambda b: b.js("return window.__saved"), 10, "the save was not confirmed")
        saved = console.js("return window.__saved")
        kiosk.wait(lambda b: b.js("return window.__changedAt"), 5, "the kiosk never showed the new price")
        self.assertLess(kiosk.js("return window.__changedAt") - saved, 1000)
        self.assertIn("4.80", kiosk.find('[data-item-id="latte"] .item-price').text)
        self.assertGreater(self.menu_version(server), before)
        _, menu = server.api("GET", f"/v1/cafes/{CAFE}/menu/document", expect=200)
        latte = next(item for item in menu["document"]["items"] if item["id"] == "latte")
        self.assertEqual(latte["price"], 480)
        # The audit log records who changed what, before and after.
        _, log = server.api("GET", "/v1/audit", expect=200)
        self.assertEqual(log["entries"][0]["action"], "menu.replace")
        self.assertIn({"field": "items[latte].price", "before": 425, "after": 480}, log["entries"][0]["changes"])
        shots(console, "ops-menus")

    def test_an_invalid_price_is_shown_at_its_field_and_nothing_is_saved(self):
        server = self.server()
        console = open_console(self.browser(), server, "menus")
        editor = item_editor(console, "salad")
        before = self.menu_version(server)
        price = editor.find_element("css selector", "input[name=price]")
        price.clear()
        price.send_keys("-2.00")
        console.click(".save-menu")
        console.wait(lambda b: price.get_attribute("aria-invalid") == "true", 10, "the field was not marked")
        message = console.find(".field-error")
        index = editor.get_attribute("data-index")
        self.assertEqual(message.get_attribute("data-for"), f"items[{index}].price")
        # The message is the API's own for that field.
        _, document = server.api("GET", f"/v1/cafes/{CAFE}/menu/document", expect=200)
        body = document["document"]
        body["items"][int(index)]["price"] = -200
        status, answer = server.api("PUT", f"/v1/cafes/{CAFE}/menu", body=body)
        self.assertEqual(status, 422)
        self.assertEqual(answer["error"]["field"], f"items[{index}].price")
        self.assertEqual(message.text, answer["error"]["message"])
        self.assertEqual(price.get_attribute("aria-describedby"), message.get_attribute("id"))
        self.assertEqual(self.menu_version(server), before)
        shots(console, "ops-menus-invalid-price")
        # A price finer than the currency's minor unit is refused on the page, and not sent.
        price.clear()
        price.send_keys("8.955")
        console.click(".save-menu")
        console.wait(lambda b: "2 decimal places" in b.find(".field-error").text, 10)
        self.assertEqual(self.menu_version(server), before)
        _, log = server.api("GET", "/v1/audit", expect=200)
        self.assertEqual(log["entries"], [])

    def test_prices_convert_exactly_for_every_currency_exponent(self):
        server = self.server()
        console = open_console(self.browser(), server, "menus")
        convert = "return CanteenMoney.toMinor(arguments[0], arguments[1])"
        cases = [("450", 0, 450), ("4.50", 2, 450), ("0.29", 2, 29), ("1.005", 3, 1005), ("1,250", 3, 1250),
                 ("19.99", 2, 1999), ("99999999.99", 2, 9999999999)]
        for text, exponent, minor in cases:
            self.assertEqual(console.js(convert, text, exponent), {"value": minor}, f"{text} with {exponent} digits")
        for text, exponent in [("4.5", 0), ("0.001", 2), ("1.0001", 3)]:
            self.assertEqual(console.js(convert, text, exponent), {"error": "too_many_digits"}, text)
        self.assertEqual(console.js(convert, "4.5.0", 2), {"error": "not_a_number"})
        back = "return CanteenMoney.toMajor(arguments[0], arguments[1])"
        self.assertEqual([console.js(back, 450, 0), console.js(back, 29, 2), console.js(back, 1005, 3)],
                         ["450", "0.29", "1.005"])


class DeviceTests(ConsoleTestCase):
    def test_a_kitchen_tablet_is_provisioned_by_qr_code_and_stops_when_revoked(self):
        server = self.server()
        console = open_console(self.browser(), server, "devices")
        console.find(".device-form select[name=screen] option[value=kds]").click()
        console.find(".device-form input[name=name]").send_keys("pass tablet")
        console.click(".device-form button[type=submit]")
        code = console.wait_for("#secret-dialog .secret-qr[data-qr-url] svg")
        url = console.find("#secret-dialog .secret-qr").get_attribute("data-qr-url")
        self.assertTrue(url.startswith(f"{server.base}/kds?cafe={CAFE}#token=cnt_"), url)
        self.assertEqual(console.find("#secret-dialog .secret-url").text, url)
        folder = Path(tempfile.mkdtemp(prefix="canteen-qr-"))
        self.cleanups.append(lambda: shutil.rmtree(folder, ignore_errors=True))
        image = folder / "qr.png"
        code.screenshot(str(image))
        decoded = subprocess.run(["zbarimg", "--quiet", "--raw", str(image)], capture_output=True, text=True,
                                 timeout=30)
        self.assertEqual(decoded.returncode, 0, decoded.stderr)
        self.assertEqual(decoded.stdout.strip(), url)
        # The whole screen as a person sees it decodes too.
        SCREENSHOTS.mkdir(exist_ok=True)
        console.screenshot("ops-devices-qr-1280x800")
        whole = subprocess.run(["zbarimg", "--quiet", "--raw", str(SCREENSHOTS / "ops-devices-qr-1280x800.png")],
                               capture_output=True, text=True, timeout=30)
        self.assertEqual(whole.stdout.strip(), url)
        console.click("#secret-dialog button[value=close]")
        self.assertEqual(console.find_all("#secret-dialog .secret-qr[data-qr-url]"), [])

        tablet = self.browser()
        tablet.open(decoded.stdout.strip())
        tablet.wait(lambda b: b.js("return document.querySelector('#kds').dataset.loaded === 'true'"), 20,
                    "the decoded URL did not open the kitchen display")
        self.assertEqual(tablet.js("return location.hash"), "")

        row = console.wait_for('.token-table tr[data-active="true"] td')
        token_row = next(r for r in console.find_all(".token-table tbody tr") if "pass tablet" in r.text)
        self.assertIn(CAFE, token_row.text)
        self.assertNotIn("cnt_", token_row.text)
        token_row.find_element("css selector", "button.danger").click()
        console.click("#confirm-dialog .confirm-button")
        console.wait(lambda b: any("pass tablet" in r.text and r.get_attribute("data-active") == "false"
                                   for r in b.find_all(".token-table tbody tr")), 10)
        message = tablet.wait_for("#setup .setup-message.is-error", timeout=15)
        self.assertEqual(message.get_attribute("data-reason"), "refused")
        shots(tablet, "ops-revoked-kds")
        self.assertIsNotNone(row)


class ReportTests(ConsoleTestCase):
    def test_the_reports_figures_equal_the_orders_placed(self):
        server = self.server()
        kiosk = server.token("kiosk")
        orders = [
            server.place_order(kiosk, [{"itemId": "latte", "quantity": 2, "options": ["large"]}]),
            server.place_order(kiosk, [{"itemId": "salad", "quantity": 1}, {"itemId": "soup", "quantity": 2}]),
            server.place_order(kiosk, [{"itemId": "lemonade", "quantity": 3}]),
        ]
        cancelled = server.place_order(kiosk, [{"itemId": "soup", "quantity": 1}])
        server.api("POST", f"/v1/orders/{cancelled['id']}/cancel", expect=200)
        bar = orders[0]["tickets"][0]["id"]
        server.move(bar, "preparing")
        server.move(bar, "ready")
        console = open_console(self.browser(), server, "reports")
        console.click(".report-form button[type=submit]")
        console.wait_for(".report-days tbody tr")
        revenue = sum(order["total"]["amount"] for order in orders)
        day = console.find(".report-days tbody tr")
        self.assertEqual(day.find_element("css selector", "[data-figure=orders]").text, "3")
        self.assertEqual(day.find_element("css selector", "[data-figure=items]").text, "8")
        self.assertEqual(day.find_element("css selector", "[data-figure=revenue]").get_attribute("data-minor"),
                         str(revenue))
        self.assertEqual(day.find_element("css selector", "[data-figure=cancelled]").text, "1")
        items = {row.get_attribute("data-item"): row for row in console.find_all(".report-items tbody tr")}
        self.assertEqual(set(items), {"latte", "salad", "soup", "lemonade"})
        self.assertEqual(items["soup"].find_element("css selector", "[data-figure=items]").text, "2")
        self.assertEqual(items["soup"].find_element("css selector", "[data-figure=cancelled]").text, "1")
        hours = [int(bar.get_attribute("data-value")) for bar in console.find_all(".chart-hours .bar")]
        self.assertEqual(len(hours), 24)
        self.assertEqual(sum(hours), revenue)
        stations = console.find_all(".chart-kitchen .bar-group")
        self.assertEqual([group.get_attribute("data-label") for group in stations], ["bar"])
        windows = console.find_all(".report-windows tbody tr")
        self.assertEqual(sum(int(row.find_element("css selector", "[data-figure=orders]").text) for row in windows), 3)
        shots(console, "ops-reports")


class ConsoleTourTests(ConsoleTestCase):
    def test_the_overview_updates_itself_and_the_banner_says_when_the_server_is_gone(self):
        server = self.server()
        console = open_console(self.browser(), server)
        card = console.wait_for(f'.cafe-card[data-cafe-id="{CAFE}"]')
        self.assertEqual(card.get_attribute("data-open-orders"), "0")
        server.place_order(server.token("kiosk"), [{"itemId": "salad", "quantity": 1}])
        console.wait(lambda b: b.find(f'.cafe-card[data-cafe-id="{CAFE}"]').get_attribute("data-open-orders") == "1",
                     10, "the overview did not update by itself")
        self.assertTrue(console.find(f'.cafe-card[data-cafe-id="{CAFE}"] tr[data-station="grill"]'))
        shots(console, "ops-overview")
        server.kill()
        banner = console.wait_for("#connection-banner[role=alert]", timeout=15)
        self.assertTrue(banner.is_displayed())
        shots(console, "ops-offline")

    def test_every_section_in_english_and_arabic_right_to_left(self):
        server = self.server()
        kiosk = server.token("kiosk")
        server.place_order(kiosk, [{"itemId": "latte", "quantity": 1, "options": ["small"]}])
        server.api("POST", "/v1/coupons", body={"label": "Welcome", "amountOff": {"amount": 100, "currency": "USD"},
                                               "maxUses": 5}, expect=201)
        server.api("POST", "/v1/cards", body={"userId": "noor", "displayName": "Noor", "technology": "felica",
                                             "identifier": "0123456789ABCDEF"}, expect=201)
        server.api("PATCH", f"/v1/cafes/{CAFE}/menu/items/soup", body={"soldOut": True}, expect=200)
        for language in ("en-US", "ar"):
            browser = self.browser(language=language)
            console = open_console(browser, server)
            html = console.find("html")
            expected = ("ar", "rtl") if language == "ar" else ("en", "ltr")
            self.assertEqual((html.get_attribute("lang").split("-")[0], html.get_attribute("dir")), expected)
            for section in SECTIONS:
                console.click(f'.sections button[data-section="{section}"]')
                console.wait(lambda b: b.find(f'[data-panel="{section}"]').is_displayed(), 10)
                if section == "cards":
                    console.find(".card-search input[name=userId]").send_keys("noor")
                    console.click(".card-search button[type=submit]")
                    console.wait_for(".card-list li")
                if section == "reports":
                    console.click(".report-form button[type=submit]")
                    console.wait_for(".chart-hours svg")
                if section == "audit":
                    console.wait_for(".audit-entry")
                time.sleep(0.3)
                suffix = "-ar" if language == "ar" else ""
                shots(console, f"ops-{section}{suffix}")
            # At a phone's width the section buttons scroll; none is squeezed under its own label.
            browser.resize(PHONE)
            time.sleep(0.15)
            squeezed = console.js("return [...document.querySelectorAll('.sections button')]"
                                  ".filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.dataset.section)")
            browser.resize(DESKTOP)
            self.assertEqual(squeezed, [], f"section buttons narrower than their labels ({language})")
            if language == "ar":
                start = console.js("return getComputedStyle(document.querySelector('.sections')).direction")
                self.assertEqual(start, "rtl")
                title = console.find("#console .title strong").text
                self.assertEqual(title, "وحدة تحكم Canteen")


COUNT_REQUESTS = """window.__requests = [];
    const original = window.fetch;
    window.fetch = (...call) => { window.__requests.push(String(call[0])); return original(...call); };"""


def requests_to(browser, fragment):
    return [url for url in browser.js("return window.__requests") if fragment in url]


class ConsoleSessionTests(ConsoleTestCase):
    def revocable_console(self, server, section):
        token = server.token("ops", name="ops desk")
        console = self.browser()
        console.open(f"{server.base}/ops?section={section}#token={token}")
        console.wait(lambda b: b.find("#console").is_displayed(), 20, "the console did not open")
        return console

    def test_a_revoked_token_sends_the_console_back_to_sign_in_on_any_section(self):
        server = self.server()
        console = self.revocable_console(server, "devices")
        console.wait_for(".token-table tbody tr")
        server.cli("tokens", "revoke", server.token_id("ops desk"))
        # The heartbeat asks what the token is, as on the other pages: no section needs to poll.
        message = console.wait_for("#setup .setup-message.is-error", timeout=15)
        self.assertEqual(message.get_attribute("data-reason"), "refused")
        self.assertFalse(console.find("#console").is_displayed())
        self.assertIsNone(console.js("return localStorage.getItem('canteen.ops.token')"))

    def test_the_overview_stops_asking_once_the_token_is_refused(self):
        server = self.server()
        console = self.revocable_console(server, "overview")
        console.wait_for(f'.cafe-card[data-cafe-id="{CAFE}"]')
        console.js(COUNT_REQUESTS)
        server.cli("tokens", "revoke", server.token_id("ops desk"))
        console.wait_for("#setup .setup-message.is-error", timeout=15)
        console.js("window.__requests = []")
        time.sleep(5)
        self.assertEqual(requests_to(console, "/v1/overview"), [])

    def test_opening_the_overview_again_and_again_keeps_one_poll(self):
        server = self.server()
        console = open_console(self.browser(), server)
        console.wait_for(f'.cafe-card[data-cafe-id="{CAFE}"]')
        console.js(COUNT_REQUESTS)
        console.js("for (let i = 0; i < 5; i += 1) document.querySelector('[data-section=overview]').click()")
        # Each opening asks at once; from then on the polls of one loop only.
        time.sleep(1)
        console.js("window.__requests = []")
        time.sleep(6)
        # One poll every 2 s after each answer: at most 4 in 6 s, however many times it was opened.
        self.assertLessEqual(len(requests_to(console, "/v1/overview")), 4)

    def test_a_section_opened_after_signing_in_again_asks_once(self):
        server = self.server()
        console = open_console(self.browser(), server)
        console.click("#console .topbar .actions button")
        console.wait(lambda b: b.find("#setup").is_displayed(), 10)
        console.find("#setup input[name=token]").send_keys(server.ops)
        console.click("#setup button[type=submit]")
        console.wait(lambda b: b.find("#console").is_displayed(), 20)
        time.sleep(1)
        console.wait(lambda b: b.find("#console").is_displayed(), 20)
        console.js(COUNT_REQUESTS)
        console.click('.sections button[data-section="menus"]')
        item_editor(console, "latte")
        time.sleep(1)
        self.assertEqual(len(requests_to(console, "/menu/document")), 1)

    def test_the_settings_button_stays_on_the_header_row_at_a_phones_width(self):
        server = self.server()
        browser = self.browser(size=PHONE)
        console = open_console(browser, server)
        button = console.find("#console .topbar .settings-button")
        title = console.find("#console .topbar .title")
        self.assertLess(button.rect["y"], title.rect["y"] + title.rect["height"])
        self.assertLessEqual(title.rect["y"], button.rect["y"] + button.rect["height"])
        shots(console, "ops-header")


class AuditTests(ConsoleTestCase):
    def test_with_a_cafe_chosen_the_audit_logs_days_are_the_cafes(self):
        server = self.server()
        zone = "Pacific/Kiritimati"
        _, cafe = server.api("GET", f"/v1/cafes/{CAFE}", expect=200)
        cafe["timeZone"] = zone
        server.api("PUT", f"/v1/cafes/{CAFE}", body=cafe, expect=200)
        console = open_console(self.browser(), server, "audit")
        console.wait_for(".audit-entry")
        today = datetime.datetime.now(zoneinfo.ZoneInfo(zone)).date()
        console.js(COUNT_REQUESTS)
        console.js("const form = document.querySelector('.audit-form');"
                   "form.cafe.value = arguments[0]; form.from.value = arguments[1]; form.to.value = arguments[1];",
                   CAFE, today.isoformat())
        console.click(".audit-form button[type=submit]")
        console.wait(lambda b: requests_to(b, "/v1/audit?"), 10, "the audit log was not asked")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(requests_to(console, "/v1/audit?")[0]).query)
        start = datetime.datetime.combine(today, datetime.time(), zoneinfo.ZoneInfo(zone))
        utc = [(start + datetime.timedelta(days=days)).astimezone(datetime.timezone.utc) for days in (0, 1)]
        self.assertEqual([query["from"][0], query["to"][0]],
                         [moment.strftime("%Y-%m-%dT%H:%M:%S.000Z") for moment in utc])
        self.assertEqual(query["cafeId"], [CAFE])
        entry = console.wait_for(".audit-entry")
        self.assertIn(CAFE, entry.text)


class ConsoleSignInTests(ConsoleTestCase):
    def test_only_an_ops_token_opens_the_console(self):
        server = self.server()
        console = self.browser()
        console.open(f"{server.base}/ops#token={server.token('kitchen')}")
        message = console.wait_for("#setup .setup-message.is-error")
        self.assertEqual(message.get_attribute("data-reason"), "wrong_role")
        console.find("#setup input[name=token]").send_keys(server.ops)
        console.click("#setup button[type=submit]")
        console.wait(lambda b: b.find("#console").is_displayed(), 10)
        shots(console, "ops-signed-in")


if __name__ == "__main__":
    unittest.main()
