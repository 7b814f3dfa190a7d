"""Signing in to the operator's console (`/ops`, issue 33) with the company's identity provider, in
a real browser against a real `canteen serve` and the test provider (Tests/IdentityProvider):
a member of the ops group signs in through the provider's form and works in the console with no
token (a price changed there is in the audit log under her user id); a member outside the group
is told why not and sees no section; signing out returns to the sign-in screen and the API then
refuses the old cookie. Without a provider the console asks for a token only, as before.
Screenshots land in `.build-screenshots/ops-signin-*.png` (git-ignored)."""

import json
import unittest
import urllib.error
import urllib.request

from app_support import AppServer, start_provider
from canteen_browser import CAFE, shots, test_cafe
from test_pages import PageTestCase

SESSION_COOKIE = "canteen_session"  # on a plain-http public URL: no __Host- prefix


class ConsoleSignInTestCase(PageTestCase):
    def signing_in_server(self):
        provider, idp = start_provider()
        self.cleanups.append(idp.shutdown)
        server = AppServer(test_cafe(), provider=provider)
        self.cleanups.append(server.stop)
        return server

    def sign_in(self, browser, server, user):
        """From the console's sign-in screen through the provider's form, back to /ops."""
        browser.open(f"{server.base}/ops")
        link = browser.wait_for("#setup .signin-link", timeout=20)
        self.assertEqual(link.get_attribute("href"), f"{server.base}/auth/login?next=/ops")
        # The token field is still there, beside the company sign-in.
        self.assertTrue(browser.find("#token-input").is_displayed())
        shots(browser, "ops-signin-signed-out")
        browser.wait_for("#setup .signin-link").click()
        browser.wait_for("#username", timeout=20).send_keys(user)
        browser.find("#password").send_keys(f"{user}-pw")
        browser.find("#sign-in").click()
        browser.wait(lambda b: b.driver.current_url.startswith(f"{server.base}/ops"), 20, "not back at /ops")

    def session_cookie(self, browser):
        cookies = {cookie["name"]: cookie["value"] for cookie in browser.driver.get_cookies()}
        self.assertIn(SESSION_COOKIE, cookies)
        return cookies[SESSION_COOKIE]

    def api_with_cookie(self, server, path, cookie):
        """A GET with the session cookie only (no token): (status, json)."""
        request = urllib.request.Request(server.base + path, headers={"Cookie": f"{SESSION_COOKIE}={cookie}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def assert_signed_out(self, browser, server, cookie):
        """Back on the sign-in screen, and the API refuses the old cookie."""
        browser.wait(lambda b: b.find("#setup .signin-link").is_displayed(), 20, "no sign-in screen after sign out")
        self.assertFalse(browser.find("#console").is_displayed())
        self.assertFalse(browser.find("#setup .signin-refusal").is_displayed())
        status, answer = self.api_with_cookie(server, "/v1/me", cookie)
        self.assertEqual(status, 401, answer)
        self.assertNotIn(SESSION_COOKIE, {cookie["name"] for cookie in browser.driver.get_cookies()})


class OpsGroupMemberTests(ConsoleSignInTestCase):
    def test_a_member_of_the_ops_group_signs_in_works_with_no_token_and_is_audited_by_user_id(self):
        server = self.signing_in_server()
        browser = self.browser()
        self.sign_in(browser, server, "olga")

        # The console opens with no token: the session cookie is the credential.
        browser.wait(lambda b: b.find("#console").is_displayed(), 20, "the console did not open")
        self.assertEqual(browser.js("return Object.keys(localStorage).filter((key) => key.includes('token'))"), [])
        self.assertEqual(browser.find(".topbar .signed-in-as").text, "Signed in as Olga Example")
        self.assertFalse(browser.find("#setup").is_displayed())
        shots(browser, "ops-signin-console")
        cookie = self.session_cookie(browser)

        # A price changed in the menu editor is saved through the session (a write: the browser's Origin).
        browser.click('.sections button[data-section="menus"]')
        price = browser.wait_for('.item-editor[data-item-id="latte"] input[name=price]', timeout=20)
        price.clear()
        price.send_keys("4.80")
        browser.click(".save-menu")

        def latte_price(_):
            _, menu = server.api("GET", f"/v1/cafes/{CAFE}/menu/document", expect=200)
            return next(item for item in menu["document"]["items"] if item["id"] == "latte")["price"] == 480
        browser.wait(latte_price, 10, "the new price was not saved")

        # The audit log names olga's user id, and no token.
        _, log = server.api("GET", "/v1/audit", expect=200)
        entry = log["entries"][0]
        self.assertEqual(entry["action"], "menu.replace")
        self.assertEqual(entry["actor"], {"tokenId": None, "tokenName": None, "role": "ops", "userId": "u-olga"})
        self.assertIn({"field": "items[latte].price", "before": 425, "after": 480}, entry["changes"])
        # The console's own audit section shows her.
        browser.click('.sections button[data-section="audit"]')
        browser.wait(lambda b: "u-olga" in b.find(".audit-list").text, 20, "the audit log does not show u-olga")
        shots(browser, "ops-signin-audit")

        # Signing out ends the session.
        browser.click(".topbar .signout-button")
        self.assert_signed_out(browser, server, cookie)


class OutsideTheOpsGroupTests(ConsoleSignInTestCase):
    def test_a_member_outside_the_ops_group_is_refused_clearly_and_sees_no_section(self):
        server = self.signing_in_server()
        browser = self.browser()
        self.sign_in(browser, server, "alice")

        refusal = browser.wait_for("#setup .signin-refusal", timeout=20)
        cookie = self.session_cookie(browser)
        # The page shows who is signed in and the API's own refusal.
        status, answer = self.api_with_cookie(server, "/v1/overview", cookie)
        self.assertEqual(status, 403)
        self.assertIn("not in the ops group", answer["error"]["message"])
        self.assertEqual(refusal.text, f"Signed in as Alice Example\n{answer['error']['message']}")
        self.assertFalse(browser.find("#console").is_displayed())
        self.assertEqual([panel for panel in browser.find_all("[data-panel]") if panel.is_displayed()], [])
        self.assertFalse(browser.find("#setup .signin-link").is_displayed())
        shots(browser, "ops-signin-refused")

        browser.click("#setup .signout-button")
        self.assert_signed_out(browser, server, cookie)


class WithoutProviderTests(ConsoleSignInTestCase):
    def test_without_a_provider_the_console_asks_for_a_token_only(self):
        server = self.server()
        browser = self.browser()
        browser.open(f"{server.base}/ops")
        browser.wait_for("#token-input", timeout=20)
        self.assertEqual(browser.js("return document.documentElement.dataset.signIn"), "tokens")
        self.assertFalse(browser.find("#setup .company-signin").is_displayed())


if __name__ == "__main__":
    unittest.main()
