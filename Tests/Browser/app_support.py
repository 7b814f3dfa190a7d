"""What the employee page's browser tests and benchmark share: a `canteen serve` that signs
people in with the test identity provider (Tests/IdentityProvider/provider.py, in a thread of
this process, on loopback), a browser whose notifications are allowed and recorded, and the
steps of signing in through the provider's login form."""

import subprocess
import sys
import time
import urllib.request

from canteen_browser import REPO, Browser, By, Server

sys.path.insert(0, str(REPO / "Tests" / "IdentityProvider"))
import provider as identity_provider  # noqa: E402

CLIENT_ID = "canteen"
CLIENT_SECRET = "canteen-secret"

# Before the page's own scripts: every Notification shown is also recorded in window.__notifications.
RECORD_NOTIFICATIONS = """
(() => {
  window.__notifications = [];
  const Real = window.Notification;
  if (!Real) return;
  class Recorded extends Real {
    constructor(title, options = {}) {
      super(title, options);
      window.__notifications.push({title, body: options.body || '', at: performance.timeOrigin + performance.now()});
    }
  }
  window.Notification = Recorded;
})();
"""


class AppServer(Server):
    """`canteen serve` with `--public-url` its own loopback address and, when `provider` is
    given, signing in with it (the client secret in a file, as an operator would pass it)."""

    def __init__(self, cafe=None, provider=None, extra=()):
        self.provider = provider
        self.extra = list(extra)
        super().__init__(cafe)

    def start(self):
        public = f"http://127.0.0.1:{self.port}"
        arguments = ["--public-url", public] + self.extra
        if self.provider is not None:
            secret = self.folder / "client-secret"
            secret.write_text(CLIENT_SECRET + "\n")
            secret.chmod(0o600)
            self.provider.redirect_uris.add(public + "/auth/callback")
            arguments += ["--oidc-issuer", self.provider.issuer, "--oidc-client-id", CLIENT_ID,
                          "--oidc-client-secret-file", str(secret), "--oidc-ops-group", "canteen-ops"]
        self.process = subprocess.Popen(
            [self.binary, "serve", "--data-dir", str(self.data), "--host", "127.0.0.1", "--port", str(self.port),
             "--menus", str(self.menus), "--locales", str(REPO / "Locales"), "--log-level", "warning", *arguments],
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


def start_provider():
    """The test provider in this process: `(provider, server)`."""
    return identity_provider.start()


def app_browser(base, language="en-US", size=(390, 844)):
    """Chromium with notifications allowed for `base` and recorded (see RECORD_NOTIFICATIONS)."""
    browser = Browser(language=language, size=size)
    browser.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["notifications"]})
    browser.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_NOTIFICATIONS})
    return browser


def sign_in(browser, base, user="alice", password=None, screenshot=None):
    """From the signed-out page through the provider's login form, back to /app signed in."""
    browser.open(f"{base}/app")
    browser.wait_for("#signin-link", timeout=20)
    if screenshot:
        screenshot("app-signed-out")
    browser.click("#signin-link")
    browser.wait_for("#username", timeout=20)
    if screenshot:
        screenshot("app-provider-login")
    browser.find("#username").send_keys(user)
    browser.find("#password").send_keys(password or f"{user}-pw")
    browser.find("#sign-in").click()
    wait_loaded(browser)


def wait_loaded(browser, timeout=30):
    browser.wait(lambda b: b.js("const app = document.querySelector('#app'); return !!app && app.dataset.loaded === 'true'"),
                 timeout, "/app did not load")


__all__ = ["AppServer", "By", "CLIENT_ID", "CLIENT_SECRET", "app_browser", "sign_in", "start_provider",
           "wait_loaded"]
