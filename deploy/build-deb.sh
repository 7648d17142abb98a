#!/bin/sh
# Builds dist/uwb2mqtt_<version>_<arch>.deb from a release binary (`make deb` calls it).
#
#   deploy/build-deb.sh BINARY [OUTDIR]
#
# Debian layout: /usr/bin/uwb2mqtt, /lib/systemd/system/uwb2mqtt.service (ExecStart pointed at
# /usr/bin), /lib/udev/rules.d/99-uwb2mqtt.rules, the examples as conffiles in /etc/uwb2mqtt/
# (an edited config survives upgrades), the manual pages uwb2mqtt(1) and uwb2mqtt.yaml(5) (made
# by BINARY), docs and the optional autostart rule and mosquitto examples in
# /usr/share/doc/uwb2mqtt/. The host's architecture (dpkg --print-architecture): build on the Pi
# (arm64) for the Pi.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
binary=${1:?usage: build-deb.sh BINARY [OUTDIR]}
outdir=${2:-$repo/dist}
[ -x "$binary" ] || { echo "build-deb.sh: no executable at $binary" >&2; exit 1; }

version=$(sed -n 's/.*static let agent = "\(.*\)".*/\1/p' "$repo/Sources/Service/AgentVersion.swift")
[ -n "$version" ] || { echo "build-deb.sh: cannot read the version from Sources/Service/AgentVersion.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)

stage=$(mktemp -d "${TMPDIR:-/tmp}/uwb2mqtt-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
root="$stage/root"

install -d -m 0755 "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/lib/udev/rules.d" \
    "$root/etc/uwb2mqtt" "$root/usr/share/doc/uwb2mqtt/mosquitto" "$root/usr/share/doc/uwb2mqtt/udev" \
    "$root/usr/share/man/man1" "$root/usr/share/man/man5"
install -m 0755 "$binary" "$root/usr/bin/uwb2mqtt"
strip --strip-unneeded "$root/usr/bin/uwb2mqtt" 2>/dev/null || true
sed 's#/usr/local/bin/uwb2mqtt#/usr/bin/uwb2mqtt#g; s#^Documentation=\(.*\)#Documentation=\1 file:///usr/share/doc/uwb2mqtt/README.md#' \
    "$here/uwb2mqtt.service" > "$root/lib/systemd/system/uwb2mqtt.service"
chmod 0644 "$root/lib/systemd/system/uwb2mqtt.service"
install -m 0644 "$repo/udev/99-uwb2mqtt.rules" "$root/lib/udev/rules.d/99-uwb2mqtt.rules"
install -m 0644 "$repo/udev/99-uwb2mqtt-autostart.rules" "$root/usr/share/doc/uwb2mqtt/udev/"
install -m 0640 "$here/config.yaml" "$here/rules.yaml" "$root/etc/uwb2mqtt/"
install -m 0644 "$here/config.yaml" "$here/rules.yaml" "$root/usr/share/doc/uwb2mqtt/"
install -m 0644 "$here/mosquitto/uwb2mqtt.conf" "$here/mosquitto/acl" "$root/usr/share/doc/uwb2mqtt/mosquitto/"
[ -f "$repo/README.md" ] && install -m 0644 "$repo/README.md" "$root/usr/share/doc/uwb2mqtt/README.md"

# The manual pages, made by the binary packaged (from its declarations and schema), compressed as
# Debian wants (-n: no name or time in the file, so the same input gives the same bytes).
"$binary" man uwb2mqtt > "$stage/uwb2mqtt.1"
"$binary" man uwb2mqtt.yaml > "$stage/uwb2mqtt.yaml.5"
gzip -9n -c "$stage/uwb2mqtt.1" > "$root/usr/share/man/man1/uwb2mqtt.1.gz"
gzip -9n -c "$stage/uwb2mqtt.yaml.5" > "$root/usr/share/man/man5/uwb2mqtt.yaml.5.gz"
chmod 0644 "$root/usr/share/man/man1/uwb2mqtt.1.gz" "$root/usr/share/man/man5/uwb2mqtt.yaml.5.gz"

printf '/etc/uwb2mqtt/config.yaml\n/etc/uwb2mqtt/rules.yaml\n' > "$root/DEBIAN/conffiles"
install -m 0755 "$here/debian/postinst" "$here/debian/prerm" "$here/debian/postrm" "$root/DEBIAN/"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" "$here/debian/control.in" > "$root/DEBIAN/control"

mkdir -p "$outdir"
package="$outdir/uwb2mqtt_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$package"
echo "$package"
