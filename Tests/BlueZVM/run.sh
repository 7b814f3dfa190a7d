#!/usr/bin/env bash
# make test-bluez: the live scanner against BlueZ's controller emulator, in a qemu VM.
#
#   Tests/BlueZVM/run.sh PATH/TO/canteen
#
# Installs what it needs from Debian (qemu, busybox, bluez, bluez-test-tools, strace, cpio; the
# kernel .deb is downloaded, not installed), builds an initramfs with that canteen binary, the
# emulator's tools and every library they load, boots it with software emulation (init.sh runs
# the scenario), carries /out back over a second serial port and judges it with check.py.
# Downloads stay in .build-bluez/ (git-ignored): a second run needs no network.
set -euo pipefail

canteen=${1:?usage: Tests/BlueZVM/run.sh PATH/TO/canteen}
canteen=$(readlink -f "$canteen")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${BLUEZ_VM_CACHE:-$root/.build-bluez}
packages="qemu-system-x86 busybox-static bluez bluez-test-tools strace cpio"
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
apt_options=(-o DPkg::Lock::Timeout=600 -o "Dir::Cache::archives=$cache/debs")
started=$(date +%s)
step() { echo "test-bluez: $* ($(($(date +%s) - started)) s)"; }

mkdir -p "$cache/debs/partial"
[ -x "$canteen" ] || { echo "test-bluez: FAIL: no canteen binary at $canteen" >&2; exit 1; }

# --- Debian packages (their .debs are kept in $cache/debs) ---
updated=""
apt_update() {
    [ -n "$updated" ] && return
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
    updated=1
}
missing=""
for package in $packages; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [ -n "$missing" ]; then
    step "installing$missing"
    apt_update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get "${apt_options[@]}" install -y -qq --no-install-recommends \
        $missing > "$cache/apt.log" || { cat "$cache/apt.log"; exit 1; }
fi

# --- The kernel: Debian's linux-image-amd64, unpacked (not installed) into $cache/kernel ---
kernel_deb=$(ls "$cache"/debs/linux-image-*-amd64_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$kernel_deb" ]; then
    step "downloading Debian's kernel"
    image=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
    if [ -z "$image" ]; then
        apt_update
        image=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ {print $2; exit}')
    fi
    (cd "$cache/debs" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" "$image")
    kernel_deb=$(ls "$cache"/debs/linux-image-*-amd64_*.deb | sort -V | tail -n 1)
fi
kernel_dir="$cache/kernel/$(basename "$kernel_deb" .deb)"
if [ ! -e "$kernel_dir/.unpacked" ]; then
    step "unpacking $(basename "$kernel_deb")"
    rm -rf "$cache/kernel"
    mkdir -p "$kernel_dir"
    dpkg-deb --fsys-tarfile "$kernel_deb" | tar -x -C "$kernel_dir" --wildcards './boot/vmlinuz-*' \
        '*/crypto/af_alg.ko' '*/crypto/algif_hash.ko' '*/crypto/algif_skcipher.ko' '*/crypto/ecb.ko' \
        '*/crypto/cmac.ko' '*/net/rfkill/rfkill.ko' '*/lib/crc16.ko' '*/crypto/ecc.ko' '*/crypto/ecdh_generic.ko' \
        '*/net/bluetooth/bluetooth.ko' '*/drivers/bluetooth/hci_vhci.ko'
    touch "$kernel_dir/.unpacked"
fi
vmlinuz=$(ls "$kernel_dir"/boot/vmlinuz-*)

# --- The initramfs: busybox, the emulator's tools, canteen, and the libraries ldd lists ---
step "building the initramfs"
staging="$cache/initramfs"
rm -rf "$staging" "$cache/out"
mkdir -p "$staging"/{bin,usr/bin,proc,sys,dev,tmp,out} "$cache/out"
cp /bin/busybox "$staging/bin/busybox"
cp -a "$kernel_dir/lib" "$staging/lib"
install -m 755 "$here/init.sh" "$staging/init"
# The binary make just built, without its debug sections (about 30 % smaller to load).
strip --strip-debug -o "$staging/usr/bin/canteen" "$canteen" 2>/dev/null || cp "$canteen" "$staging/usr/bin/canteen"
tools=""
for tool in btvirt hcitool hciconfig btmon strace; do
    path=$(command -v "$tool") || { echo "test-bluez: FAIL: $tool not found" >&2; exit 1; }
    cp "$path" "$staging/usr/bin/$tool"
    tools="$tools $path"
done
for library in $(ldd "$canteen" $tools | awk '/=> \// {print $3} /^\t\/[^ ]+ \(/ {print $1}' | sort -u); do
    mkdir -p "$staging$(dirname "$library")"
    cp -L "$library" "$staging$library"
done
if ldd "$canteen" $tools | grep -q "not found"; then
    ldd "$canteen" $tools | grep "not found" >&2
    echo "test-bluez: FAIL: a library is missing" >&2
    exit 1
fi
(cd "$staging" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$cache/initrd.cpio"

# --- Boot it (software emulation: KVM did not boot Debian's kernel on these machines) ---
step "booting $(basename "$vmlinuz") under qemu (TCG)"
rm -f "$cache/out.b64"
status=0
timeout 240 qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 1536 -display none -monitor none -no-reboot \
    -kernel "$vmlinuz" -initrd "$cache/initrd.cpio" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1" \
    -serial stdio -serial "file:$cache/out.b64" < /dev/null | tee "$cache/console.log" | grep --line-buffered "bluez-vm:" \
    || status=$?
[ "$status" -eq 0 ] || echo "test-bluez: qemu ended with status $status (see $cache/console.log)" >&2

if ! grep -q "END-OUT" "$cache/out.b64" 2>/dev/null; then
    echo "test-bluez: FAIL: the VM sent no results (console in $cache/console.log):" >&2
    tail -n 30 "$cache/console.log" >&2
    exit 1
fi
tr -d '\r' < "$cache/out.b64" | sed -n '/^BEGIN-OUT$/,/^END-OUT$/p' | sed '1d;$d' | base64 -d | tar -x -C "$cache/out"
step "VM done; checking $cache/out"

python3 "$here/check.py" "$cache/out" "$canteen"
step "total"
