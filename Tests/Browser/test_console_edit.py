"""Editing in the operator's console (`/ops`, issue 33) what used to need the API: a café's kitchen
stations and the networks of its building (café settings), and an item's modifier groups with
their options (menus). What is typed is saved through the public API and read back from it as
entered; an invalid value shows the API's own message at its field (`aria-invalid="true"`) and
saves nothing. A new modifier group is offered on the kiosk. Screenshots `ops-stations` and
`ops-modifiers` at 1280×800 and at a phone's width."""

import copy
import json
import time
import unittest
from pathlib import Path

from canteen_browser import CAFE, shots
from test_console import ConsoleTestCase, item_editor, open_console
from test_pages import open_page


def eventually(condition, timeout=10, message="the condition never held"):
    """`condition()`'s first truthy value within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if not value:
        raise AssertionError(message)
    return value


def type_into(field, text):
    field.clear()
    field.send_keys(text)


def field(root, css):
    return root.find_element("css selector", css)


def press(browser, element):
    """Clicks `element` once scrolled to the middle of the screen (not under the sticky save bar)."""
    browser.js("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


class CafeEditTestCase(ConsoleTestCase):
    def cafe(self, server):
        """The café's configuration as the API gives it, without what changes with the clock."""
        _, cafe = server.api("GET", f"/v1/cafes/{CAFE}", expect=200)
        cafe.pop("openNow")
        return cafe

    def set_cafe(self, server, **fields):
        cafe = self.cafe(server)
        cafe.update(fields)
        server.api("PUT", f"/v1/cafes/{CAFE}", body=cafe, expect=200)

    def refusal(self, server, **fields):
        """What the API itself answers to the café with `fields` (it refuses, so nothing changes)."""
        cafe = self.cafe(server)
        cafe.update(fields)
        status, answer = server.api("PUT", f"/v1/cafes/{CAFE}", body=cafe)
        self.assertEqual(status, 422, answer)
        return answer["error"]

    def save_cafe(self, console):
        """Saves the café settings form; `reloaded` then waits for the form the page fills again."""
        console.js("document.querySelectorAll('.cafe-form .day').forEach((day) => { day.dataset.typed = 'true'; })")
        press(console, console.wait_for(".cafe-form .form-buttons button[type=submit]"))

    def reloaded(self, console):
        console.wait(lambda b: b.find_all(".cafe-form .day:not([data-typed])"), 10, "the form was not filled again")


class StationTests(CafeEditTestCase):
    def test_stations_added_renamed_changed_and_removed_are_saved_as_entered(self):
        server = self.server()
        self.set_cafe(server, stations=[{"id": "grill", "prepSeconds": 300}, {"id": "bar", "prepSeconds": 60}])
        console = open_console(self.browser(), server, "cafe")
        console.wait(lambda b: len(b.find_all(".station-row")) == 2, 10, "the stations were not shown")
        rows = console.find_all(".station-row")
        self.assertEqual([field(row, "[name=stationId]").get_attribute("value") for row in rows], ["grill", "bar"])
        # Each field carries the API's path for it.
        self.assertEqual(field(rows[1], "[name=prepSeconds]").get_attribute("data-path"), "stations[1].prepSeconds")
        self.assertIn("bar, grill", console.find(".stations-list").text)
        # Rename the first and change its time, remove the second, add a third.
        type_into(field(rows[0], "[name=stationId]"), "hotline")
        type_into(field(rows[0], "[name=prepSeconds]"), "240")
        press(console, field(rows[1], "button.remove"))
        press(console, console.wait_for(".add-station"))
        added = console.find_all(".station-row")[-1]
        self.assertEqual(console.js("return document.activeElement.name"), "stationId")
        type_into(field(added, "[name=stationId]"), "cold")
        type_into(field(added, "[name=prepSeconds]"), "45")
        self.save_cafe(console)
        expected = [{"id": "hotline", "prepSeconds": 240}, {"id": "cold", "prepSeconds": 45}]
        eventually(lambda: self.cafe(server)["stations"] == expected, 10,
                   f"the café's stations are {self.cafe(server)['stations']}, not {expected}")
        # The page shows what was saved, numbered as the API numbers it.
        self.reloaded(console)
        self.assertEqual([field(row, "[name=stationId]").get_attribute("value")
                          for row in console.find_all(".station-row")], ["hotline", "cold"])
        self.assertEqual(console.find_all(".station-row")[1].get_attribute("data-path"), "stations[1]")
        # The audit log records the stations that changed, and nothing else.
        _, log = server.api("GET", "/v1/audit", expect=200)
        self.assertEqual(log["entries"][0]["action"], "cafe.save")
        self.assertEqual({change["field"] for change in log["entries"][0]["changes"]},
                         {"stations[grill]", "stations[bar]", "stations[hotline]", "stations[cold]"})
        shots(console, "ops-stations", console.find(".stations"))

    def test_a_negative_prep_time_is_shown_at_its_field_and_saves_nothing(self):
        server = self.server()
        self.set_cafe(server, stations=[{"id": "grill", "prepSeconds": 300}])
        before = self.cafe(server)
        console = open_console(self.browser(), server, "cafe")
        console.wait(lambda b: len(b.find_all(".station-row")) == 1, 10)
        press(console, console.wait_for(".add-station"))
        added = console.find_all(".station-row")[-1]
        type_into(field(added, "[name=stationId]"), "bar")
        prep = field(added, "[name=prepSeconds]")
        type_into(prep, "-5")
        self.save_cafe(console)
        console.wait(lambda b: prep.get_attribute("aria-invalid") == "true", 10, "the field was not marked")
        message = console.find(".cafe-form .field-error")
        self.assertEqual(message.get_attribute("data-for"), "stations[1].prepSeconds")
        self.assertEqual(prep.get_attribute("aria-describedby"), message.get_attribute("id"))
        error = self.refusal(server, stations=[{"id": "grill", "prepSeconds": 300}, {"id": "bar", "prepSeconds": -5}])
        self.assertEqual(error["field"], "stations[1].prepSeconds")
        self.assertEqual(message.text, error["message"])
        self.assertEqual(len(console.find_all('.cafe-form [aria-invalid="true"]')), 1)
        self.assertEqual(self.cafe(server), before)
        _, log = server.api("GET", "/v1/audit", expect=200)
        self.assertEqual([entry["action"] for entry in log["entries"]], ["cafe.save"])  # set_cafe's own
        shots(console, "ops-stations-invalid", prep)


class NetworkTests(CafeEditTestCase):
    def test_networks_entered_are_saved_and_one_removed_is_gone(self):
        server = self.server()
        console = open_console(self.browser(), server, "cafe")
        console.wait_for(".add-network")
        self.assertEqual(console.find_all(".network-row"), [])
        for network in ["10.20.0.0/16", "2001:db8:a::/48"]:
            press(console, console.wait_for(".add-network"))
            type_into(console.find_all(".network-row input[name=network]")[-1], network)
        self.assertEqual(console.find_all(".network-row input")[1].get_attribute("data-path"), "networks[1]")
        self.save_cafe(console)
        eventually(lambda: self.cafe(server)["networks"] == ["10.20.0.0/16", "2001:db8:a::/48"], 10,
                   f"the café's networks are {self.cafe(server)['networks']}")
        _, log = server.api("GET", "/v1/audit", expect=200)
        self.assertEqual(log["entries"][0]["changes"],
                         [{"field": "networks", "before": [], "after": ["10.20.0.0/16", "2001:db8:a::/48"]}])
        self.reloaded(console)
        self.assertEqual([i.get_attribute("value") for i in console.find_all(".network-row input")],
                         ["10.20.0.0/16", "2001:db8:a::/48"])
        shots(console, "ops-networks", console.find(".networks"))
        press(console, field(console.find_all(".network-row")[0], "button.remove"))
        self.save_cafe(console)
        eventually(lambda: self.cafe(server)["networks"] == ["2001:db8:a::/48"], 10,
                   f"the café's networks are {self.cafe(server)['networks']}")

    def test_a_malformed_network_is_shown_at_its_field_and_saves_nothing(self):
        server = self.server()
        self.set_cafe(server, networks=["10.10.0.0/16", "10.20.0.0/16"])
        before = self.cafe(server)
        console = open_console(self.browser(), server, "cafe")
        console.wait(lambda b: len(b.find_all(".network-row")) == 2, 10)
        press(console, console.wait_for(".add-network"))
        bad = console.find_all(".network-row input")[-1]
        type_into(bad, "10.20.0.1/16")  # host bits set
        # A row removed after: the rows are numbered as they are sent, not as they were shown.
        press(console, field(console.find_all(".network-row")[0], "button.remove"))
        self.save_cafe(console)
        console.wait(lambda b: bad.get_attribute("aria-invalid") == "true", 10, "the field was not marked")
        self.assertIsNone(console.find_all(".network-row input")[0].get_attribute("aria-invalid"))
        message = console.find(".cafe-form .field-error")
        self.assertEqual(message.get_attribute("data-for"), "networks[1]")
        error = self.refusal(server, networks=["10.20.0.0/16", "10.20.0.1/16"])
        self.assertEqual(error["field"], "networks[1]")
        self.assertEqual(message.text, error["message"])
        self.assertEqual(self.cafe(server), before)
        shots(console, "ops-networks-invalid", bad)


class HoursTests(CafeEditTestCase):
    def test_hours_refused_after_a_span_was_removed_are_shown_at_their_span(self):
        server = self.server()
        before = self.cafe(server)
        console = open_console(self.browser(), server, "cafe")
        monday = console.wait_for('.cafe-form .day[data-day="monday"]')
        press(console, field(monday, "button.secondary:not(.remove)"))  # add hours: 09:00–17:00
        spans = monday.find_elements("css selector", ".span")
        self.assertEqual(len(spans), 2)
        console.js("arguments[0].value = '08:00'", field(spans[1], "input[name=close]"))
        press(console, field(spans[0], "button.remove"))
        self.save_cafe(console)
        # The span left is sent, and refused, as Monday's first.
        console.wait(lambda b: spans[1].get_attribute("aria-invalid") == "true", 10, "the span was not marked")
        message = console.find(".cafe-form .field-error")
        self.assertEqual(message.get_attribute("data-for"), "hours.monday[0]")
        hours = dict(before["hours"], monday=[{"open": "09:00", "close": "08:00"}])
        error = self.refusal(server, hours=hours)
        self.assertEqual(error["field"], "hours.monday[0]")
        self.assertEqual(message.text, error["message"])
        self.assertEqual(self.cafe(server), before)


class ModifierGroupTests(ConsoleTestCase):
    def menu(self, server):
        return server.api("GET", f"/v1/cafes/{CAFE}/menu/document", expect=200)[1]

    def item(self, server, item_id):
        return next(item for item in self.menu(server)["document"]["items"] if item["id"] == item_id)

    def test_a_modifier_group_added_in_the_console_is_saved_and_offered_on_the_kiosk(self):
        server = self.server()
        console = open_console(self.browser(), server, "menus")
        editor = item_editor(console, "lemonade")
        self.assertEqual(editor.find_elements("css selector", ".modifier-group"), [])
        before = self.menu_version(server)
        press(console, field(editor, ".add-group"))
        group = field(editor, ".modifier-group")
        self.assertEqual(console.js("return document.activeElement.name"), "groupId")
        index = editor.get_attribute("data-index")
        base = f"items[{index}].modifierGroups[0]"
        self.assertEqual(field(group, "[name=max]").get_attribute("data-path"), f"{base}.max")
        type_into(field(group, "[name=groupId]"), "ice")
        for language, name in [("en", "Ice"), ("ar", "ثلج"), ("ja", "氷")]:
            type_into(field(group, f"input[name=groupName][lang={language}]"), name)
        type_into(field(group, "[name=min]"), "0")
        type_into(field(group, "[name=max]"), "1")
        press(console, field(group, ".add-option"))
        options = group.find_elements("css selector", ".modifier-option")
        self.assertEqual(len(options), 2)
        self.assertEqual(field(options[1], "[name=priceDelta]").get_attribute("data-path"),
                         f"{base}.options[1].priceDelta")
        entered = [("no-ice", ("No ice", "بدون ثلج", "氷なし"), "0"),
                   ("extra-ice", ("Extra ice", "ثلج إضافي", "氷多め"), "0.25")]
        for option, (option_id, names, delta) in zip(options, entered):
            type_into(field(option, "[name=optionId]"), option_id)
            for language, name in zip(["en", "ar", "ja"], names):
                type_into(field(option, f"input[name=optionName][lang={language}]"), name)
            type_into(field(option, "[name=priceDelta]"), delta)
        shots(console, "ops-modifiers", group)
        press(console, console.wait_for(".save-menu"))
        eventually(lambda: self.menu_version(server) > before, 10, "the menu was not saved")
        self.assertEqual(self.item(server, "lemonade")["modifierGroups"], [{
            "id": "ice", "names": {"en": "Ice", "ar": "ثلج", "ja": "氷"}, "min": 0, "max": 1, "options": [
                {"id": "no-ice", "names": {"en": "No ice", "ar": "بدون ثلج", "ja": "氷なし"},
                 "priceDelta": 0},
                {"id": "extra-ice", "names": {"en": "Extra ice", "ar": "ثلج إضافي", "ja": "氷多め"},
                 "priceDelta": 25},
            ]}])
        # The other items' groups are as they were.
        self.assertEqual([g["id"] for g in self.item(server, "latte")["modifierGroups"]], ["size", "shots"])
        # The page shows the saved group, its ids now fixed.
        saved = console.wait_for('.item-editor[data-item-id="lemonade"] .modifier-group[data-group-id="ice"]')
        self.assertEqual(field(saved, "[name=groupId]").get_attribute("readonly"), "true")
        # The kiosk offers it.
        kiosk = self.browser()
        open_page(kiosk, server.base, "kiosk", server.token("kiosk"))
        kiosk.click('[data-item-id="lemonade"]')
        offered = kiosk.wait_for('#item-dialog fieldset[data-group-id="ice"]')
        self.assertIn("Ice", offered.text)
        self.assertIn("Extra ice (+$0.25)", field(offered, '[data-option-id="extra-ice"]').text)
        self.assertIn("No ice", field(offered, '[data-option-id="no-ice"]').text)
        shots(kiosk, "kiosk-item-new-modifier-group")

    def test_a_group_and_an_option_removed_in_the_console_are_gone_from_the_menu(self):
        server = self.server()
        size = self.item(server, "latte")["modifierGroups"][0]
        console = open_console(self.browser(), server, "menus")
        editor = item_editor(console, "latte")
        before = self.menu_version(server)
        press(console, field(editor, '.modifier-group[data-group-id="shots"] .remove-group'))
        small = field(editor, '.modifier-group[data-group-id="size"] .modifier-option[data-option-id="small"]')
        press(console, field(small, "button.remove"))
        large = field(editor, '.modifier-option[data-option-id="large"]')
        type_into(field(large, "input[name=optionName][lang=en]"), "Large (16 oz)")
        type_into(field(large, "[name=priceDelta]"), "0.90")
        press(console, console.wait_for(".save-menu"))
        eventually(lambda: self.menu_version(server) > before, 10, "the menu was not saved")
        expected = dict(size, options=[{"id": "large", "names": {"en": "Large (16 oz)", "ar": "كبير", "ja": "L"},
                                        "priceDelta": 90}])
        self.assertEqual(self.item(server, "latte")["modifierGroups"], [expected])

    def test_max_below_min_is_shown_at_its_field_and_saves_nothing(self):
        server = self.server()
        console = open_console(self.browser(), server, "menus")
        editor = item_editor(console, "latte")
        index = editor.get_attribute("data-index")
        before = self.menu(server)
        # The first group removed: the second is sent, and refused, as the first.
        press(console, field(editor, '.modifier-group[data-group-id="size"] .remove-group'))
        shots_group = field(editor, '.modifier-group[data-group-id="shots"]')
        press(console, field(shots_group, ".add-option"))
        double = shots_group.find_elements("css selector", ".modifier-option")[-1]
        type_into(field(double, "[name=optionId]"), "decaf")
        for language, name in [("en", "Decaf"), ("ar", "منزوع الكافيين"), ("ja", "デカフェ")]:
            type_into(field(double, f"input[name=optionName][lang={language}]"), name)
        minimum = field(shots_group, "[name=min]")
        type_into(minimum, "2")
        type_into(field(shots_group, "[name=max]"), "1")
        press(console, console.wait_for(".save-menu"))
        console.wait(lambda b: minimum.get_attribute("aria-invalid") == "true", 10, "the field was not marked")
        self.assertEqual(len(console.find_all('.menu-form [aria-invalid="true"]')), 1)
        message = console.find(".menu-form .field-error")
        path = f"items[{index}].modifierGroups[0].min"
        self.assertEqual(message.get_attribute("data-for"), path)
        body = copy.deepcopy(before["document"])
        latte = body["items"][int(index)]
        shots_body = latte["modifierGroups"][1]
        shots_body.update(min=2, max=1)
        decaf = {"en": "Decaf", "ar": "منزوع الكافيين", "ja": "デカフェ"}
        shots_body["options"].append({"id": "decaf", "names": decaf, "priceDelta": 0})
        latte["modifierGroups"] = [shots_body]
        status, answer = server.api("PUT", f"/v1/cafes/{CAFE}/menu", body=body)
        self.assertEqual(status, 422)
        self.assertEqual(answer["error"]["field"], path)
        self.assertEqual(message.text, answer["error"]["message"])
        self.assertEqual(self.menu(server), before)
        shots(console, "ops-modifiers-invalid", minimum)
        # A price change finer than the currency's minor unit is refused on the page, and not sent.
        type_into(minimum, "1")
        delta = field(shots_group, '.modifier-option[data-option-id="espresso"] [name=priceDelta]')
        type_into(delta, "0.755")
        press(console, console.wait_for(".save-menu"))
        console.wait(lambda b: delta.get_attribute("aria-invalid") == "true", 10, "the delta was not marked")
        self.assertIn("2 decimal places", console.find(".menu-form .field-error").text)
        self.assertEqual(self.menu_version(server), before["version"])
        _, log = server.api("GET", "/v1/audit", expect=200)
        self.assertEqual(log["entries"], [])


if __name__ == "__main__":
    unittest.main()


class ArabicEditTests(CafeEditTestCase):
    def test_stations_networks_and_modifier_groups_read_right_to_left_in_arabic(self):
        server = self.server()
        self.set_cafe(server, stations=[{"id": "grill", "prepSeconds": 300}, {"id": "bar", "prepSeconds": 60}],
                      networks=["10.20.0.0/16", "2001:db8:a::/48"])
        strings = json.loads((Path(__file__).parents[2] / "Locales" / "ar.json").read_text())
        console = open_console(self.browser(language="ar"), server, "cafe")
        html = console.find("html")
        self.assertEqual((html.get_attribute("lang").split("-")[0], html.get_attribute("dir")), ("ar", "rtl"))
        console.wait(lambda b: len(b.find_all(".station-row")) == 2, 10, "the stations were not shown")
        self.assertEqual(console.find(".add-station").text, strings["web.ops.add_station"])
        self.assertEqual(console.find(".add-network").text, strings["web.ops.add_network"])
        self.assertEqual([i.get_attribute("value") for i in console.find_all(".network-row input")],
                         ["10.20.0.0/16", "2001:db8:a::/48"])
        # The address blocks read left to right inside the right-to-left page.
        self.assertEqual(console.js("return getComputedStyle(arguments[0]).direction",
                                    console.find(".network-row input")), "ltr")
        shots(console, "ops-stations-ar", console.find(".stations"))
        shots(console, "ops-networks-ar", console.find(".networks"))

        open_console(console, server, "menus")
        group = field(item_editor(console, "latte"), ".modifier-group")
        self.assertEqual(field(group, ".add-option").text, strings["web.ops.add_option"])
        shots(console, "ops-modifiers-ar", group)
