#!/usr/bin/env python3
"""Judges what the BlueZ emulator VM (init.sh) wrote to /out, from the host.

    check.py OUT_DIR PATH/TO/canteen

Prints one PASS or FAIL line per check and exits 1 if any failed. Standard library only.
"""
import json
import os
import re
import socket
import struct
import subprocess
import sys
from collections import Counter

OUT, CANTEEN = sys.argv[1], sys.argv[2]
UUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
INJECTED = "C0:FF:EE:00:00:03"
# Exit statuses documented in docs/beacons.md and docs/bluetooth.md.
EXIT_UNAVAILABLE = 69
EXIT_FAILURE = 1
EXIT_NOPERM = 77
# HCI opcodes.
LE_SET_EXT_SCAN_PARAMETERS, LE_SET_EXT_SCAN_ENABLE, LE_SET_SCAN_ENABLE = 0x2041, 0x2042, 0x200C
READ_LOCAL_VERSION = 0x1001

failures = 0


def check(name, ok, detail=""):
    global failures
    print(("PASS" if ok else "FAIL") + ": " + name + ("" if ok or not detail else " (" + detail + ")"))
    if not ok:
        failures += 1
    return ok


def read(name):
    path = os.path.join(OUT, name)
    return open(path, encoding="utf-8", errors="replace").read() if os.path.exists(path) else ""


def status(name):
    text = read(name + ".status").strip()
    return int(text) if text.isdigit() else None


def last_line(text):
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def sightings(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def without_time(items):
    return Counter(json.dumps({k: v for k, v in s.items() if k != "time"}, sort_keys=True) for s in items)


def btsnoop(path):
    """(datalink, [(flags, microseconds since 2000-01-01 in the capture's clock, payload)])."""
    data = open(path, "rb").read()
    if data[:8] != b"btsnoop\0":
        raise ValueError(path + " is not a btsnoop file")
    datalink = struct.unpack(">I", data[12:16])[0]
    records, offset = [], 16
    while offset + 24 <= len(data):
        _, included, flags, _, stamp = struct.unpack(">IIIIq", data[offset:offset + 24])
        records.append((flags, stamp, data[offset + 24:offset + 24 + included]))
        offset += 24 + included
    return datalink, records


def unix_seconds(btsnoop_stamp):
    return (btsnoop_stamp - 0x00DCDDB30F2F8000) / 1e6


steps = read("steps.log")
print("VM steps: " + " | ".join(steps.splitlines()))
check("the VM ran every step", "finished" in steps and "FAIL" not in steps, "".join(steps.strip().splitlines()[-1:]))

# --- 1. What the scanner printed -------------------------------------------------------------
addresses = dict(line.split() for line in read("addresses.txt").splitlines() if len(line.split()) == 2)
scan_stderr = read("scan.stderr")
seen = sightings(read("scan.jsonl"))
check("scan 1 used the extended scanning commands (the emulator's bitmap has them)",
      "scanning (extended commands, active)" in scan_stderr, scan_stderr.strip())
check("scan 1 exited with status 0 after SIGTERM", status("scan") == 0, "status %s" % status("scan"))
check("scan 1 said it stopped", last_line(scan_stderr) == "scanning stopped", scan_stderr.strip())

expected = Counter()
for address, minor, power, rssi, count in [
    (addresses.get("hci1", "?"), 1, -59, None, 3),   # hci1 enabled advertising three times
    (addresses.get("hci2", "?"), 2, -65, None, 2),   # hci2 twice
    (INJECTED, 3, -61, -58, 1),                      # the injected legacy report
    (INJECTED, 3, -61, -71, 1),                      # the injected extended report
]:
    expected[json.dumps({"address": address, "uuid": UUID, "major": 7, "minor": minor, "txPower": power,
                         "rssi": rssi}, sort_keys=True)] = count
got = without_time(seen)
for key, count in expected.items():
    s = json.loads(key)
    what = "beacon %s/%d/%d from %s, measured power %d, RSSI %s" % (
        s["uuid"], s["major"], s["minor"], s["address"], s["txPower"], "null" if s["rssi"] is None else s["rssi"])
    check("scan 1 saw %s, %d time(s)" % (what, count), got[key] == count, "seen %d times" % got[key])
check("scan 1 saw nothing else", not (got - expected), str(list((got - expected).elements())))
check("every JSON line has time, address, uuid, major, minor, txPower, rssi in that order",
      all(list(s.keys()) == ["time", "address", "uuid", "major", "minor", "txPower", "rssi"] for s in seen) and seen)

# --- 2. The recording replays to the same sightings -------------------------------------------
replay = subprocess.run([CANTEEN, "beacons", "replay", os.path.join(OUT, "scan.btsnoop")],
                        capture_output=True, text=True)
check("canteen beacons replay of the --record file exits 0", replay.returncode == 0, replay.stderr.strip())
check("the recording replays to the same lines, times included",
      replay.stdout.splitlines() == read("scan.jsonl").splitlines(),
      "replay %d lines, scan %d lines" % (len(replay.stdout.splitlines()), len(read("scan.jsonl").splitlines())))
datalink, _ = btsnoop(os.path.join(OUT, "scan.btsnoop"))
check("the recording is btsnoop datalink 1002 (H4)", datalink == 1002, str(datalink))
monitor_replay = subprocess.run([CANTEEN, "beacons", "replay", os.path.join(OUT, "btmon.btsnoop")],
                                capture_output=True, text=True)
check("btmon's own capture of the VM holds the same sightings",
      monitor_replay.returncode == 0 and without_time(sightings(monitor_replay.stdout)) == got,
      monitor_replay.stderr.strip())

# --- 3. SIGTERM: scanning disabled, filter restored -------------------------------------------
datalink, records = btsnoop(os.path.join(OUT, "btmon.btsnoop"))
check("btmon wrote datalink 2001 (Linux monitor)", datalink == 2001, str(datalink))
marker = None  # the last Read Local Version Information on hci2: init.sh sends it right before SIGTERM
scan_enables = []  # (time, enable, opcode) of the commands on hci0
scan_parameters = []  # times of LE Set Extended Scan Parameters on hci0 (a scan starting)
completes = {}  # time of command -> status of its Command Complete
pending = None
for flags, stamp, payload in records:
    index, opcode = flags >> 16, flags & 0xFFFF
    if opcode == 2 and len(payload) >= 3:  # command
        command = payload[0] | payload[1] << 8
        if index == 2 and command == READ_LOCAL_VERSION:
            marker = stamp
        if index == 0 and command == LE_SET_EXT_SCAN_PARAMETERS:
            scan_parameters.append(stamp)
        if index == 0 and command in (LE_SET_EXT_SCAN_ENABLE, LE_SET_SCAN_ENABLE) and len(payload) >= 4:
            scan_enables.append((stamp, payload[3], command))
            pending = (stamp, command)
    elif opcode == 3 and index == 0 and len(payload) >= 6 and payload[0] == 0x0E and pending:  # Command Complete
        if payload[3] | payload[4] << 8 == pending[1]:
            completes[pending[0]] = payload[5]
            pending = None
check("the capture has the SIGTERM marker", marker is not None)
before = [e for e in scan_enables if marker is not None and e[0] < marker]
# Between SIGTERM and the next scan's first command, scan 1 must have disabled scanning itself.
next_scan = min([t for t in scan_parameters if marker is not None and t > marker], default=float("inf"))
after = [e for e in scan_enables if marker is not None and marker < e[0] < next_scan]
check("scan 1 enabled extended scanning on hci0 before SIGTERM",
      any(e[1] == 1 and e[2] == LE_SET_EXT_SCAN_ENABLE and completes.get(e[0]) == 0 for e in before), str(before))
disable = after[0] if after else None
check("after SIGTERM, before any other scan, scan 1 disabled scanning on hci0 (Command Complete, success)",
      disable is not None and disable[1] == 0 and completes.get(disable[0]) == 0, str(after[:1]))

strace = read("strace.txt")
calls = []  # (time, call, bytes, result) of the HCI socket's filter
hci_sockets = set()
for line in strace.splitlines():
    match = re.match(r"\d+\s+[\d.]+ socket\(AF_BLUETOOTH, SOCK_RAW\S*, BTPROTO_HCI\) = (\d+)", line)
    if match:
        hci_sockets.add(match.group(1))
    # SOL_HCI and HCI_FILTER are 0 and 2: strace 6.1 names them as SOL_IP and IP_TTL.
    match = re.match(r"\d+\s+([\d.]+) (getsockopt|setsockopt)\((\d+), (?:SOL_HCI, HCI_FILTER|SOL_IP, IP_TTL), "
                     r"\"([^\"]*)\"[^)]*\) = (-?\d+)", line)
    if match and match.group(3) in hci_sockets:
        calls.append((float(match.group(1)), match.group(2), match.group(4), int(match.group(5))))
check("strace saw the scanner's filter calls on its raw HCI socket", bool(calls), strace.strip()[:2000])
reads = [c for c in calls if c[1] == "getsockopt"]
writes = [c for c in calls if c[1] == "setsockopt"]
check("strace saw the scanner read its socket's HCI filter once and write it twice", len(reads) == 1 and len(writes) == 2,
      "%d reads, %d writes: %s" % (len(reads), len(writes), strace.strip()[:2000]))
if len(reads) == 1 and len(writes) == 2:
    previous, scanning, restored = reads[0][2], writes[0][2], writes[1][2]
    check("the scanning filter differs from the socket's previous one", scanning != previous, previous)
    check("on SIGTERM the scanner wrote the previous filter back", restored == previous and writes[1][3] == 0,
          "%s, was %s" % (restored, previous))
    if disable is not None:
        check("the filter was restored after scanning was disabled",
              writes[1][0] > unix_seconds(disable[0]), "%.6f vs %.6f" % (writes[1][0], unix_seconds(disable[0])))

scan2 = read("scan2.stderr")
check("a second scan started cleanly after scan 1's SIGTERM", "scanning (extended commands" in scan2, scan2.strip())
check("scan 2 was killed with SIGKILL (status 137)", status("scan2") == 137, "status %s" % status("scan2"))
scan3 = read("scan3.stderr")
check("after that SIGKILL scanning stayed enabled: scan 3 fails with command_failed, HCI status 0x0C, exit 1",
      status("scan3") == EXIT_FAILURE and not any(line.startswith("scanning") for line in scan3.splitlines())
      and last_line(scan3).startswith("error: LE Set Extended Scan Parameters failed with HCI status 0x0C")
      and last_line(scan3).endswith("[command_failed]"),
      "status %s: %s" % (status("scan3"), scan3.strip()))
scan4 = read("scan4.stderr")
check("once disabled by hand, scan 4 started and SIGINT stopped it with status 0",
      "scanning (extended commands" in scan4 and "scanning stopped" in scan4 and status("scan4") == 0,
      "status %s: %s" % (status("scan4"), scan4.strip()))

# --- 4. Documented errors ---------------------------------------------------------------------
down = read("down.stderr")
check("a controller that is down: adapter_down, how to power it on, exit %d" % EXIT_UNAVAILABLE,
      status("down") == EXIT_UNAVAILABLE and last_line(down) == "error: adapter hci2 is down: power it on with "
      "`sudo btmgmt --index 2 power on` (or `sudo hciconfig hci2 up`) [adapter_down]",
      "status %s: %s" % (status("down"), down.strip()))
missing = read("missing.stderr")
check("a controller that does not exist: no_adapter naming the adapters there are, exit %d" % EXIT_UNAVAILABLE,
      status("missing") == EXIT_UNAVAILABLE and last_line(missing) == "error: no Bluetooth adapter named hci7 "
      "(adapters here: hci0, hci1, hci2 (down); see `btmgmt info` or `hciconfig`) [no_adapter]",
      "status %s: %s" % (status("missing"), missing.strip()))

unprivileged = read("unprivileged.stderr")
check("a user without the capabilities: not_permitted with the setcap line, exit %d" % EXIT_NOPERM,
      status("unprivileged") == EXIT_NOPERM and last_line(unprivileged) == "error: sending HCI commands needs "
      "CAP_NET_RAW and CAP_NET_ADMIN: run as root, or grant the binary the capabilities: "
      "sudo setcap cap_net_raw,cap_net_admin+eip \"$(command -v canteen)\" [not_permitted]",
      "status %s: %s" % (status("unprivileged"), unprivileged.strip()))
check("no error printed a sighting",
      all(read(name + ".jsonl") == "" for name in ("down", "missing", "unprivileged")))

try:
    socket.socket(31, socket.SOCK_RAW, 1).close()  # AF_BLUETOOTH, BTPROTO_HCI (Debian's Python lacks the names)
    host_has_bluetooth = True
except OSError:
    host_has_bluetooth = False
if host_has_bluetooth:
    print("SKIP: bluetooth_unavailable (this host's kernel has Bluetooth)")
else:
    host = subprocess.run([CANTEEN, "beacons", "scan", "--data-dir", "/nonexistent", "--device", "hci0",
                           "--format", "jsonl"], capture_output=True, text=True, timeout=60)
    check("on this host (no Bluetooth in its kernel): bluetooth_unavailable, exit %d" % EXIT_UNAVAILABLE,
          host.returncode == EXIT_UNAVAILABLE and host.stderr.strip().endswith("[bluetooth_unavailable]"),
          "status %d: %s" % (host.returncode, host.stderr.strip()))

print("test-bluez: %s" % ("PASS" if failures == 0 else "FAIL (%d checks failed)" % failures))
sys.exit(1 if failures else 0)
