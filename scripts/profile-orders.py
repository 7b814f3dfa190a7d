#!/usr/bin/env python3
"""Where a server's CPU goes per durable order, from a `perf record -e cpu-clock` of it.

    scripts/profile-orders.py PERF_DATA ORDERS SECONDS CPU_SECONDS

Prints the server's CPU time per order and its split by library and by the heaviest symbols
(demangled), as the closing note of issue 11 asks: "where each order's microseconds go".
"""
import collections, re, subprocess, sys

data, orders, seconds, cpu_seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym", "--stdio",
                         "--percent-limit", "0", "-g", "none"],
                        capture_output=True, text=True).stdout
rows = []
for line in report.splitlines():
    m = re.match(r"\s+([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
    if m:
        rows.append((float(m.group(1)), m.group(2), m.group(3).strip()))
if not rows or orders <= 0:
    print("profile: no samples"); sys.exit(0)
cpu_us = cpu_seconds * 1e6  # the server's user + system time while the phase ran (/proc)
per_order = cpu_us / orders
def library(dso):
    d = dso.lower()
    for key, name in (("sqlite", "SQLite"), ("foundation", "Foundation/ICU"), ("icu", "Foundation/ICU"),
                      ("kernel", "kernel (syscalls, fsync, network)"), ("libc", "libc"),
                      ("swiftcore", "Swift runtime"), ("swift_concurrency", "Swift concurrency"), ("dispatch", "Dispatch")):
        if key in d: return name
    return "canteen (NIO, Hummingbird, GRDB, Canteen)" if "canteen" in d else dso
by_lib = collections.Counter()
for share, dso, _ in rows: by_lib[library(dso)] += share
print(f"server CPU: {cpu_us / 1e6:.2f} s over {seconds:.0f} s for {orders} orders = {per_order:.0f} µs of CPU per order")
for name, share in by_lib.most_common(8):
    print(f"    {share:5.1f} %  {share / 100 * per_order:6.0f} µs  {name}")
names = [r[2] for r in rows[:15]]
demangled = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True,
                           text=True).stdout.splitlines() or names
print("    heaviest symbols:")
for (share, dso, _), name in zip(rows[:15], demangled):
    print(f"    {share:5.1f} %  {name[:110]}  ({dso})")
