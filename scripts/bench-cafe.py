#!/usr/bin/env python3
"""Writes the benchmark café to DIR/cafe.json and DIR/menu.json (scripts/bench-server.sh,
scripts/count-instructions.sh).

    scripts/bench-cafe.py DIR

Seattle's menu, open 00:00–24:00 every day, 60-minute windows of 100,000 orders (the most a café
may take) and no lead time, in the fixed-offset zone where it is now about 08:00, so that "asap"
always finds a window today with room.
"""
import json, sys, time

work = sys.argv[1]
cafe = json.load(open("Menus/seattle.json"))
menu = {key: cafe.pop(key) for key in ("dayParts", "categories", "items")}
# Zones without daylight saving time, by UTC offset (the server takes IANA city zones only).
zones = {-11: "Pacific/Pago_Pago", -10: "Pacific/Honolulu", -9: "Pacific/Gambier", -8: "Pacific/Pitcairn",
         -7: "America/Phoenix", -6: "America/Regina", -5: "America/Bogota", -4: "America/La_Paz",
         -3: "America/Argentina/Buenos_Aires", -2: "America/Noronha", -1: "Atlantic/Cape_Verde", 0: "Africa/Abidjan",
         1: "Africa/Lagos", 2: "Africa/Johannesburg", 3: "Asia/Riyadh", 4: "Asia/Dubai", 5: "Asia/Karachi",
         6: "Asia/Dhaka", 7: "Asia/Bangkok", 8: "Asia/Shanghai", 9: "Asia/Tokyo", 10: "Australia/Brisbane",
         11: "Pacific/Guadalcanal", 12: "Pacific/Tarawa"}
offset = (8 - time.gmtime().tm_hour + 11) % 24 - 11          # UTC+offset is about 08:00 now
cafe.update(id="bench", timeZone=zones[offset],
            hours={day: [{"open": "00:00", "close": "24:00"}] for day in
                   ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")},
            pickup={"slotMinutes": 60, "capacity": 100000, "capacityUnit": "orders", "leadMinutes": 0})
cafe["beaconRegion"]["major"] = 999
json.dump(cafe, open(f"{work}/cafe.json", "w"))
json.dump(menu, open(f"{work}/menu.json", "w"))
