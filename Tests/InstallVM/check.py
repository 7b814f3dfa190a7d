#!/usr/bin/env python3
"""Drives the Debian 12 VM of `make test-install` from the host and judges it (Tests/InstallVM/run.sh
boots it). Standard library only.

    check.py --ssh PORT --http PORT --key FILE --deb FILE --transcript FILE

Over ssh as root: installs the package with apt, then checks, each as one PASS or FAIL line, that
the service runs as it should, answers /healthz and /readyz through the forwarded port, keeps an
order across a restart and a reboot, stops within 2 s on SIGTERM keeping every order acknowledged
before, scores 2.5 or lower in `systemd-analyze security`, and that `apt remove` keeps the data
while `apt purge` removes it and the user. The commands run and their output go to the transcript
(the README's "Install on a server" is copied from it). Exits 1 if any check failed.
"""
import argparse
import http.client
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from all_day_cafe import all_day_cafe  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--ssh", type=int, required=True)
parser.add_argument("--http", type=int, required=True)
parser.add_argument("--key", required=True)
parser.add_argument("--deb", required=True)
parser.add_argument("--transcript", required=True)
args = parser.parse_args()

STARTED = time.time()
failures = 0
transcript = open(args.transcript, "w", encoding="utf-8")
DEB = os.path.basename(args.deb)


def log(message):
    print(f"test-install: {message} ({time.time() - STARTED:.0f} s)", flush=True)


def check(name, ok, detail=""):
    global failures
    print(("PASS" if ok else "FAIL") + ": " + name + ("" if ok or not detail else f" ({detail})"), flush=True)
    if not ok:
        failures += 1
    return ok


def ssh(command, timeout=300, record=True, check_status=True):
    """Runs COMMAND as root in the VM; returns (status, output). Recorded in the transcript as
    `$ command` and its output."""
    result = subprocess.run(
        ["ssh", "-i", args.key, "-p", str(args.ssh), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
         "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10", "-o", "BatchMode=yes", "root@127.0.0.1", command],
        capture_output=True, text=True, timeout=timeout)
    output = result.stdout + result.stderr
    if record:
        transcript.write(f"$ {command}\n{output}")
        if result.returncode != 0:
            transcript.write(f"[exit status {result.returncode}]\n")
        transcript.flush()
    if check_status and result.returncode != 0:
        log(f"`{command}` exited with {result.returncode}: {output.strip()[-2000:]}")
    return result.returncode, output


def wait_for_ssh(seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            status, _ = ssh("true", timeout=20, record=False, check_status=False)
            if status == 0:
                return True
        except subprocess.TimeoutExpired:
            pass
        time.sleep(2)
    return False


def wait_until(command, expected, seconds):
    """Runs COMMAND in the VM until its output (stripped) is EXPECTED; returns the last output."""
    deadline = time.time() + seconds
    output = ""
    while time.time() < deadline:
        _, output = ssh(command, record=False, check_status=False)
        if output.strip() == expected:
            return output.strip()
        time.sleep(1)
    return output.strip()


def request(method, path, token=None, body=None, headers=None, timeout=30):
    """One HTTP request to the VM's Canteen through the forwarded port: (status, headers, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", args.http, timeout=timeout)
    try:
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        connection.request(method, path, body=payload, headers=sent)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def wait_for_http(path, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            status, _, body = request("GET", path, timeout=5)
            if status == 200:
                return status, body
        except OSError:
            pass
        time.sleep(0.5)
    try:
        status, _, body = request("GET", path, timeout=5)
        return status, body
    except OSError as error:
        return None, str(error)


# --- Boot ---
log("waiting for the VM's ssh")
if not check("the Debian 12 VM boots and answers ssh", wait_for_ssh(240)):
    sys.exit(1)
log("VM up")
ssh("grep PRETTY_NAME /etc/os-release; uname -r; systemctl is-system-running --wait", timeout=120, check_status=False)

# --- Install ---
subprocess.run(["scp", "-i", args.key, "-P", str(args.ssh), "-o", "StrictHostKeyChecking=no", "-o",
                "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", args.deb, "root@127.0.0.1:/root/"], check=True)
status, output = ssh(f"cd /root && DEBIAN_FRONTEND=noninteractive apt install -y ./{DEB}", timeout=300)
check("`apt install ./canteen_….deb` installs it, dependencies resolved by apt", status == 0, output[-800:])
log("installed")
_, depends = ssh("dpkg-query -W -f='${Depends}\\n' canteen")
check("the package depends on the libraries it links (libsqlite3-0, libc6, …) and not on libcurl",
      "libsqlite3-0" in depends and "libc6" in depends and "libcurl" not in depends, depends.strip())
state = wait_until("systemctl is-active canteen", "active", 60)
check("the install started canteen.service", state == "active", state)
_, enabled = ssh("systemctl is-enabled canteen")
check("canteen.service is enabled at boot", enabled.strip() == "enabled", enabled.strip())
_, owner = ssh("stat -c '%U %G %a' /var/lib/canteen; ps -o user= -C canteen")
check("it runs as the canteen system user, data in /var/lib/canteen (its own, 700)",
      owner.split() == ["canteen", "canteen", "700", "canteen"], owner.strip())
_, conffiles = ssh("dpkg-query -W -f='${Conffiles}\\n' canteen; ls /usr/share/canteen/Menus /usr/share/canteen/Locales")
check("/etc/default/canteen is a conffile; the sample menus and locales are in /usr/share/canteen",
      "/etc/default/canteen" in conffiles and "chicago.json" in conffiles and "en.json" in conffiles, conffiles)
_, mode = ssh("stat -c '%a %U' /etc/default/canteen")
check("/etc/default/canteen is readable by root only (it may hold the sign-in's client secret)",
      mode.strip() == "600 root", mode.strip())
_, local = ssh("curl -s 127.0.0.1:8080/healthz; echo; curl -s 127.0.0.1:8080/readyz; echo")
check("inside the VM, /healthz and /readyz answer on 127.0.0.1:8080 (the default)",
      '"status":"ok"' in local and '"status":"ready"' in local, local)
_, journal = ssh("journalctl -u canteen --no-pager -o cat | head -n 20")
check("the service found its sample menus without flags (imported from /usr/share/canteen/Menus)",
      "/usr/share/canteen/Menus" in journal, journal[-600:])

# --- From the host, through the forwarded port ---
ssh("sed -i 's/^CANTEEN_HOST=.*/CANTEEN_HOST=0.0.0.0/' /etc/default/canteen && systemctl restart canteen")
status, body = wait_for_http("/healthz", 60)
check("/healthz answers 200 from the host through the forwarded port", status == 200 and '"ok"' in body, f"{status} {body}")
status, body = wait_for_http("/readyz", 30)
check("/readyz answers 200 ready from the host", status == 200 and '"ready"' in body, f"{status} {body}")
transcript.write(f"$ curl -s http://VM:8080/readyz\n{body}\n")
pages = {}
for path in ("/kds", "/kiosk", "/board", "/app", "/assets/canteen.js"):
    try:
        status, headers, payload = request("GET", path)
    except OSError as error:
        status, headers, payload = None, {}, str(error)
    pages[path] = (status, headers.get("Content-Type", ""), len(payload))
check("the pages and their files are served by the installed binary (/usr/share/canteen/Assets)",
      all(status == 200 and ("html" in kind or "javascript" in kind) and size > 200
          for status, kind, size in pages.values()), str(pages))

# --- An order ---
_, ops = ssh("sudo -u canteen canteen tokens create --role ops --name 'test-install' --data-dir /var/lib/canteen",
             record=False)
ops = ops.strip().splitlines()[-1] if ops.strip() else ""
_, kiosk = ssh("sudo -u canteen canteen tokens create --role kiosk --data-dir /var/lib/canteen", record=False)
kiosk = kiosk.strip().splitlines()[-1] if kiosk.strip() else ""
cafe, menu = all_day_cafe(ROOT, "vm", slot_minutes=60, capacity=100000, major=901)
cafe["beacons"] = []
for path, document in (("/v1/cafes/vm", cafe), ("/v1/cafes/vm/menu", menu)):
    status, _, payload = request("PUT", path, ops, document)
    check(f"ops configure an all-day café (PUT {path})", status in (200, 201), f"{status} {payload[:300]}")
items = [item["id"] for item in menu["items"] if not item.get("dayParts") and not item.get("modifierGroups")]


def place(name):
    status, _, payload = request("POST", "/v1/orders", kiosk, {
        "cafeId": "vm", "lines": [{"itemId": items[0], "quantity": 1}], "pickup": "asap",
        "customer": {"name": name}}, headers={"Idempotency-Key": str(uuid.uuid4())})
    return status, (json.loads(payload) if status == 201 else payload)


status, order = place("Ada")
check("an order placed from the host is acknowledged (201)", status == 201, str(order)[:300])
order_id = order["id"] if status == 201 else "none"


def order_kept(label):
    status, _, payload = request("GET", f"/v1/orders/{order_id}", kiosk)
    check(f"the order is still there after {label}", status == 200 and order_id in payload, f"{status} {payload[:200]}")


ssh("systemctl restart canteen")
wait_for_http("/readyz", 60)
order_kept("`systemctl restart canteen`")

# --- SIGTERM while orders arrive ---
acknowledged = []
stop_placing = threading.Event()


def keep_ordering():
    number = 0
    while not stop_placing.is_set():
        number += 1
        try:
            status, placed = place(f"stop-{number}")
            if status == 201:
                acknowledged.append(placed["id"])
        except OSError:
            time.sleep(0.05)


placer = threading.Thread(target=keep_ordering, daemon=True)
placer.start()
time.sleep(2)
_, stopped = ssh("before=$(date +%s%N); systemctl stop canteen; after=$(date +%s%N); "
                 "echo stopped in $(( (after - before) / 1000000 )) ms; "
                 "systemctl show canteen -p Result -p ExecMainCode -p ExecMainStatus")
stop_placing.set()
placer.join(30)
match = re.search(r"stopped in (\d+) ms", stopped)
milliseconds = int(match.group(1)) if match else 10 ** 9
check("`systemctl stop` (SIGTERM) ends the service within 2 s, cleanly, while orders arrive",
      milliseconds <= 2000 and "Result=success" in stopped, stopped.strip())
ssh("systemctl start canteen")
wait_for_http("/readyz", 60)
missing = [identifier for identifier in acknowledged if request("GET", f"/v1/orders/{identifier}", kiosk)[0] != 200]
check(f"every order acknowledged before the stop is kept ({len(acknowledged)} orders)",
      len(acknowledged) > 0 and not missing, f"{len(missing)} missing: {missing[:5]}")

# --- The sandbox ---
_, security = ssh("systemd-analyze security canteen.service | tail -n 1")
match = re.search(r"Overall exposure level for canteen.service: ([0-9.]+)", security)
score = float(match.group(1)) if match else 99
check("`systemd-analyze security canteen.service` scores 2.5 or lower", score <= 2.5, security.strip())

# --- A reboot ---
log("rebooting the VM")
ssh("systemctl reboot", check_status=False, record=False)
time.sleep(5)
rebooted = wait_for_ssh(240)
check("the VM comes back after a reboot", rebooted)
log("VM back")
state = wait_until("systemctl is-active canteen", "active", 90)
check("canteen.service starts at boot", state == "active", state)
status, body = wait_for_http("/readyz", 60)
check("/readyz answers 200 after the reboot", status == 200, f"{status} {body}")
order_kept("a reboot of the VM")

# --- remove, then purge ---
status, output = ssh("DEBIAN_FRONTEND=noninteractive apt remove -y canteen")
check("`apt remove canteen` succeeds", status == 0, output[-500:])
_, after = ssh("systemctl is-active canteen; ls /var/lib/canteen; getent passwd canteen | cut -d: -f1; "
               "ls /etc/default/canteen; ls /usr/bin/canteen", check_status=False)
check("`apt remove` stops the service and keeps the data, the user and the settings",
      after.startswith("inactive") and "canteen.sqlite" in after and "\ncanteen\n" in after
      and "/etc/default/canteen" in after and "No such file" in after, after)
status, output = ssh("DEBIAN_FRONTEND=noninteractive apt purge -y canteen")
check("`apt purge canteen` succeeds", status == 0, output[-500:])
_, gone = ssh("ls -d /var/lib/canteen /etc/default/canteen 2>&1; getent passwd canteen || echo no user; "
              "getent group canteen || echo no group", check_status=False)
check("`apt purge` removes the data, the settings, the user and its group",
      gone.count("No such file") == 2 and "no user" in gone and "no group" in gone, gone)

ssh("systemctl poweroff", check_status=False, record=False)
log("done")
sys.exit(1 if failures else 0)
