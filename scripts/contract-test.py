#!/usr/bin/env python3
"""Contract fuzzing: schemathesis (pinned in requirements-test.txt) against a live `canteen serve`
with a token of each role, and without one, over every operation of openapi.yaml.

Checks: all of schemathesis's (`--checks all`: no 5xx; statuses, headers, content types and
bodies the document has; data it forbids refused with a 4xx and data it allows accepted, see
schemathesis.toml; 405 with Allow for undocumented methods; ...) and Canteen's own
(contract_checks.py: every error in the `{"error": {...}}` shape, no token in any answer, valid
data refused only for what the server holds). Afterwards the server's own log (debug level, the
whole run) must hold no token secret and no Authorization value. Bounded: --examples cases per
operation and phase, a fixed seed.

    scripts/contract-test.py --bin .build/debug/canteen [--examples 12] [--seed 1604]
"""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Every check schemathesis has (`all`: the data the document allows is accepted and what it
# forbids refused, 405 with Allow for undocumented methods, conformance of statuses, headers, types
# and bodies, ...) and Canteen's own (contract_checks.py).
CHECKS = "all"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def token(binary, data, *arguments):
    return subprocess.run([binary, "tokens", "create", "--data-dir", data, *arguments], check=True,
                          capture_output=True, text=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--examples", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1604)
    parser.add_argument("--keep", action="store_true", help="keep the data dir, log and reports")
    arguments = parser.parse_args()
    venv_bin = os.path.dirname(sys.executable)
    schemathesis = os.path.join(venv_bin, "schemathesis")

    work = tempfile.mkdtemp(prefix="canteen-contract-")
    data = os.path.join(work, "data")
    log_path = os.path.join(work, "server.log")
    subprocess.run([arguments.bin, "menus", "import", os.path.join(ROOT, "Menus"), "--data-dir", data], check=True,
                   capture_output=True)
    # Ops runs last: its requests delete cafés and revoke tokens (it finds their ids in answers).
    tokens = {
        "kiosk": token(arguments.bin, data, "--role", "kiosk", "--name", "contract kiosk"),
        "bound kiosk": token(arguments.bin, data, "--role", "kiosk", "--cafe", "tokyo", "--name", "contract tokyo"),
        "kitchen": token(arguments.bin, data, "--role", "kitchen", "--name", "contract kitchen"),
        "user": token(arguments.bin, data, "--role", "user", "--user", "u-1", "--name", "contract user"),
        "ops": token(arguments.bin, data, "--role", "ops", "--name", "contract ops"),
    }
    revoking = token(arguments.bin, data, "--role", "ops", "--name", "contract ops, revoking")
    port = free_port()
    log = open(log_path, "w")
    server = subprocess.Popen([arguments.bin, "serve", "--data-dir", data, "--port", str(port), "--host", "127.0.0.1",
                               "--menus", os.path.join(ROOT, "Menus"), "--locales", os.path.join(ROOT, "Locales"),
                               "--log-level", "debug"], stdout=log, stderr=subprocess.STDOUT)
    failures = []
    started = time.monotonic()
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
                break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit(f"canteen serve exited:\n{open(log_path).read()}")
                time.sleep(0.1)
        environment = dict(os.environ, SCHEMATHESIS_HOOKS="contract_checks",
                           PYTHONPATH=os.path.join(ROOT, "scripts"), CANTEEN_SECRETS=",".join(list(tokens.values()) + [revoking]))
        # The ticket event stream answers a valid request with a stream that never ends: schemathesis
        # reads it until its request timeout. It has runs of its own, with a 2 s timeout and fewer
        # examples, so that each valid case costs 2 s instead of 40.
        stream = "/v1/cafes/{cafeId}/tickets/events"
        runs = [("anonymous", None, ["--exclude-path", stream])]
        runs += [(role, secret, ["--exclude-path", stream]) for role, secret in tokens.items()]
        # Revoking tokens would end the ops run early: it is run alone at the very end.
        runs[-1] = ("ops", tokens["ops"], ["--exclude-path", "/v1/tokens/{tokenId}", "--exclude-path", stream])
        runs += [(f"{role} on the ticket event stream", secret, ["--include-path", stream])
                 for role, secret in [("anonymous", None)] + list(tokens.items())]
        runs.append(("ops revoking tokens", revoking, ["--include-path", "/v1/tokens/{tokenId}"]))
        for role, secret, selection in runs:
            streaming = "--include-path" in selection and stream in selection
            command = [schemathesis, "--config-file", os.path.join(ROOT, "scripts", "schemathesis.toml"),
                       "run", os.path.join(ROOT, "openapi.yaml"), "--url", f"http://127.0.0.1:{port}",
                       "--checks", CHECKS, "--max-examples", str(3 if streaming else arguments.examples),
                       "--seed", str(arguments.seed),
                       "--phases", "examples,coverage,fuzzing", "--workers", "1", "--generation-database", "none",
                       "--no-color", "--output-truncate", "true", "--request-timeout", "2" if streaming else "40",
                       "--suppress-health-check", "all",
                       "--report", "junit", "--report-junit-path", os.path.join(work, f"{role.replace(' ', '-')}.xml")] + selection
            if secret:
                # The role's own token on every request (not one schemathesis makes up).
                command += ["-H", f"Authorization: Bearer {secret}", "--generation-with-security-parameters", "false"]
            print(f"== schemathesis as {role}", flush=True)
            begun = time.monotonic()
            result = subprocess.run(command, env=environment, capture_output=True, text=True, cwd=work)
            output = result.stdout + result.stderr
            summary = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed)|cases? generated|operations? tested", line)]
            print("\n".join(summary[-4:]) or output[-2000:])
            print(f"   ({time.monotonic() - begun:.0f} s)", flush=True)
            if result.returncode != 0:
                for secret_value in list(tokens.values()) + [revoking]:
                    output = output.replace(secret_value, "<token>")
                print(output[-12000:])
                failures.append(f"schemathesis as {role} failed")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            failures.append("canteen serve did not stop within 20 s of SIGTERM")
        log.close()

    # The whole run's log: no secret, no Authorization value, one access line per request.
    text = open(log_path, errors="replace").read()
    for role, secret in list(tokens.items()) + [("revoking", revoking)]:
        if secret in text or secret[4:20] in text:
            failures.append(f"the {role} token appears in the server log")
    for pattern in [r"cnt_[A-Za-z0-9_-]{16,}", r"(?i)bearer\s+\S", r"(?i)authorization:"]:
        if re.search(pattern, text):
            failures.append(f"the server log matches {pattern}")
    requests = len(re.findall(r"^.* route=\S+ status=\d+ .*request$", text, re.M))
    print(f"== server log: {len(text.splitlines())} lines, {requests} request lines, no secret found"
          if not failures else f"== server log: {len(text.splitlines())} lines")
    print(f"== contract run: {time.monotonic() - started:.0f} s in all")
    if arguments.keep or failures:
        print(f"   data, server log and JUnit reports kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("\n".join(f"FAILED: {failure}" for failure in failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
