"""A café open all day, every day, in a zone where it is now about 08:00, so that "asap" always
finds a window today: the benchmarks' café (scripts/bench-cafe.py) and the multi-server test's
(scripts/multi-server-test.py).
"""
import json
import os
import time

# Zones without daylight saving time, by UTC offset (the server takes IANA city zones only).
ZONES = {-11: "Pacific/Pago_Pago", -10: "Pacific/Honolulu", -9: "Pacific/Gambier", -8: "Pacific/Pitcairn",
         -7: "America/Phoenix", -6: "America/Regina", -5: "America/Bogota", -4: "America/La_Paz",
         -3: "America/Argentina/Buenos_Aires", -2: "America/Noronha", -1: "Atlantic/Cape_Verde", 0: "Africa/Abidjan",
         1: "Africa/Lagos", 2: "Africa/Johannesburg", 3: "Asia/Riyadh", 4: "Asia/Dubai", 5: "Asia/Karachi",
         6: "Asia/Dhaka", 7: "Asia/Bangkok", 8: "Asia/Shanghai", 9: "Asia/Tokyo", 10: "Australia/Brisbane",
         11: "Pacific/Guadalcanal", 12: "Pacific/Tarawa"}
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def all_day_cafe(root, cafe_id, slot_minutes, capacity, major):
    """Seattle's café document and menu from ROOT/Menus, as café CAFE_ID with windows of
    SLOT_MINUTES taking CAPACITY orders, no lead time, and beacon region major MAJOR."""
    cafe = json.load(open(os.path.join(root, "Menus", "seattle.json")))
    menu = {key: cafe.pop(key) for key in ("dayParts", "categories", "items")}
    offset = (8 - time.gmtime().tm_hour + 11) % 24 - 11  # UTC+offset is about 08:00 now
    cafe.update(id=cafe_id, timeZone=ZONES[offset], hours={day: [{"open": "00:00", "close": "24:00"}] for day in DAYS},
                pickup={"slotMinutes": slot_minutes, "capacity": capacity, "capacityUnit": "orders", "leadMinutes": 0})
    cafe["beaconRegion"]["major"] = major
    return cafe, menu
