#!/usr/bin/env bash
# Benchmarks iBeacon parsing: Canteen's parse → iBeacon → ranging (beacon-bench, release build)
# against Python's beacontools parser on the same generated capture, in the same run.
#
#   scripts/bench-beacons.sh [REPORTS]        (default 1000000)
#
# beacontools is installed from PyPI into a throwaway virtualenv (.build-bench-venv). It gets the
# work its own BeaconScanner does per packet (address, RSSI, parse_packet) but no ranging; as it
# is far slower it runs on the first 100000 events and its rate is extrapolated from those.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

reports="${1:-1000000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
capture="$work/bench.btsnoop"

if ! swift build -c release --product beacon-bench >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    exit 1
fi
swift_output="$(.build/release/beacon-bench --reports "$reports" --write "$capture")"
echo "$swift_output"
swift_rate="$(echo "$swift_output" | sed -n 's/^beacon-bench: median \([0-9]*\) reports.*/\1/p')"

venv=".build-bench-venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check "beacontools==2.1.0"

python_rate="$("$venv/bin/python" - "$capture" <<'PY'
import struct, sys, time
from beacontools import parse_packet
from beacontools.packet_types import IBeaconAdvertisement
from beacontools.utils import bt_addr_to_string, bin_to_int

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"btsnoop\0"
events = []
offset = 16
while offset + 24 <= len(data) and len(events) < 100_000:
    _, included, flags, _, _ = struct.unpack(">IIIIq", data[offset:offset + 24])
    if flags & 0xFFFF == 3:  # monitor datalink: event
        events.append(b"\x04" + data[offset + 24:offset + 24 + included])
    offset += 24 + included

start = time.process_time()
found = 0
for pkt in events:
    # What beacontools' BeaconScanner.process_packet does with a legacy report event.
    bt_addr = bt_addr_to_string(pkt[7:13])
    rssi = bin_to_int(pkt[-1])
    packet = parse_packet(pkt[14:-1])
    if isinstance(packet, IBeaconAdvertisement):
        found += packet.major >= 0
elapsed = time.process_time() - start
print(f"{len(events) / elapsed:.0f}")
print(f"beacontools: {len(events)} reports ({found} iBeacons) in {elapsed:.2f} s cpu", file=sys.stderr)
PY
)"
echo "beacontools 2.1.0: ${python_rate} reports/s (address, RSSI, parse_packet; no ranging)"
figure beacontools_reports "$python_rate" reports/s higher "Python beacontools 2.1.0: address, RSSI, parse_packet (parsing only)"
if [ -n "$swift_rate" ] && [ -n "$python_rate" ]; then
    python3 -c "print(f'ratio: Canteen is {int(\"$swift_rate\") / float(\"$python_rate\"):.0f}x beacontools ({int(\"$swift_rate\"):,} vs {float(\"$python_rate\"):,.0f} reports/s)')"
fi
