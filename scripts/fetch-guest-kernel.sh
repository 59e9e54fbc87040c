#!/bin/sh
# Download a Debian kernel image package (not installed on the host) and
# extract its vmlinuz into .cache/guest-kernel/, for the TCG guest tests.
# Quiet and quick when it is already there. A failure is not fatal: the
# guest tests then skip with the reason.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/.cache/guest-kernel"
pkg="${KVMBENCH_GUEST_KERNEL_PKG:-linux-image-cloud-amd64}"
if ls "$cache"/vmlinuz-* >/dev/null 2>&1; then
    exit 0
fi
mkdir -p "$cache/deb"
cd "$cache/deb" || exit 0
# The metapackage depends on the versioned image package; download that one.
real="$(apt-cache depends "$pkg" 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')"
[ -n "$real" ] || real="$pkg"
if ! apt-get download -qq "$real" >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then apt-get update -qq >/dev/null 2>&1; fi
    apt-get download -qq "$real" >/dev/null 2>&1 || {
        echo "bootstrap: could not download $real; guest tests will skip" >&2
        exit 0
    }
fi
deb="$(ls -1 "$cache"/deb/*.deb | head -n1)"
tmp="$cache/extract"
rm -rf "$tmp"; mkdir -p "$tmp"
dpkg-deb -x "$deb" "$tmp"
cp "$tmp"/boot/vmlinuz-* "$cache/"
rm -rf "$tmp"
echo "bootstrap: guest kernel $(ls "$cache" | grep vmlinuz)" >&2
