#!/bin/sh
# Download a Debian kernel image package (not installed on the host) and
# extract its vmlinuz into .cache/guest-kernel/, for the TCG guest tests,
# plus the virtio network modules the guest needs for tcp_rr / tcp_stream
# (the cloud kernel builds them as modules) into
# .cache/guest-kernel/modules/<release>/ (flat: <name>.ko).
# Quiet and quick when it is already there. A failure is not fatal: the
# guest tests then skip with the reason.
# Installed (/usr/libexec/kvmbench/fetch-guest-kernel.sh) it fills
# /var/cache/kvmbench/guest-kernel, where an installed kvmbench looks;
# $KVMBENCH_GUEST_KERNEL_CACHE overrides both (hostlib/os/install_layout.h).
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -f "$root/CMakeLists.txt" ]; then
    default_cache="$root/.cache/guest-kernel"
else
    default_cache=/var/cache/kvmbench/guest-kernel
fi
cache="${KVMBENCH_GUEST_KERNEL_CACHE:-$default_cache}"
pkg="${KVMBENCH_GUEST_KERNEL_PKG:-linux-image-cloud-amd64}"
# The modules the guest's init loads, in dependency order (see guests/image/init).
modules="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci failover net_failover virtio_net"
if ls "$cache"/vmlinuz-* >/dev/null 2>&1 && ls "$cache"/modules/*/virtio_net.ko >/dev/null 2>&1; then
    exit 0
fi
mkdir -p "$cache/deb"
cd "$cache/deb" || exit 0
if ! ls "$cache"/deb/*.deb >/dev/null 2>&1; then
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
fi
deb="$(ls -1 "$cache"/deb/*.deb | head -n1)"
tmp="$cache/extract"
rm -rf "$tmp"; mkdir -p "$tmp"
dpkg-deb -x "$deb" "$tmp"
cp "$tmp"/boot/vmlinuz-* "$cache/"
for dir in "$tmp"/lib/modules/*/; do
    [ -d "$dir" ] || continue
    release="$(basename "$dir")"
    mkdir -p "$cache/modules/$release"
    for m in $modules; do
        # Debian ships them uncompressed (bookworm) or as .ko.xz (later).
        f="$(find "$dir" -name "$m.ko" -o -name "$m.ko.xz" | head -n1)"
        case "$f" in
            *.ko) cp "$f" "$cache/modules/$release/" ;;
            *.ko.xz) xz -dc "$f" >"$cache/modules/$release/$m.ko" ;;
        esac
    done
done
rm -rf "$tmp"
echo "bootstrap: guest kernel $(ls "$cache" | grep vmlinuz)" >&2
