"""The employee page (`/app`, issue 29) in a real browser (Debian's Chromium, headless) against a
real `canteen serve` that signs people in with the test identity provider: signing in through
the provider's login form, ordering, the status turning ready (with a notification) when the
kitchen bumps the ticket through the API, "my orders" and "order again", Arabic right to left, a
user token in the fragment, the last menu offline, and "nearest" by network. Screenshots of each
state at a phone's width and at 1280×800 land in `.build-screenshots/app-*.png` (git-ignored)."""

import time
import unittest

from app_support import AppServer, app_browser, sign_in, start_provider, wait_loaded
from canteen_browser import CAFE, PHONE, shots, test_cafe
from test_pages import PageTestCase


class AppTestCase(PageTestCase):
    def provider(self):
        provider, server = start_provider()
        self.cleanups.append(server.shutdown)
        return provider

    def app_server(self, provider=None, extra=(), **cafe):
        server = AppServer(test_cafe(**cafe), provider=provider, extra=extra)
        self.cleanups.append(server.stop)
        return server

    def app_browser(self, base, **options):
        browser = app_browser(base, **options)
        self.cleanups.append(browser.quit)
        return browser

    def user_token(self, server, user="u-token"):
        return server.cli("tokens", "create", "--role", "user", "--user", user)

    def bump(self, server, order_id, status):
        for ticket in server.order(order_id)["tickets"]:
            server.move(ticket["id"], status)

    def add_latte(self, browser, size="large"):
        browser.click('[data-item-id="latte"]')
        browser.wait_for("#item-dialog[open]")
        browser.click(f'#item-dialog [data-option-id="{size}"] input')
        browser.click("#item-dialog .add-button")
        browser.wait(lambda b: not b.find("#item-dialog").get_attribute("open"))


class SignInAndOrderTests(AppTestCase):
    def test_sign_in_order_and_see_it_ready_with_a_notification(self):
        provider = self.provider()
        server = self.app_server(provider)
        browser = self.app_browser(server.base)

        # Signed out, the page offers the company sign-in; the provider's form signs alice in.
        sign_in(browser, server.base, screenshot=lambda name: shots(browser, name))
        self.assertEqual(browser.js("return document.documentElement.dataset.signedIn"), "true")
        self.assertEqual(browser.find(".cafe-name").text, "Test Canteen")
        self.assertEqual(browser.find(".cafe-reason").get_attribute("data-reason"), "fallback")
        shots(browser, "app-menu")
        # Sold-out and out-of-day-part items are shown as such, with allergens and modifiers.
        stew = browser.find('[data-item-id="stew"]')
        self.assertEqual(stew.get_attribute("data-available"), "false")
        self.assertTrue(stew.get_attribute("disabled"))
        self.assertIn("Milk", browser.find('[data-item-id="latte"]').text)

        # The basket and a pickup window, then the order (on a phone: the basket is a sheet).
        browser.resize(PHONE)
        self.add_latte(browser)
        browser.click('[data-item-id="lemonade"]')
        browser.wait_for("#item-dialog[open]")
        browser.click("#item-dialog .add-button")
        browser.click(".basket-toggle")
        browser.wait(lambda b: b.js("return document.querySelector('#basket').getBoundingClientRect().bottom "
                                    "<= innerHeight + 1"), 10, "the basket sheet did not open")
        browser.wait(lambda b: b.js("return document.querySelectorAll('.window input:not(:disabled)').length") > 1, 15)
        browser.find_all(".window input:not(:disabled)")[1].click()
        shots(browser, "app-basket")
        browser.click(".place-button")
        current = browser.wait_for('.current-order[data-order-id]', timeout=20)
        order_id = current.get_attribute("data-order-id")
        order = server.order(order_id)
        self.assertEqual(order["customer"], {"name": "Alice Example", "userId": "u-alice"})
        self.assertEqual(len(order["lines"]), 2)
        self.assertEqual(current.get_attribute("data-order-status"), "placed")
        shots(browser, "app-order-placed")

        # The kitchen moves it through the API; the page follows the event stream.
        self.bump(server, order_id, "preparing")
        browser.wait(lambda b: b.find(".current-order").get_attribute("data-order-status") == "preparing", 10)
        shots(browser, "app-order-preparing")
        self.bump(server, order_id, "ready")
        browser.wait(lambda b: b.find(".current-order").get_attribute("data-order-status") == "ready", 10)
        notifications = browser.wait(lambda b: b.js("return window.__notifications.length ? window.__notifications : null"), 10)
        self.assertEqual(notifications[0]["title"], "Your order is ready")
        self.assertIn(str(order["number"]), notifications[0]["body"])
        self.assertGreaterEqual(int(browser.js("return document.body.dataset.alerts || '0'")), 1, "no sound was played")
        self.assertIn("is ready", browser.find("#notices").text)
        shots(browser, "app-order-ready")

        # My orders lists it with its status; "order again" fills a new basket.
        browser.click('.tab[data-tab="orders"]')
        listed = browser.wait_for(f'.past-order[data-order-id="{order_id}"]', timeout=10)
        self.assertEqual(listed.get_attribute("data-order-status"), "ready")
        shots(browser, "app-my-orders")
        server.api("PATCH", f"/v1/cafes/{CAFE}/menu/items/lemonade", body={"soldOut": True}, expect=200)
        browser.wait(lambda b: b.js("""return fetch('/v1/cafes/testcafe/menu', {credentials: 'same-origin'})
            .then((r) => r.ok)"""), 10)
        time.sleep(6)  # the page revalidates its menu every 5 s
        browser.click(f'.past-order[data-order-id="{order_id}"] .order-again')
        hint = browser.wait_for(".basket-hint", timeout=10)
        self.assertIn("Lemonade", hint.text, "an item no longer available is named, not silently dropped")
        lines = [element.get_attribute("data-line-item-id") for element in browser.find_all(".basket-line")]
        self.assertEqual(lines, ["latte"])
        shots(browser, "app-order-again")

    def test_signing_out_ends_the_session(self):
        provider = self.provider()
        server = self.app_server(provider)
        browser = self.app_browser(server.base)
        sign_in(browser, server.base, user="olga")
        browser.click(".account-button")
        browser.wait_for("#account-dialog[open]")
        shots(browser, "app-account")
        browser.click("#account-dialog .signout-button")
        browser.wait_for("#signin-link", timeout=20)
        status = browser.js("return fetch('/v1/me', {credentials: 'same-origin'}).then((r) => r.status)")
        self.assertEqual(status, 401)


class LanguageAndTokenTests(AppTestCase):
    def test_the_arabic_page_reads_right_to_left(self):
        server = self.app_server()
        browser = self.app_browser(server.base, language="ar")
        browser.open(f"{server.base}/app#token={self.user_token(server)}")
        wait_loaded(browser)
        self.assertEqual(browser.js("return document.documentElement.lang"), "ar")
        self.assertEqual(browser.js("return document.documentElement.dir"), "rtl")
        self.assertIn("لاتيه", browser.find('[data-item-id="latte"]').text)
        latte = browser.find('[data-item-id="latte"] .item-name').rect
        price = browser.find('[data-item-id="latte"] .item-price').rect
        self.assertGreater(latte["x"], price["x"], "the name is to the right of the price")
        shots(browser, "app-arabic")

    def test_a_user_token_in_the_fragment_works_without_a_provider(self):
        server = self.app_server()
        browser = self.app_browser(server.base)
        browser.open(f"{server.base}/app")
        browser.wait_for("#signin-link", timeout=20)
        browser.open(f"{server.base}/app#token={self.user_token(server, 'u-kim')}")
        wait_loaded(browser)
        self.assertNotIn("token", browser.driver.current_url)
        me = browser.js("""return fetch('/v1/me', {headers: {Authorization: 'Bearer ' +
            localStorage.getItem('canteen.app.token')}}).then((r) => r.json())""")
        self.assertEqual(me["userId"], "u-kim")


class NearestAndOfflineTests(AppTestCase):
    def test_a_browser_on_the_cafes_network_gets_it_as_nearest(self):
        cafe = test_cafe()
        cafe["networks"] = ["127.0.0.0/8"]
        server = AppServer(cafe)
        self.cleanups.append(server.stop)
        browser = self.app_browser(server.base)
        browser.open(f"{server.base}/app#token={self.user_token(server)}")
        wait_loaded(browser)
        reason = browser.find(".cafe-reason")
        self.assertEqual(reason.get_attribute("data-reason"), "nearest")
        self.assertIn("127.0.0.0/8", reason.get_attribute("title"))
        shots(browser, "app-nearest")

    def test_without_a_network_the_last_menu_is_shown_read_only(self):
        server = self.app_server()
        browser = self.app_browser(server.base)
        browser.open(f"{server.base}/app#token={self.user_token(server)}")
        wait_loaded(browser)
        # The service worker keeps the page's files (127.0.0.1 is a secure context).
        browser.wait(lambda b: b.js("return !!navigator.serviceWorker.controller"), 30,
                     "the service worker never took control of the page")
        server.kill()
        browser.driver.refresh()
        browser.wait(lambda b: b.js("return document.documentElement.dataset.offline === 'true'"), 30)
        self.assertTrue(browser.find("#offline-note").is_displayed())
        latte = browser.find('[data-item-id="latte"]')
        self.assertTrue(latte.get_attribute("disabled"), "offline, the menu is read-only")
        self.assertTrue(browser.find("#connection-banner").is_displayed())
        shots(browser, "app-offline")


class SwitchCafeTests(AppTestCase):
    def test_switching_cafe_and_keeping_it_as_the_default_location(self):
        server = self.app_server()
        annex = test_cafe()
        annex.update(id="annex", names={"en": "Annex", "ar": "الملحق", "ja": "別館"})
        annex["beaconRegion"] = dict(annex["beaconRegion"], major=4343)
        menu = {key: annex.pop(key) for key in ("dayParts", "categories", "items")}
        for path, body in (("/v1/cafes/annex", annex), ("/v1/cafes/annex/menu", menu)):
            status, answer = server.api("PUT", path, body=body)
            self.assertIn(status, (200, 201), f"PUT {path}: {status} {answer}")
        token = self.user_token(server, user="u-switch")
        browser = self.app_browser(server.base)
        browser.open(f"{server.base}/app#token={token}")
        wait_loaded(browser)
        names = {"annex": "Annex", CAFE: "Test Canteen"}
        first = browser.find(".cafe-name").text
        self.assertIn(first, names.values())
        other = next(cafe for cafe, name in names.items() if name != first)

        # Switching café for this visit: the other café's menu, reason "chosen", nothing saved.
        browser.click(".switch-cafe")
        browser.wait_for("#cafe-dialog[open]")
        browser.wait_for(f'#cafe-dialog [data-cafe-id="{other}"]')
        self.assertEqual(len(browser.find_all("#cafe-dialog .cafe-choice")), 2)
        shots(browser, "app-switch-cafe")
        browser.click(f'#cafe-dialog [data-cafe-id="{other}"]')
        browser.wait(lambda b: b.find(".cafe-name").text == names[other], 10, "the other café did not open")
        self.assertEqual(browser.find(".cafe-reason").get_attribute("data-reason"), "chosen")
        browser.wait_for('[data-item-id="latte"]')
        status, saved = server.api("GET", "/v1/users/u-switch/preferences/defaultLocation")
        self.assertFalse(status == 200 and saved.get("value") == other, "switching for one visit saves no default")

        # "Always this café" keeps it as the person's default location, so the next visit opens it.
        browser.click(".switch-cafe")
        browser.wait_for("#cafe-dialog[open]")
        browser.click('#cafe-dialog input[value="cafe"]')
        browser.wait(lambda b: (server.api("GET", "/v1/users/u-switch/preferences/defaultLocation")[1] or {})
                     .get("value") == other, 10, "the default location was not saved")
        browser.click("#cafe-dialog .dialog-buttons button")
        browser.open(f"{server.base}/app")
        wait_loaded(browser)
        browser.wait(lambda b: b.find(".cafe-name").text == names[other], 10, "the default café did not open")
        self.assertEqual(browser.find(".cafe-reason").get_attribute("data-reason"), "preferred")

        # And back to "nearest".
        browser.click(".switch-cafe")
        browser.wait_for("#cafe-dialog[open]")
        browser.click('#cafe-dialog input[value="nearest"]')
        browser.wait(lambda b: (server.api("GET", "/v1/users/u-switch/preferences/defaultLocation")[1] or {})
                     .get("value") == "nearest", 10, "nearest was not saved")


if __name__ == "__main__":
    unittest.main()
