#!/usr/bin/env bash
# Builds (once) the Debian 12 system that `make test-install` boots: debootstrap into
# CACHE/rootfs with systemd, Debian's kernel, OpenSSH (the test's way in) and curl, nothing of
# Canteen's. Rebuilt only when this recipe changes (its hash is kept in CACHE/rootfs/.recipe).
#
#   Tests/InstallVM/image.sh CACHE
set -euo pipefail

cache=${1:?usage: Tests/InstallVM/image.sh CACHE}
mkdir -p "$cache" && cache=$(cd "$cache" && pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# systemd as init, the kernel and its initramfs, the test's ssh, sudo as on a server, curl for checks in the VM.
include=systemd-sysv,udev,dbus,linux-image-amd64,initramfs-tools,openssh-server,sudo,curl,ca-certificates,procps,less
recipe=$(cat "$0" | sha256sum | cut -c1-16)
rootfs="$cache/rootfs"

if [ -e "$rootfs/.recipe" ] && [ "$(cat "$rootfs/.recipe")" = "$recipe" ]; then
    exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "test-install: debootstrap needs root (run make test-install as root)" >&2; exit 1; }

rm -rf "$rootfs" "$rootfs.tmp"
mkdir -p "$cache/debootstrap-debs"
echo "test-install: debootstrap bookworm into $rootfs (a few minutes, once)"
# Downloaded packages are kept for the next build of the image (the recipe changed, a fresh clone's cache).
debootstrap --variant=minbase --include="$include" --cache-dir="$cache/debootstrap-debs" \
    bookworm "$rootfs.tmp" "$mirror" > "$cache/debootstrap.log" 2>&1 \
    || { tail -n 30 "$cache/debootstrap.log" >&2; exit 1; }

r="$rootfs.tmp"
echo canteen-vm > "$r/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tcanteen-vm\n' > "$r/etc/hosts"
printf '/dev/vda\t/\text4\terrors=remount-ro\t0\t1\n' > "$r/etc/fstab"
# The same sources as the machine that builds it, and its leniency about old Release dates.
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" > "$r/etc/apt/sources.list"
printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' > "$r/etc/apt/apt.conf.d/99test-vm"
# qemu's user network, configured statically (its guest address is always 10.0.2.15): no DHCP wait.
mkdir -p "$r/etc/systemd/network"
printf '[Match]\nName=eth0\n\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\nDNS=10.0.2.3\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n' \
    > "$r/etc/systemd/network/20-wired.network"
chroot "$r" systemctl enable systemd-networkd.service ssh.service > /dev/null 2>&1
# Boot under software emulation costs CPU: an initramfs with the four modules the VM needs (not
# every driver), and none of the units that load or mount what the test never uses.
sed -i 's/^MODULES=.*/MODULES=list/' "$r/etc/initramfs-tools/initramfs.conf"
printf 'virtio_pci\nvirtio_blk\nvirtio_net\next4\n' >> "$r/etc/initramfs-tools/modules"
mount -t proc proc "$r/proc"
chroot "$r" update-initramfs -u -k all > /dev/null 2>&1 || { umount "$r/proc"; echo "test-install: update-initramfs failed" >&2; exit 1; }
umount "$r/proc"
chroot "$r" systemctl mask modprobe@dm_mod.service modprobe@drm.service modprobe@fuse.service modprobe@loop.service \
    modprobe@configfs.service modprobe@efi_pstore.service dev-hugepages.mount dev-mqueue.mount sys-kernel-debug.mount \
    sys-kernel-tracing.mount sys-kernel-config.mount sys-fs-fuse-connections.mount kmod-static-nodes.service \
    systemd-pstore.service e2scrub_reap.service systemd-networkd-wait-online.service > /dev/null 2>&1
# The test logs in as root with its own key; no password anywhere.
mkdir -p "$cache/ssh"
[ -e "$cache/ssh/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C canteen-test-install -f "$cache/ssh/id_ed25519"
install -d -m 700 "$r/root/.ssh"
install -m 600 "$cache/ssh/id_ed25519.pub" "$r/root/.ssh/authorized_keys"
printf 'PermitRootLogin prohibit-password\nPasswordAuthentication no\nUseDNS no\n' > "$r/etc/ssh/sshd_config.d/test.conf"
# A quiet, quick boot: no getty on the serial console is needed, the console shows the kernel's and systemd's lines.
chroot "$r" systemctl mask getty@tty1.service serial-getty@ttyS0.service > /dev/null 2>&1 || true
# Package lists as of the build (apt resolves the test's package against them), then qemu's DNS.
cp /etc/resolv.conf "$r/etc/resolv.conf"
chroot "$r" apt-get update -qq > /dev/null
chroot "$r" apt-get clean
printf 'nameserver 10.0.2.3\n' > "$r/etc/resolv.conf"
echo "$recipe" > "$r/.recipe"
mv "$r" "$rootfs"
