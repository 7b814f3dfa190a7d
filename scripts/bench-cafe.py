#!/usr/bin/env python3
"""Writes the benchmark café to DIR/cafe.json and DIR/menu.json (scripts/bench-server.sh,
scripts/count-instructions.sh).

    scripts/bench-cafe.py DIR

Seattle's menu, open 00:00–24:00 every day, 60-minute windows of 100,000 orders (the most a café
may take) and no lead time, in the fixed-offset zone where it is now about 08:00, so that "asap"
always finds a window today with room.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from all_day_cafe import all_day_cafe

work = sys.argv[1]
cafe, menu = all_day_cafe(".", "bench", slot_minutes=60, capacity=100000, major=999)
json.dump(cafe, open(f"{work}/cafe.json", "w"))
json.dump(menu, open(f"{work}/menu.json", "w"))
