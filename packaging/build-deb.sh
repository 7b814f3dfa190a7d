#!/usr/bin/env bash
# make dist: the Debian package and a tarball of the same files, from a release binary.
#
#   packaging/build-deb.sh PATH/TO/canteen OUT_DIR
#
# Writes OUT_DIR/canteen_VERSION_amd64.deb and OUT_DIR/canteen_VERSION_amd64.tar.gz. VERSION is the
# latest versioned entry of CHANGELOG.md (`## 0.9.0 - 2026-11-27`); the dependencies are the Debian
# packages of the libraries the binary links, found by dpkg-shlibdeps, plus adduser (postinst).
set -euo pipefail

binary=$(readlink -f "${1:?usage: packaging/build-deb.sh PATH/TO/canteen OUT_DIR}")
out=${2:?usage: packaging/build-deb.sh PATH/TO/canteen OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)

version=$(sed -n -E 's/^## \[?([0-9]+\.[0-9]+\.[0-9]+[^] ]*)\]? - [0-9]{4}-[0-9]{2}-[0-9]{2}.*/\1/p' "$root/CHANGELOG.md" | head -n 1)
[ -n "$version" ] || { echo "dist: CHANGELOG.md has no versioned entry (## X.Y.Z - YYYY-MM-DD)" >&2; exit 1; }
architecture=$(dpkg --print-architecture)
name="canteen_${version}_${architecture}"
stage="$out/$name"
rm -rf "$stage" "$out/$name.deb" "$out/$name.tar.gz"

# --- The files ---
install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/share/canteen/Menus" "$stage/usr/share/canteen/Locales" \
    "$stage/usr/share/canteen/systemd" "$stage/usr/share/canteen/Assets" "$stage/usr/share/doc/canteen" "$stage/lib/systemd/system" "$stage/etc/default"
strip --strip-unneeded -o "$stage/usr/bin/canteen" "$binary"
chmod 755 "$stage/usr/bin/canteen"
install -m 644 "$root"/Menus/*.json "$stage/usr/share/canteen/Menus/"
install -m 644 "$root"/Locales/*.json "$stage/usr/share/canteen/Locales/"
# The pages' files, as the binary was built with them (its resource bundle), where it looks when installed.
assets="$(dirname "$binary")/Canteen_CanteenWeb.resources/Assets"
[ -d "$assets" ] || { echo "dist: no $assets beside the binary" >&2; exit 1; }
install -m 644 "$assets"/* "$stage/usr/share/canteen/Assets/"
install -m 644 "$here"/systemd/*.conf "$stage/usr/share/canteen/systemd/"
install -m 644 "$here/canteen.service" "$stage/lib/systemd/system/canteen.service"
install -m 600 "$here/canteen.default" "$stage/etc/default/canteen"
install -m 644 "$root/README.md" "$stage/usr/share/doc/canteen/README.md"
gzip -9n -c "$root/CHANGELOG.md" > "$stage/usr/share/doc/canteen/changelog.gz"
install -m 644 "$here/copyright" "$stage/usr/share/doc/canteen/copyright"
install -m 755 "$here/postinst" "$here/prerm" "$here/postrm" "$stage/DEBIAN/"
echo /etc/default/canteen > "$stage/DEBIAN/conffiles"

# --- Dependencies: what the binary links, as dpkg-shlibdeps finds it ---
shlibs=$(cd "$(mktemp -d)" && mkdir debian && printf 'Source: canteen\n\nPackage: canteen\nArchitecture: any\n' > debian/control \
    && dpkg-shlibdeps -O -e"$stage/usr/bin/canteen" 2> shlibdeps.log | sed -n 's/^shlibs:Depends=//p') \
    || { echo "dist: dpkg-shlibdeps failed" >&2; exit 1; }
[ -n "$shlibs" ] || { echo "dist: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat > "$stage/DEBIAN/control" <<CONTROL
Package: canteen
Version: $version
Architecture: $architecture
Maintainer: Canteen maintainers <canteen@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $shlibs, adduser
Section: net
Priority: optional
Description: cafeteria ordering backend
 Canteen keeps the menus, orders and kitchen tickets of a company's cafés and
 serves its HTTP API and the kitchen display, kiosk, pickup board, employee
 and ops pages. This package runs it as the systemd service canteen.service
 under its own system user, with its SQLite database in /var/lib/canteen and
 its settings in /etc/default/canteen.
CONTROL
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort | xargs md5sum) \
    > "$stage/DEBIAN/md5sums"

# --- The package and the tarball (the same files, without the package's own) ---
# CANTEEN_DEB_QUICK=1 (make test-install's debug package): gzip and no tarball, a minute sooner.
quick=${CANTEEN_DEB_QUICK:-}
dpkg-deb --root-owner-group "-Z$([ -n "$quick" ] && echo gzip || echo xz)" --build "$stage" "$out/$name.deb" > /dev/null
[ -n "$quick" ] || tar -C "$stage" --exclude=./DEBIAN --owner=0 --group=0 --sort=name -czf "$out/$name.tar.gz" .
rm -rf "$stage"
echo "dist: $out/$name.deb ($(du -h "$out/$name.deb" | cut -f1))$([ -n "$quick" ] || echo " and $name.tar.gz")"
echo "dist: Depends: $shlibs, adduser"
