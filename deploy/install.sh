#!/bin/sh
# uwb2mqtt installer: binary, manual pages, systemd unit, udev rule, example config, system user, spool dir.
#
#   sudo deploy/install.sh [--binary PATH] [--prefix DIR] [--autostart]
#   sudo deploy/install.sh --uninstall [--purge]
#   deploy/install.sh --destdir DIR ...      stage into DIR (no user, no chown, no reloads)
#
# Idempotent: run it again after a rebuild to upgrade. It never overwrites an existing
# /etc/uwb2mqtt/config.yaml or rules.yaml (the examples also go to PREFIX/share/doc/uwb2mqtt/).
# PREFIX and DESTDIR may also come from the environment (as `make install` passes them).
# --uninstall keeps /etc/uwb2mqtt, the spool in /var/lib/uwb2mqtt and the user unless --purge.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
binary="$repo/.build/release/uwb2mqtt"
action=install
purge=no
autostart=no
service_user=uwb2mqtt

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --binary) [ $# -ge 2 ] || usage; binary=$2; shift 2 ;;
        --binary=*) binary=${1#*=}; shift ;;
        --prefix) [ $# -ge 2 ] || usage; PREFIX=$2; shift 2 ;;
        --prefix=*) PREFIX=${1#*=}; shift ;;
        --destdir) [ $# -ge 2 ] || usage; DESTDIR=$2; shift 2 ;;
        --destdir=*) DESTDIR=${1#*=}; shift ;;
        --autostart) autostart=yes; shift ;;
        --uninstall) action=uninstall; shift ;;
        --purge) purge=yes; shift ;;
        -h|--help) usage 0 ;;
        *) echo "install.sh: unknown argument '$1'" >&2; usage ;;
    esac
done

# With DESTDIR we only stage files (packaging, tests): no user, no ownership, no reloads.
live=yes
[ -n "$DESTDIR" ] && live=no
if [ "$live" = yes ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo), or stage with --destdir DIR" >&2
    exit 1
fi

bindir="$DESTDIR$PREFIX/bin"
docdir="$DESTDIR$PREFIX/share/doc/uwb2mqtt"
mandir="$DESTDIR$PREFIX/share/man"
unitdir="$DESTDIR/etc/systemd/system"
udevdir="$DESTDIR/etc/udev/rules.d"
confdir="$DESTDIR/etc/uwb2mqtt"
statedir="$DESTDIR/var/lib/uwb2mqtt"

say() { echo "install.sh: $*"; }
systemd_running() { [ "$live" = yes ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; }
reload_udev() {
    if [ "$live" = yes ] && command -v udevadm >/dev/null 2>&1; then
        udevadm control --reload || true
        udevadm trigger --subsystem-match=tty --action=add || true
    fi
}

if [ "$action" = uninstall ]; then
    if systemd_running; then
        systemctl disable --now uwb2mqtt.service 2>/dev/null || true
    fi
    rm -f "$bindir/uwb2mqtt" "$mandir/man1/uwb2mqtt.1" "$mandir/man5/uwb2mqtt.yaml.5" "$unitdir/uwb2mqtt.service" \
          "$udevdir/99-uwb2mqtt.rules" "$udevdir/99-uwb2mqtt-autostart.rules"
    rm -rf "$docdir"
    systemd_running && systemctl daemon-reload
    reload_udev
    if [ "$purge" = yes ]; then
        rm -rf "$confdir" "$statedir"
        if [ "$live" = yes ] && id "$service_user" >/dev/null 2>&1; then
            userdel "$service_user" 2>/dev/null || say "could not remove user $service_user"
        fi
        say "removed uwb2mqtt, its config, spool and user"
    else
        say "removed uwb2mqtt; kept $confdir, $statedir and user $service_user (--purge removes them)"
    fi
    exit 0
fi

[ -x "$binary" ] || { echo "install.sh: no executable at $binary (build it: swift build -c release --static-swift-stdlib, or pass --binary)" >&2; exit 1; }

# The system user: no login, no home of its own beyond the spool, in dialout for the serial port.
if [ "$live" = yes ]; then
    if ! id "$service_user" >/dev/null 2>&1; then
        nologin=$(command -v nologin || echo /usr/sbin/nologin)
        useradd --system --user-group --home-dir /var/lib/uwb2mqtt --no-create-home \
                --shell "$nologin" --comment "uwb2mqtt gateway" "$service_user"
        say "created system user $service_user"
    fi
    if getent group dialout >/dev/null 2>&1; then
        usermod -a -G dialout "$service_user"
    fi
fi

install -d -m 0755 "$bindir" "$docdir" "$unitdir" "$udevdir" "$mandir/man1" "$mandir/man5"
install -m 0755 "$binary" "$bindir/uwb2mqtt"

# The manual pages uwb2mqtt(1) and uwb2mqtt.yaml(5), made by the binary from its declarations.
"$binary" man uwb2mqtt > "$mandir/man1/uwb2mqtt.1.tmp"
"$binary" man uwb2mqtt.yaml > "$mandir/man5/uwb2mqtt.yaml.5.tmp"
chmod 0644 "$mandir/man1/uwb2mqtt.1.tmp" "$mandir/man5/uwb2mqtt.yaml.5.tmp"
mv "$mandir/man1/uwb2mqtt.1.tmp" "$mandir/man1/uwb2mqtt.1"
mv "$mandir/man5/uwb2mqtt.yaml.5.tmp" "$mandir/man5/uwb2mqtt.yaml.5"

# The unit names /usr/local/bin/uwb2mqtt; follow a different PREFIX.
sed "s#/usr/local/bin/uwb2mqtt#$PREFIX/bin/uwb2mqtt#g" "$here/uwb2mqtt.service" > "$unitdir/uwb2mqtt.service.tmp"
chmod 0644 "$unitdir/uwb2mqtt.service.tmp"
mv "$unitdir/uwb2mqtt.service.tmp" "$unitdir/uwb2mqtt.service"

install -m 0644 "$repo/udev/99-uwb2mqtt.rules" "$udevdir/99-uwb2mqtt.rules"
if [ "$autostart" = yes ]; then
    install -m 0644 "$repo/udev/99-uwb2mqtt-autostart.rules" "$udevdir/99-uwb2mqtt-autostart.rules"
fi

for file in config.yaml rules.yaml; do
    install -m 0644 "$here/$file" "$docdir/$file"
done
install -d -m 0755 "$docdir/mosquitto"
install -m 0644 "$here/mosquitto/uwb2mqtt.conf" "$here/mosquitto/acl" "$docdir/mosquitto/"

# Config: root-owned, in a directory only the service's group may enter; config.yaml, which may
# hold the session key, readable by that group only (the password file lives here too). The
# group may create files there (rules_set and rules_topic write rules.yaml.new and rules.yaml.bak
# and rename the new file over rules.yaml, which is the service's), but the sticky bit keeps it
# from renaming or removing anything it does not own: config.yaml and the password file.
install -d -m 1770 "$confdir"
for file in config.yaml rules.yaml; do
    if [ -e "$confdir/$file" ]; then
        say "kept existing $confdir/$file"
    else
        mode=0644
        [ "$file" = config.yaml ] && mode=0640
        install -m "$mode" "$here/$file" "$confdir/$file"
        say "installed example $confdir/$file"
    fi
done

# The spool (mqtt.spool_dir). systemd's StateDirectory= would create it too; made here so that
# `uwb2mqtt doctor` run by hand before the first start finds it.
install -d -m 0750 "$statedir"

if [ "$live" = yes ]; then
    chown "root:$service_user" "$confdir" "$confdir/config.yaml"
    chown "$service_user:$service_user" "$confdir/rules.yaml"
    [ -e "$confdir/mqtt.password" ] && chown "root:$service_user" "$confdir/mqtt.password" && chmod 0640 "$confdir/mqtt.password"
    chown "$service_user:$service_user" "$statedir"
    reload_udev
    if systemd_running; then
        systemctl daemon-reload
        systemctl try-restart uwb2mqtt.service || true
    fi
    say "installed $PREFIX/bin/uwb2mqtt. Next:"
    say "  edit /etc/uwb2mqtt/config.yaml (device.peers, mqtt.url), then: uwb2mqtt check"
    say "  sudo -u $service_user $PREFIX/bin/uwb2mqtt doctor"
    say "  sudo systemctl enable --now uwb2mqtt"
else
    say "staged into $DESTDIR"
fi
