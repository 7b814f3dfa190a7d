#!/bin/busybox sh
# /init of the BlueZ emulator VM (busybox sh). Runs the scanner against btvirt's controllers,
# writes every output to /out and sends /out as a base64 tar on the second serial port (ttyS1).
# It checks nothing itself: Tests/BlueZVM/check.py judges the outputs on the host.

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/usr/sbin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mkdir -p /out

UUID_BYTES="E2 C5 6D B5 DF FB 48 D2 B0 60 D0 F5 A7 10 96 E0"   # E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
INJECTED_ADDRESS="03 00 00 EE FF C0"                         # C0:FF:EE:00:00:03 (little-endian), random

say() { echo "bluez-vm: [$(cut -d" " -f1 /proc/uptime) s] $*"; echo "$*" >> /out/steps.log; }
finish() {
    say "finished"
    kill -INT "$BTMON_PID" 2>/dev/null && wait "$BTMON_PID" 2>/dev/null
    sync
    { echo "BEGIN-OUT"; tar -c -C /out . | base64; echo "END-OUT"; } > /dev/ttyS1
    sync
    sleep 1
    poweroff -f
}
fail() { say "FAIL: $*"; finish; }

# hci DEV OGF OCF BYTES...: sends one HCI command with hcitool; fails unless its status is 0.
hci() {
    device=$1; shift
    reply=$(hcitool -i "$device" cmd "$@" 2>&1) || fail "hcitool -i $device cmd $*: $reply"
    status=$(echo "$reply" | tail -n 1 | awk '{print $4}')
    echo "$device $* -> status $status" >> /out/hcitool.log
    [ "$status" = "00" ] || fail "hcitool -i $device cmd $*: status $status"
}

# inject BYTES...: hci0's emulator sends this HCI event (code, then parameters, no length byte) with
# its vendor command 0xfc10, sub-command 0. hcitool prints the first event that follows: the injected one.
inject() {
    reply=$(hcitool -i hci0 cmd 0x3f 0x010 00 "$@" 2>&1) || fail "injecting $*: $reply"
    echo "hci0 inject $* -> $(echo "$reply" | grep "HCI Event")" >> /out/hcitool.log
    echo "$reply" | grep -q "> HCI Event: 0x$(echo "$1" | tr 'A-F' 'a-f')" || fail "injecting $*: $reply"
}

# wait_for TEXT FILE SECONDS [PID]: waits until FILE contains TEXT (and gives up when PID has ended).
wait_for() {
    tries=$(($3 * 5))
    while [ "$tries" -gt 0 ]; do
        grep -q "$1" "$2" 2>/dev/null && return 0
        if [ -n "$4" ] && ! kill -0 "$4" 2>/dev/null; then grep -q "$1" "$2" 2>/dev/null; return; fi
        sleep 0.2
        tries=$((tries - 1))
    done
    return 1
}

# watchdog PID SECONDS: SIGKILL for PID if it is still running then (a scanner that ignores SIGTERM).
watchdog() { ( sleep "$2"; kill -KILL "$1" 2>/dev/null ) & }

# scan NAME ARGS...: starts `canteen beacons scan` in the background (stdout, stderr in /out/NAME.*).
scan_pid=""
scan() {
    name=$1; shift
    canteen beacons scan --data-dir /tmp/no-database "$@" > "/out/$name.jsonl" 2> "/out/$name.stderr" &
    scan_pid=$!
}

# advertise DEV MINOR POWER: the controller advertises an iBeacon (major 7), non-connectable.
advertise() {
    hci "$1" 0x08 0x0006 A0 00 A0 00 03 00 00 00 00 00 00 00 00 07 00
    hci "$1" 0x08 0x0008 1E 02 01 06 1A FF 4C 00 02 15 $UUID_BYTES 00 07 00 "$2" "$3" 00
    hci "$1" 0x08 0x000a 01
}

# The emulator reports advertising once, when it is enabled: toggling sends another report.
readvertise() {
    hci "$1" 0x08 0x000a 00
    hci "$1" 0x08 0x000a 01
}

say "kernel $(uname -r); loading modules"
for module in af_alg algif_hash algif_skcipher ecb cmac rfkill crc16 ecc ecdh_generic bluetooth hci_vhci; do
    insmod "$(find /lib/modules -name "$module.ko")" || fail "insmod $module"
done

btvirt -l3 > /out/btvirt.log 2>&1 &
for index in 0 1 2; do
    tries=50
    until [ -e "/sys/class/bluetooth/hci$index" ]; do
        tries=$((tries - 1)); [ "$tries" -gt 0 ] || fail "btvirt created no hci$index"; sleep 0.2
    done
done
for index in 0 1 2; do hciconfig "hci$index" up || fail "hciconfig hci$index up"; done
for index in 0 1 2; do
    echo "hci$index $(hciconfig "hci$index" | awk '/BD Address/ {print $3}')" >> /out/addresses.txt
done
say "controllers: $(tr '\n' ' ' < /out/addresses.txt)"

btmon -w /out/btmon.btsnoop > /dev/null 2>&1 &
BTMON_PID=$!
sleep 1

# 1. The scanner under strace (its HCI filter's getsockopt/setsockopt), stopped with SIGTERM.
say "scan 1: hci0, jsonl, recording; hci1 and hci2 advertise, two reports injected"
strace -f -ttt -xx -s 64 -e trace=socket,getsockopt,setsockopt -o /out/strace.txt \
    canteen beacons scan --data-dir /tmp/no-database --device hci0 --format jsonl --record /out/scan.btsnoop \
    > /out/scan.jsonl 2> /out/scan.stderr &
strace_pid=$!
wait_for "scanning (" /out/scan.stderr 60 "$strace_pid" || fail "scan 1 did not start: $(cat /out/scan.stderr)"
advertise hci1 01 C5                 # minor 1, measured power -59
advertise hci2 02 BF                 # minor 2, measured power -65
readvertise hci1
readvertise hci2
readvertise hci1
# A legacy LE Advertising Report (subevent 0x02) from C0:FF:EE:00:00:03, minor 3, power -61, RSSI -58.
inject 3E 02 01 03 01 $INJECTED_ADDRESS 1E 02 01 06 1A FF 4C 00 02 15 $UUID_BYTES 00 07 00 03 C3 C6
# The same beacon in an LE Extended Advertising Report (subevent 0x0D, legacy ADV_NONCONN_IND), RSSI -71.
inject 3E 0D 01 10 00 01 $INJECTED_ADDRESS 01 00 FF 7F B9 00 00 00 00 00 00 00 00 00 \
    1E 02 01 06 1A FF 4C 00 02 15 $UUID_BYTES 00 07 00 03 C3
wait_for '"rssi": -71' /out/scan.jsonl 30 || say "the injected extended report did not show in time"
# A marker in btmon's capture just before SIGTERM: Read Local Version Information on hci2.
hci hci2 0x04 0x0001
scan1_pid=$(pidof canteen)
kill -TERM "$scan1_pid"
watchdog "$scan1_pid" 30
wait "$strace_pid"
echo $? > /out/scan.status
say "scan 1 exited with status $(cat /out/scan.status)"

# 2. A second scan starts cleanly (scanning was disabled) and is killed without any cleanup...
say "scan 2: starts after scan 1, then SIGKILL"
scan scan2 --device hci0 --format jsonl
wait_for "scanning (" /out/scan2.stderr 60 "$scan_pid" || say "scan 2 did not start: $(cat /out/scan2.stderr)"
kill -KILL "$scan_pid"; wait "$scan_pid"; echo $? > /out/scan2.status

# 3. ...so the next one finds scanning still enabled: the controller refuses it (0x0C).
say "scan 3: after a SIGKILL"
canteen beacons scan --data-dir /tmp/no-database --device hci0 --format jsonl > /out/scan3.jsonl 2> /out/scan3.stderr &
scan3_pid=$!
watchdog "$scan3_pid" 30
wait "$scan3_pid"; echo $? > /out/scan3.status

# 4. Once scanning is disabled by hand, a scan starts again; SIGINT stops it.
say "scan 4: after disabling scanning by hand, then SIGINT"
hci hci0 0x08 0x0042 00 00 00 00 00 00
scan scan4 --device hci0 --format jsonl
wait_for "scanning (" /out/scan4.stderr 60 "$scan_pid" || say "scan 4 did not start: $(cat /out/scan4.stderr)"
kill -INT "$scan_pid"; watchdog "$scan_pid" 30; wait "$scan_pid"; echo $? > /out/scan4.status

# 5. A controller that is down, and one that does not exist.
say "errors: hci2 down, hci7 missing"
hciconfig hci2 down
canteen beacons scan --data-dir /tmp/no-database --device hci2 --format jsonl > /out/down.jsonl 2> /out/down.stderr
echo $? > /out/down.status
canteen beacons scan --data-dir /tmp/no-database --device hci7 --format jsonl > /out/missing.jsonl 2> /out/missing.stderr
echo $? > /out/missing.status

# 6. A user without CAP_NET_RAW/CAP_NET_ADMIN: the kernel refuses its HCI commands.
say "errors: hci0 as an unprivileged user"
mkdir -p /etc
echo "nobody:x:65534:65534:nobody:/tmp:/bin/sh" > /etc/passwd
echo "nogroup:x:65534:" > /etc/group
su -s /bin/sh nobody -c "canteen beacons scan --data-dir /tmp/no-database --device hci0 --format jsonl" \
    > /out/unprivileged.jsonl 2> /out/unprivileged.stderr
echo $? > /out/unprivileged.status
hciconfig -a > /out/hciconfig.txt 2>&1

finish
