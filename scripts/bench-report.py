#!/usr/bin/env python3
"""The benchmark report: one run's figures (JSON lines from the bench programs and scripts, see
scripts/bench-lib.sh and Benchmarks/BenchFigures) become results.json and a readable table, each
figure beside its reference measured in the same run, with the machine it ran on.

    bench-report.py write FIGURES.jsonl OUT_DIR [--load-before "1.2 0.9 0.8"] [--table-in docs/benchmarks.md]
    bench-report.py check BASELINE.json CURRENT.json [--tolerance 0.2]

`check` flags every figure more than 20 % worse than the baseline (lower for higher-is-better,
higher for lower-is-better) and exits 1 when any is; figures missing on either side are listed.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE_START = "<!-- bench-table:start (scripts/bench-report.py writes this table) -->"
TABLE_END = "<!-- bench-table:end -->"


def machine(load_before):
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
                break
    except OSError:
        pass

    def run(*command):
        try:
            return subprocess.run(command, capture_output=True, text=True, cwd=ROOT).stdout.strip()
        except OSError:
            return ""

    return {
        "host": platform.node(), "kernel": platform.release(), "cpu": cpu, "cores": os.cpu_count(), "memory": memory,
        "swift": run("swift", "--version").splitlines()[0] if run("swift", "--version") else "",
        "commit": run("git", "rev-parse", "--short", "HEAD"),
        "loadBefore": load_before, "loadAfter": " ".join(open("/proc/loadavg").read().split()[:3]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def number(value, unit):
    # A share to a tenth of a point: 89.7 % is not written "90 %" beside a ceiling of 90 %.
    if unit in ("ms", "KB", "%"):
        return f"{value:.1f} {unit}"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f} M {unit}"
    if value >= 10_000:
        return f"{value / 1000:.1f} k {unit}"
    return f"{value:,.0f} {unit}"


def table(results):
    figures = {figure["id"]: figure for figure in results["figures"]}
    m = results["machine"]
    lines = [
        f"Run {m['date']} on {m['host']} ({m['cpu']}, {m['cores']} cores, {m['memory']}), commit {m['commit']}; "
        f"load average {m['loadBefore'] or '?'} before, {m['loadAfter']} after. Client and server share the cores.",
        "",
        "| figure | value | reference (same run) | ratio |",
        "|---|---|---|---|",
    ]
    for figure in results["figures"]:
        reference = figures.get(figure.get("reference", ""))
        ref_text, ratio = "", ""
        if reference:
            ref_text = f"{number(reference['value'], reference['unit'])} ({reference['title']})"
            # A share (%) already is its ratio to a reference in other units.
            if reference["value"] and reference["unit"] == figure["unit"]:
                ratio = f"{figure['value'] / reference['value']:.2f}×"
        better = "↓" if figure["better"] == "lower" else ""
        lines.append(f"| {figure['title']} {better}| **{number(figure['value'], figure['unit'])}** | {ref_text} | {ratio} |")
    return "\n".join(lines) + "\n"


def write(arguments):
    figures = []
    seen = set()
    for line in open(arguments.figures):
        line = line.strip()
        if not line:
            continue
        figure = json.loads(line)
        if figure["id"] in seen:  # a phase run twice keeps its first figure
            continue
        seen.add(figure["id"])
        figures.append(figure)
    results = {"machine": machine(arguments.load_before), "figures": figures}
    os.makedirs(arguments.out, exist_ok=True)
    with open(os.path.join(arguments.out, "results.json"), "w") as out:
        json.dump(results, out, indent=2, sort_keys=True, ensure_ascii=False)
        out.write("\n")
    text = table(results)
    with open(os.path.join(arguments.out, "results.md"), "w") as out:
        out.write("# Latest benchmark run (`make bench`)\n\n" + text)
    print(text)
    if arguments.table_in:
        # The page holding the last run's table between the markers (docs/benchmarks.md).
        page = open(arguments.table_in).read()
        if TABLE_START in page and TABLE_END in page:
            before, rest = page.split(TABLE_START, 1)
            _, after = rest.split(TABLE_END, 1)
            with open(arguments.table_in, "w") as out:
                out.write(before + TABLE_START + "\n" + text + TABLE_END + after)
            print(f"(the table in {arguments.table_in} is updated)")
        else:
            print(f"(no table markers in {arguments.table_in}: not updated)", file=sys.stderr)


def check(arguments):
    if not os.path.exists(arguments.baseline):
        print(f"no committed results at {arguments.baseline}: nothing to compare (run `make bench` and commit it)")
        return
    baseline = {f["id"]: f for f in json.load(open(arguments.baseline))["figures"]}
    current = {f["id"]: f for f in json.load(open(arguments.current))["figures"]}
    worse = []
    print(f"{'figure':<28} {'baseline':>14} {'now':>14} {'change':>8}")
    for id_, old in baseline.items():
        new = current.get(id_)
        if new is None:
            print(f"{id_:<28} {old['value']:>14.1f} {'missing':>14}")
            continue
        if not old["value"]:
            continue
        change = new["value"] / old["value"] - 1
        bad = change < -arguments.tolerance if old["better"] == "higher" else change > arguments.tolerance
        flag = "  WORSE" if bad else ""
        print(f"{id_:<28} {old['value']:>14.1f} {new['value']:>14.1f} {change:>+8.0%}{flag}")
        if bad:
            worse.append(id_)
    for id_ in sorted(set(current) - set(baseline)):
        print(f"{id_:<28} {'(new)':>14} {current[id_]['value']:>14.1f}")
    if worse:
        print(f"{len(worse)} figure(s) more than {arguments.tolerance:.0%} worse than {arguments.baseline}: {', '.join(worse)}")
        sys.exit(1)
    print(f"no figure more than {arguments.tolerance:.0%} worse than {arguments.baseline}")


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    w = commands.add_parser("write")
    w.add_argument("figures")
    w.add_argument("out")
    w.add_argument("--load-before", default="")
    w.add_argument("--table-in", "--readme", dest="table_in")
    c = commands.add_parser("check")
    c.add_argument("baseline")
    c.add_argument("current")
    c.add_argument("--tolerance", type=float, default=0.2)
    arguments = parser.parse_args()
    write(arguments) if arguments.command == "write" else check(arguments)


if __name__ == "__main__":
    main()
