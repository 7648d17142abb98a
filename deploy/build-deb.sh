#!/bin/sh
# Builds dist/uwb2mqtt_<version>_<arch>.deb from a release binary (`make deb` calls it).
#
#   deploy/build-deb.sh BINARY [OUTDIR]
#
# Debian layout: /usr/bin/uwb2mqtt, /lib/systemd/system/uwb2mqtt.service (ExecStart pointed at
# /usr/bin), /lib/udev/rules.d/99-uwb2mqtt.rules, the examples as conffiles in /etc/uwb2mqtt/
# (an edited config survives upgrades), the manual pages uwb2mqtt(1) and uwb2mqtt.yaml(5) (made
# by BINARY), docs, copyright, changelog and the optional autostart rule and mosquitto examples in
# /usr/share/doc/uwb2mqtt/. The host's architecture (dpkg --print-architecture): build on the Pi
# (arm64) for the Pi.
#
# Who answers for the package, its Maintainer field, is a setting: DEB_MAINTAINER
# ("Name <address>"), else DEBFULLNAME and DEBEMAIL as Debian's own tools read them, else git's
# user.name and user.email. Without one, or with a placeholder (an address at localhost), it
# builds nothing. DEB_HOMEPAGE, when set (an http or https URL), is the Homepage field; there is
# none otherwise.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
binary=${1:?usage: build-deb.sh BINARY [OUTDIR]}
outdir=${2:-$repo/dist}
[ -x "$binary" ] || { echo "build-deb.sh: no executable at $binary" >&2; exit 1; }

version=$(sed -n 's/.*static let agent = "\(.*\)".*/\1/p' "$repo/Sources/Service/AgentVersion.swift")
[ -n "$version" ] || { echo "build-deb.sh: cannot read the version from Sources/Service/AgentVersion.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)

# The changelog's latest entry is this version's: a version bump without an entry is a mistake.
logged=$(sed -n '1s/^uwb2mqtt (\([^)]*\)).*/\1/p' "$here/debian/changelog")
if [ "$logged" != "$version" ]; then
    echo "build-deb.sh: deploy/debian/changelog's latest entry is for '$logged', the version is $version: add an entry for $version" >&2
    exit 1
fi

maintainer=${DEB_MAINTAINER:-}
if [ -z "$maintainer" ] && [ -n "${DEBEMAIL:-}" ]; then
    case "$DEBEMAIL" in
        *"<"*) maintainer=$DEBEMAIL ;;
        *) maintainer="${DEBFULLNAME:-} <$DEBEMAIL>" ;;
    esac
fi
if [ -z "$maintainer" ]; then
    name=$(git -C "$repo" config user.name 2>/dev/null || true)
    email=$(git -C "$repo" config user.email 2>/dev/null || true)
    [ -n "$name" ] && [ -n "$email" ] && maintainer="$name <$email>"
fi
case "$maintainer" in
    *[!\ ]" <"?*@?*.?*">") ;;
    *)
        echo "build-deb.sh: the package needs a maintainer: set DEB_MAINTAINER=\"Name <address>\" (or DEBFULLNAME and DEBEMAIL, or git's user.name and user.email)${maintainer:+; found '$maintainer'}" >&2
        exit 1
        ;;
esac
case "$maintainer" in
    *@localhost\>|*@localhost.*|*.localdomain\>)
        echo "build-deb.sh: '$maintainer' is no address anyone can write to: set DEB_MAINTAINER=\"Name <address>\"" >&2
        exit 1
        ;;
esac
homepage=${DEB_HOMEPAGE:-}
case "$homepage" in
    "") ;;
    http://localhost*|https://localhost*) echo "build-deb.sh: DEB_HOMEPAGE=$homepage is a placeholder" >&2; exit 1 ;;
    http://?*|https://?*) ;;
    *) echo "build-deb.sh: DEB_HOMEPAGE must be an http or https URL, found '$homepage'" >&2; exit 1 ;;
esac

stage=$(mktemp -d "${TMPDIR:-/tmp}/uwb2mqtt-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
root="$stage/root"
doc="$root/usr/share/doc/uwb2mqtt"

install -d -m 0755 "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/lib/udev/rules.d" \
    "$root/etc/uwb2mqtt" "$doc/mosquitto" "$doc/udev" "$root/usr/share/man/man1" "$root/usr/share/man/man5" \
    "$root/usr/share/lintian/overrides"
install -m 0755 "$binary" "$root/usr/bin/uwb2mqtt"
# As dh_strip does.
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/uwb2mqtt" 2>/dev/null || true
sed 's#/usr/local/bin/uwb2mqtt#/usr/bin/uwb2mqtt#g; s#^Documentation=\(.*\)#Documentation=\1 file:///usr/share/doc/uwb2mqtt/README.md#' \
    "$here/uwb2mqtt.service" > "$root/lib/systemd/system/uwb2mqtt.service"
chmod 0644 "$root/lib/systemd/system/uwb2mqtt.service"
install -m 0644 "$repo/udev/99-uwb2mqtt.rules" "$root/lib/udev/rules.d/99-uwb2mqtt.rules"
install -m 0644 "$repo/udev/99-uwb2mqtt-autostart.rules" "$doc/udev/"
# config.yaml may hold the session key: readable by the service group only (postinst), as the
# lintian override says. rules.yaml holds no secret.
install -m 0640 "$here/config.yaml" "$root/etc/uwb2mqtt/"
install -m 0644 "$here/rules.yaml" "$root/etc/uwb2mqtt/"
install -m 0644 "$here/config.yaml" "$here/rules.yaml" "$doc/"
install -m 0644 "$here/mosquitto/uwb2mqtt.conf" "$here/mosquitto/acl" "$doc/mosquitto/"
[ -f "$repo/README.md" ] && install -m 0644 "$repo/README.md" "$doc/README.md"
# The references the README links to, where its links find them.
if [ -d "$repo/docs" ]; then install -d -m 0755 "$doc/docs" && install -m 0644 "$repo"/docs/*.md "$doc/docs/"; fi
install -m 0644 "$here/debian/copyright" "$doc/copyright"
# A native package (the packaging lives with the source): changelog.gz, not changelog.Debian.gz.
gzip -9n -c "$here/debian/changelog" > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"
install -m 0644 "$here/debian/lintian-overrides" "$root/usr/share/lintian/overrides/uwb2mqtt"

# The manual pages, made by the binary packaged (from its declarations and schema), compressed as
# Debian wants (-n: no name or time in the file, so the same input gives the same bytes).
"$binary" man uwb2mqtt > "$stage/uwb2mqtt.1"
"$binary" man uwb2mqtt.yaml > "$stage/uwb2mqtt.yaml.5"
gzip -9n -c "$stage/uwb2mqtt.1" > "$root/usr/share/man/man1/uwb2mqtt.1.gz"
gzip -9n -c "$stage/uwb2mqtt.yaml.5" > "$root/usr/share/man/man5/uwb2mqtt.yaml.5.gz"
chmod 0644 "$root/usr/share/man/man1/uwb2mqtt.1.gz" "$root/usr/share/man/man5/uwb2mqtt.yaml.5.gz"

printf '/etc/uwb2mqtt/config.yaml\n/etc/uwb2mqtt/rules.yaml\n' > "$root/DEBIAN/conffiles"
install -m 0755 "$here/debian/postinst" "$here/debian/prerm" "$here/debian/postrm" "$root/DEBIAN/"
# md5sums of every file but the conffiles (dpkg keeps theirs), as dh_md5sums writes it.
(cd "$root" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
    > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
# The values go into sed's replacement: its special characters escaped.
quote() { printf '%s' "$1" | sed 's/[\\&|]/\\&/g'; }
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" -e "s|@MAINTAINER@|$(quote "$maintainer")|" \
    -e "${homepage:+s|@HOMEPAGE@|$(quote "$homepage")|}" -e '/^Homepage: @HOMEPAGE@$/d' \
    "$here/debian/control.in" > "$root/DEBIAN/control"

mkdir -p "$outdir"
package="$outdir/uwb2mqtt_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$package"
echo "$package"
