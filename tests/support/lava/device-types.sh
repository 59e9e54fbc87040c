#!/bin/sh
# LAVA's device-type templates (qemu.jinja2 and the base.jinja2 it extends),
# which a LAVA server renders a device dictionary with. Debian ships them in
# lava-server, whose Depends (Django, PostgreSQL) the dispatcher does not
# need: its .deb of the installed lava-dispatcher's version is downloaded
# (not installed) and only the templates are kept.
#
#   device-types.sh CACHE    prints the templates' folder; exit 77 (the
#                            reason on stderr) when they cannot be had
set -u
cache="$1"
version="$(dpkg-query -W -f='${Version}' lava-dispatcher 2>/dev/null)"
if [ -z "$version" ]; then
    echo "lava-dispatcher is not installed (scripts/bootstrap.sh)" >&2
    exit 77
fi
dir="$cache/lava-server-$version/device-types"
mkdir -p "$cache" || exit 77
exec 9>"$cache/.device-types.lock"
flock 9
if [ -f "$dir/qemu.jinja2" ]; then
    echo "$dir"
    exit 0
fi
work="$(mktemp -d "$cache/.device-types.XXXXXX")" || exit 77
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get download -qq "lava-server=$version" >/dev/null 2>&1); then
    if [ "$(id -u)" = 0 ]; then apt-get update -qq >/dev/null 2>&1; fi
    (cd "$work" && apt-get download -qq "lava-server=$version" >/dev/null 2>&1) || {
        echo "cannot download lava-server $version from the Debian archive" >&2
        exit 77
    }
fi
dpkg-deb -x "$work"/lava-server_*.deb "$work/x" &&
    mkdir -p "$(dirname "$dir")" &&
    rm -rf "$dir" && mv "$work/x/usr/share/lava-server/device-types" "$dir" || {
    echo "lava-server $version holds no usr/share/lava-server/device-types" >&2
    exit 77
}
echo "$dir"
