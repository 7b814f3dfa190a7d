#!/usr/bin/env python3
"""Splits a callgrind dump's instructions per unit of work, by library and by function.

    scripts/callgrind-split.py CALLGRIND_OUT UNITS UNIT_NAME [--top N]

Prints the instructions (Ir) per unit, split by library (the ELF object that executed them,
exclusive cost), the heaviest functions (demangled), and how many allocations per unit were
made (calls to malloc and to the Swift runtime's swift_allocObject).
"""
import collections, re, subprocess, sys

path, units, unit = sys.argv[1], int(sys.argv[2]), sys.argv[3]
top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25

names = {"ob": {}, "fn": {}, "fl": {}}
def name(kind, text):
    """`(12) name` defines id 12; `(12)` refers to it; a bare name has no id."""
    table = names[kind]
    m = re.match(r"\((\d+)\)\s*(.*)", text)
    if not m:
        return text
    if m.group(2):
        table[m.group(1)] = m.group(2)
    return table.get(m.group(1), "?")

self_cost = collections.Counter()      # (object, function) → Ir
calls_to = collections.Counter()       # function → calls
ob = fn = "?"
cob = None
cfn = None
skip_next = False
total = 0
with open(path, errors="replace") as f:
    for line in f:
        if not line or line[0] == "\n":
            continue
        c = line[0]
        if c.isdigit() or c in "+-*":
            if skip_next:                  # the inclusive cost of a call: not this function's own
                skip_next = False
                continue
            parts = line.split()
            if len(parts) >= 2:
                ir = int(parts[1])
                self_cost[(ob, fn)] += ir
                total += ir
            continue
        key, _, value = line.rstrip("\n").partition("=")
        if key == "ob":
            ob = name("ob", value)
        elif key == "fn":
            fn = name("fn", value)
            cob = None
        elif key == "cob":
            cob = name("ob", value)
        elif key == "cfn":
            cfn = name("fn", value)
        elif key in ("fl", "fi", "fe", "cfl", "cfi"):
            name("fl", value)
        elif key == "calls":
            calls_to[cfn] += int(value.split()[0])
            skip_next = True

def library(obj):
    o = obj.lower()
    for key, label in (("sqlite", "SQLite"), ("libfoundation", "Foundation"), ("icu", "ICU"),
                       ("libswiftcore", "Swift runtime"), ("swift_concurrency", "Swift concurrency"),
                       ("dispatch", "Dispatch"), ("libc.so", "libc"), ("ld-linux", "ld.so"),
                       ("libstdc++", "libstdc++"), ("vgpreload", "valgrind preload (malloc)")):
        if key in o:
            return label
    return "canteen (NIO, Hummingbird, GRDB, Canteen)" if o.endswith("/canteen") else obj.rsplit("/", 1)[-1]

per = lambda x: x / units
print(f"{total:,} instructions for {units} {unit}s = {per(total):,.0f} per {unit}")
by_lib = collections.Counter()
for (obj, _), ir in self_cost.items():
    by_lib[library(obj)] += ir
for label, ir in by_lib.most_common(10):
    print(f"    {100 * ir / total:5.1f} %  {per(ir):10,.0f}  {label}")
def module(fn):
    """The Swift module of a mangled symbol (`$s7NIOCore…` → NIOCore); C symbols keep "C"."""
    m = re.match(r"\$s(\d+)", fn)
    if m:
        n = int(m.group(1))
        start = m.end()
        return fn[start:start + n]
    return "Swift (stdlib, specialized)" if fn.startswith("$s") else "C (SQLite shim, BoringSSL, …)"
by_module = collections.Counter()
for (obj, fn), ir in self_cost.items():
    if library(obj).startswith("canteen"):
        by_module[module(fn)] += ir
print(f"    the canteen binary's own instructions by Swift module:")
for label, ir in by_module.most_common(12):
    print(f"        {100 * ir / total:5.1f} %  {per(ir):10,.0f}  {label}")
allocs = {k: calls_to[k] for k in ("malloc", "swift_allocObject", "swift_slowAlloc", "free", "swift_retain",
                                   "swift_release", "swift_task_switch", "swift_task_create",
                                   "swift_continuation_resume", "swift_job_run")}
print(f"    per {unit}: " + ", ".join(f"{k} {per(v):,.1f}" for k, v in allocs.items()))
rows = self_cost.most_common(top)
demangled = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(fn for (_, fn), _ in rows),
                           capture_output=True, text=True).stdout.splitlines()
if len(demangled) != len(rows):
    demangled = [fn for (_, fn), _ in rows]
print("    heaviest functions (own instructions):")
for ((obj, _), ir), text in zip(rows, demangled):
    print(f"    {100 * ir / total:5.1f} %  {per(ir):9,.0f}  {text[:110]}  ({library(obj)})")
