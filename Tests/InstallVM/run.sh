#!/usr/bin/env bash
# make test-install: the Debian package installed on a real Debian 12 system, booted under qemu.
#
#   Tests/InstallVM/run.sh dist/canteen_VERSION_amd64.deb
#
# Needs what the Makefile's deps install (debootstrap, qemu-system-x86, qemu-utils, e2fsprogs,
# openssh-client: APT_PACKAGES). Builds the system once with
# image.sh (debootstrap, cached in .build-install/, git-ignored), puts the package's dependencies
# into its apt cache (downloaded once, by apt, from the same mirror: the VM needs no network),
# writes the system to an ext4 image, boots it with software emulation on a throw-away overlay,
# and lets check.py install the package over ssh and judge it. A second run downloads nothing.
set -euo pipefail

deb=$(readlink -f "${1:?usage: Tests/InstallVM/run.sh dist/canteen_VERSION_amd64.deb}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${INSTALL_VM_CACHE:-$root/.build-install}
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
started=$(date +%s)
step() { echo "test-install: $* ($(($(date +%s) - started)) s)"; }

[ -f "$deb" ] || { echo "test-install: FAIL: no package at $deb (make dist)" >&2; exit 1; }
mkdir -p "$cache" && cache=$(cd "$cache" && pwd)

# --- The system (once) ---
$sudo "$here/image.sh" "$cache"
rootfs="$cache/rootfs"

# --- The package's dependencies in the system's apt cache, not installed ---
# apt in the chroot resolves them as apt in the VM will; what is cached already is not fetched again.
step "resolving the package's dependencies"
cp "$deb" "$rootfs/tmp/canteen.deb"
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
status=0
$sudo chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get install --download-only -y -qq /tmp/canteen.deb \
    > "$cache/download.log" 2>&1 || status=$?
printf 'nameserver 10.0.2.3\n' > "$rootfs/etc/resolv.conf"
rm -f "$rootfs/tmp/canteen.deb"
[ "$status" -eq 0 ] || { cat "$cache/download.log" >&2; echo "test-install: FAIL: apt cannot resolve the package" >&2; exit 1; }

# --- The disk: an ext4 image of the system, remade when the system or its cache changed ---
contents=$( (cat "$rootfs/.recipe"; ls "$rootfs/var/cache/apt/archives") | sha256sum | cut -c1-16)
if [ ! -e "$cache/disk.img" ] || [ "$(cat "$cache/disk.stamp" 2>/dev/null)" != "$contents" ]; then
    step "writing the disk image"
    rm -f "$cache/disk.img"
    mkfs.ext4 -q -F -L canteen-vm -d "$rootfs" "$cache/disk.img" 3G
    echo "$contents" > "$cache/disk.stamp"
fi
rm -f "$cache/overlay.qcow2"
qemu-img create -q -f qcow2 -F raw -b "$cache/disk.img" "$cache/overlay.qcow2"

# --- Boot (software emulation: KVM did not boot Debian's kernel on these machines) ---
ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
read -r ssh_port http_port <<< "$ports"
kernel=$(ls "$rootfs"/boot/vmlinuz-* | sort -V | tail -n 1)
initrd=$(ls "$rootfs"/boot/initrd.img-* | sort -V | tail -n 1)
step "booting Debian 12 ($(basename "$kernel")) under qemu (TCG); ssh on $ssh_port, http on $http_port"
qemu-system-x86_64 -accel tcg -cpu qemu64 -smp 2 -m 2048 -display none -monitor none \
    -kernel "$kernel" -initrd "$initrd" -append "root=/dev/vda rw console=ttyS0 quiet mitigations=off net.ifnames=0" \
    -drive "file=$cache/overlay.qcow2,if=virtio,format=qcow2" \
    -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$ssh_port-:22,hostfwd=tcp:127.0.0.1:$http_port-:8080" \
    -device virtio-net-pci,netdev=net0 -serial "file:$cache/console.log" < /dev/null &
qemu=$!
trap 'kill "$qemu" 2>/dev/null || true' EXIT

status=0
python3 "$here/check.py" --ssh "$ssh_port" --http "$http_port" --key "$cache/ssh/id_ed25519" --deb "$deb" \
    --transcript "$cache/transcript.txt" || status=$?
# The VM powers itself off at the end; give it a moment, then stop it either way.
for _ in $(seq 30); do kill -0 "$qemu" 2>/dev/null || break; sleep 1; done
kill "$qemu" 2>/dev/null || true
wait "$qemu" 2>/dev/null || true
trap - EXIT
[ "$status" -eq 0 ] || echo "test-install: the console is in $cache/console.log, the commands in $cache/transcript.txt" >&2
step "total"
exit "$status"
