#!/usr/bin/env python3
"""Starts a private pcscd with the vpcd virtual reader on a free loopback port, and stops it.

pcscd's socket and pid file are fixed in /run/pcscd and a second pcscd refuses to start, so this one runs in
its own mount namespace (unshare -m, needs root) with a private folder bound over /run/pcscd. Prints one JSON
line {"socket", "port", "folder"} once the socket answers; clients set PCSCLITE_CSOCK_NAME to "socket".
Stops pcscd and removes the folder when stdin closes or on SIGTERM.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port_pair():
    for _ in range(200):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port > 65000:
            continue
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("0.0.0.0", port))
                b.bind(("0.0.0.0", port + 1))
            return port
        except OSError:
            continue
    sys.exit("no free port pair")


def main():
    # A test runner may spawn us with signals blocked (libdispatch blocks them in its threads); unblock them so
    # SIGTERM stops us, and whatever we start.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    folder = tempfile.mkdtemp(prefix="canteen-pcscd-")
    run = os.path.join(folder, "run")
    config = os.path.join(folder, "reader.conf.d")
    os.makedirs(run)
    os.makedirs(config)
    port = free_port_pair()
    with open(os.path.join(config, "vpcd"), "w") as f:
        f.write('FRIENDLYNAME "Virtual PCD"\nDEVICENAME   /dev/null:%d\n'
                'LIBPATH      /usr/lib/pcsc/drivers/serial/libifdvpcd.so\nCHANNELID    %d\n' % (port, port))
    log = open(os.path.join(folder, "pcscd.log"), "w")
    pcscd = shutil.which("pcscd") or "/usr/sbin/pcscd"
    # A mount namespace needs root: as another user, go through sudo (without a password prompt).
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    if sudo:
        subprocess.run(sudo + ["mkdir", "-p", "/run/pcscd"], check=False)
    else:
        os.makedirs("/run/pcscd", exist_ok=True)
    daemon = subprocess.Popen(
        sudo + ["unshare", "-m", "--propagation", "private", "sh", "-c",
                'mount --bind "$0" /run/pcscd && exec "$2" -f -a -c "$1"', run, config, pcscd],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def stop(*_):
        if daemon.poll() is None:
            daemon.terminate()
            try:
                daemon.wait(5)
            except subprocess.TimeoutExpired:
                daemon.kill()
        shutil.rmtree(folder, ignore_errors=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    path = os.path.join(run, "pcscd.comm")
    deadline = time.monotonic() + 10
    while not os.path.exists(path):
        if daemon.poll() is not None or time.monotonic() > deadline:
            log.flush()
            sys.stderr.write(open(os.path.join(folder, "pcscd.log")).read())
            stop()
        time.sleep(0.05)
    time.sleep(0.3)
    print(json.dumps({"socket": path, "port": port, "folder": folder}), flush=True)
    sys.stdin.read()
    stop()


if __name__ == "__main__":
    main()
