"""Canteen's own QR encoder (`Sources/CanteenWeb/Assets/qr.js`, issue 33's provisioning codes) in
Debian's headless Chromium, from a static page (`qr_harness.html`, file://, no server): every
code is screenshotted as drawn and decoded with Debian's `zbarimg` back to exactly its URL, and
the module matrix is read by a strict reader of our own (`qr_reader.py`) that repairs nothing, so
that an error zbar would silently correct still fails. Versions cover both sides of every byte
count boundary that matters (1, 9|10, 26|27, 40, the 32 alignment exception), every mask is drawn
and decoded, and the mask the encoder picks has the lowest penalty. A corrupted code must not
decode, so these tests can fail."""

import random
import shutil
import subprocess
import tempfile
import unittest
import urllib.parse
from pathlib import Path

from canteen_browser import Browser
from qr_reader import QRDefect, capacity, penalty, read

HARNESS = (Path(__file__).resolve().parent / "qr_harness.html").as_uri()
BASE = "http://127.0.0.1:8080"

RENDER = """
const [text, pixels, options] = arguments;
const drawing = CanteenQR.svg(text, pixels, options || {});
document.getElementById('stage').replaceChildren(drawing);
return drawing;
"""

ENCODE = "return CanteenQR.encode(arguments[0], arguments[1] || {});"


def secret(rng, length=43):
    """A base64url secret like the tokens' (`cnt_` + 32 random bytes)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return "".join(rng.choice(alphabet) for _ in range(length))


def provisioning_url(rng, screen="kds", cafe="testcafe"):
    return f"{BASE}/{screen}?cafe={urllib.parse.quote(cafe, safe='')}#token=cnt_{secret(rng)}"


def url_of_length(rng, length):
    """A provisioning-shaped URL of exactly `length` bytes (ASCII), the fragment padded with base64url."""
    head = f"{BASE}/kiosk?cafe=testcafe#token=cnt_"
    return (head + secret(rng, max(0, length - len(head))))[:length]


class QRCodeTests(unittest.TestCase):
    """One Chromium for the whole class: the harness page is static."""

    @classmethod
    def setUpClass(cls):
        if shutil.which("zbarimg") is None:
            raise unittest.SkipTest("zbarimg is not installed (apt-get install zbar-tools)")
        cls.browser = Browser()
        cls.browser.open(HARNESS)
        cls.browser.wait(lambda b: b.js("return typeof CanteenQR === 'object'"), 20, "qr.js did not load")
        cls.folder = Path(tempfile.mkdtemp(prefix="canteen-qr-"))

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        shutil.rmtree(cls.folder, ignore_errors=True)

    # MARK: - Helpers

    def render(self, text, pixels=300, **options):
        return self.browser.js(RENDER, text, pixels, options)

    def encode(self, text, **options):
        return self.browser.js(ENCODE, text, options)

    def zbar(self, element):
        """What Debian's zbarimg reads in a screenshot of `element`: (exit status, text)."""
        image = self.folder / "code.png"
        element.screenshot(str(image))
        result = subprocess.run(["zbarimg", "--quiet", "--raw", str(image)], capture_output=True, timeout=60)
        return result.returncode, result.stdout.decode("utf-8", "replace").removesuffix("\n")

    def assert_scans_to(self, text, pixels=300, **options):
        """Given `text`, when it is drawn and screenshotted, then zbar reads exactly `text`, the drawing says
        which URL it encodes, and the strict reader finds the same bytes with nothing to repair."""
        drawing = self.render(text, pixels, **options)
        self.assertEqual(drawing.get_attribute("data-qr-url"), text)
        status, decoded = self.zbar(drawing)
        self.assertEqual((status, decoded), (0, text), f"zbar on {len(text)} bytes")
        code = self.encode(text, **options)
        version, mask, payload = read(code["modules"])
        self.assertEqual(payload, text.encode("utf-8"))
        self.assertEqual((version, mask), (code["version"], code["mask"]))
        return code

    # MARK: - Decoding

    def test_provisioning_urls_scan_back_to_exactly_themselves(self):
        rng = random.Random(33)
        cafe = "Café Zürich – Étage 2 · 食堂"
        urls = [
            "https://c.example/",
            provisioning_url(rng, "kds"),
            provisioning_url(rng, "kiosk", cafe),
            provisioning_url(rng, "board", "مقهى الشركة"),
            provisioning_url(rng) + "&name=" + urllib.parse.quote("Pass tablet — 2ᵉ étage") + secret(rng, 60),
            url_of_length(rng, 100), url_of_length(rng, 200), url_of_length(rng, 300), url_of_length(rng, 350),
        ]
        seen = set()
        for url in urls:
            with self.subTest(length=len(url)):
                seen.add(self.assert_scans_to(url)["version"])
        self.assertTrue(any(v <= 9 for v in seen) and any(v >= 10 for v in seen), seen)

    def test_each_side_of_every_version_boundary_scans_in_the_smallest_version(self):
        rng = random.Random(18004)
        for version in [1, 2, 6, 7, 9, 10, 13, 20, 21, 26, 27, 31, 32, 33, 40]:
            for length in sorted({capacity(version - 1) + 1 if version > 1 else 1, capacity(version)}):
                with self.subTest(version=version, length=length):
                    text = url_of_length(rng, length)
                    extent = 17 + 4 * version + 8
                    code = self.assert_scans_to(text, pixels=max(300, 3 * extent))
                    self.assertEqual(code["version"], version)

    def test_text_beyond_version_40_is_refused_by_name(self):
        message = self.browser.js("try { CanteenQR.encode('x'.repeat(2332)); return 'encoded'; }"
                                  " catch (error) { return `${error.name}: ${error.message}`; }")
        self.assertEqual(message, "RangeError: 2332 bytes are too many for a QR code (at most 2331 at level M)")
        self.assertEqual(self.encode("x" * 2331)["version"], 40)

    def test_raw_utf8_text_is_encoded_as_its_utf8_bytes(self):
        text = "Café Zürich 食堂 مقهى"
        _, _, payload = read(self.encode(text)["modules"])
        self.assertEqual(payload, text.encode("utf-8"))

    # MARK: - Masks

    def test_every_mask_draws_a_code_that_scans(self):
        url = provisioning_url(random.Random(8))
        for mask in range(8):
            with self.subTest(mask=mask):
                self.assertEqual(self.assert_scans_to(url, mask=mask)["mask"], mask)

    def test_every_masks_penalty_is_scored_by_the_standards_four_rules(self):
        # Ten NUL bytes under mask 6 are 56 % dark: the balance rule (N4) counts there, as the runs, blocks and
        # finder-like rules do everywhere.
        for text in ["\x00" * 10, "https://c.example/", provisioning_url(random.Random(4)), "y" * 400]:
            for mask in range(8):
                with self.subTest(length=len(text), mask=mask):
                    code = self.encode(text, mask=mask)
                    self.assertEqual(code["penalty"], penalty(code["modules"]))

    def test_the_chosen_mask_has_the_lowest_penalty_and_every_mask_gets_chosen(self):
        rng = random.Random(7)
        chosen = {}
        for attempt in range(400):
            url = url_of_length(rng, rng.choice([40, 90, 150, 200, 260]))
            code = self.encode(url)
            forced = [self.encode(url, mask=mask) for mask in range(8)]
            scores = [penalty(each["modules"]) for each in forced]
            self.assertEqual([each["penalty"] for each in forced], scores, url)
            self.assertEqual((code["mask"], code["penalty"]), (scores.index(min(scores)), min(scores)), url)
            chosen.setdefault(code["mask"], url)
            if len(chosen) == 8:
                break
        self.assertEqual(sorted(chosen), list(range(8)), f"masks chosen in {attempt + 1} codes")
        for mask, url in sorted(chosen.items()):
            with self.subTest(mask=mask):
                self.assertEqual(self.assert_scans_to(url)["mask"], mask)

    # MARK: - Failing when it should

    def test_a_corrupted_code_does_not_scan_to_its_url(self):
        # Given a code that scans, when a quarter of it (its bottom right, where the data starts) is inverted,
        # then zbar does not read the URL and the strict reader names a defect.
        url = provisioning_url(random.Random(99))
        self.assert_scans_to(url)
        drawing = self.render(url)
        self.browser.js("""
            const [drawing] = arguments;
            const path = drawing.querySelector('path');
            const dark = new Set(path.getAttribute('d').split('z').filter(Boolean));
            const extent = drawing.viewBox.baseVal.width;
            const size = extent - 8;
            for (let y = 4 + Math.floor(size / 2); y < 4 + size; y += 1) {
              for (let x = 4 + Math.floor(size / 2); x < 4 + size; x += 1) {
                const module = `M${x},${y}h1v1h-1`;
                if (!dark.delete(module)) dark.add(module);
              }
            }
            path.setAttribute('d', [...dark].map((module) => `${module}z`).join(''));
        """, drawing)
        status, decoded = self.zbar(drawing)
        self.assertNotEqual(decoded, url, f"zbar status {status}")
        modules = self.encode(url)["modules"]
        half = len(modules) // 2
        corrupted = [[dark != (i >= half and j >= half) for j, dark in enumerate(row)] for i, row in enumerate(modules)]
        with self.assertRaises(QRDefect):
            read(corrupted)

    def test_a_single_wrong_module_is_caught_by_the_strict_reader(self):
        modules = self.encode(url_of_length(random.Random(1), 120))["modules"]
        size = len(modules)
        modules[size - 1][size - 1] = not modules[size - 1][size - 1]  # the first data bit
        with self.assertRaisesRegex(QRDefect, "Reed–Solomon"):
            read(modules)

    # MARK: - The drawing

    def test_the_drawing_is_black_on_white_crisp_with_a_quiet_zone_and_a_name(self):
        url = provisioning_url(random.Random(5), "board")
        drawing = self.render(url, 300, label="Scan to set up this board")
        facts = self.browser.js("""
            const [drawing] = arguments;
            const box = drawing.viewBox.baseVal;
            const background = drawing.querySelector('rect');
            const path = drawing.querySelector('path');
            const modules = path.getAttribute('d').split('z').filter(Boolean)
              .map((m) => m.match(/^M(\\d+),(\\d+)h1v1h-1$/)).map((m) => m && [Number(m[1]), Number(m[2])]);
            return {
              tag: drawing.namespaceURI + ' ' + drawing.localName,
              viewBox: [box.x, box.y, box.width, box.height],
              width: drawing.getAttribute('width'), height: drawing.getAttribute('height'),
              shapeRendering: drawing.getAttribute('shape-rendering'),
              background: [background.getAttribute('width'), background.getAttribute('height'),
                           background.getAttribute('fill')],
              ink: path.getAttribute('fill'),
              modules,
              role: drawing.getAttribute('role'),
              resources: performance.getEntriesByType('resource').map((entry) => entry.name),
            };
        """, drawing)
        code = self.encode(url)
        extent = code["size"] + 8
        self.assertEqual(facts["tag"], "http://www.w3.org/2000/svg svg")
        self.assertEqual(facts["viewBox"], [0, 0, extent, extent])
        self.assertEqual(facts["shapeRendering"], "crispEdges")
        self.assertEqual(facts["background"], [str(extent), str(extent), "#ffffff"])
        self.assertEqual(facts["ink"], "#000000")
        width = int(facts["width"])
        self.assertEqual((facts["height"], width % extent), (facts["width"], 0), "whole pixels per module")
        self.assertLessEqual(width, 300)
        self.assertGreaterEqual(width // extent, 3)
        # Exactly the encoder's dark modules, each inside the four-module quiet zone.
        expected = sorted([j + 4, i + 4] for i, row in enumerate(code["modules"]) for j, dark in enumerate(row) if dark)
        self.assertNotIn(None, facts["modules"])
        self.assertEqual(sorted(facts["modules"]), expected)
        self.assertTrue(all(4 <= x < extent - 4 and 4 <= y < extent - 4 for x, y in facts["modules"]))
        self.assertEqual((facts["role"], drawing.accessible_name), ("img", "Scan to set up this board"))
        self.assertTrue(all(name.startswith("file://") and name.endswith("/qr.js") for name in facts["resources"]),
                        facts["resources"])

    def test_the_drawing_has_only_pure_black_and_white_pixels(self):
        drawing = self.render(provisioning_url(random.Random(6)), 300)
        colours = self.browser.driver.execute_async_script("""
            const [drawing, done] = [arguments[0], arguments[arguments.length - 1]];
            const width = Number(drawing.getAttribute('width'));
            const image = new Image();
            image.onload = () => {
              const canvas = document.createElement('canvas');
              canvas.width = width;
              canvas.height = width;
              const context = canvas.getContext('2d');
              context.drawImage(image, 0, 0);
              const pixels = context.getImageData(0, 0, width, width).data;
              const seen = new Set();
              for (let k = 0; k < pixels.length; k += 4) seen.add(pixels.slice(k, k + 4).join(','));
              done([...seen].sort());
            };
            image.onerror = () => done(['image error']);
            image.src = 'data:image/svg+xml,' + encodeURIComponent(new XMLSerializer().serializeToString(drawing));
        """, drawing)
        self.assertEqual(colours, ["0,0,0,255", "255,255,255,255"])

    def test_without_a_label_the_drawing_leaves_naming_to_its_container(self):
        drawing = self.render("https://c.example/", 264)
        self.assertEqual((drawing.get_attribute("aria-hidden"), drawing.get_attribute("role")), ("true", None))

    def test_a_mask_outside_0_to_7_or_a_non_text_is_refused_by_name(self):
        for argument, expected in [("'https://c.example/', {mask: 8}", "RangeError: mask must be 0 to 7, not 8"),
                                   ("42", "TypeError: the text of a QR code must be a string")]:
            with self.subTest(argument=argument):
                message = self.browser.js(f"try {{ CanteenQR.encode({argument}); return 'encoded'; }}"
                                          " catch (error) { return `${error.name}: ${error.message}`; }")
                self.assertEqual(message, expected)


if __name__ == "__main__":
    unittest.main(verbosity=2)
