#!/bin/sh
# The LAVA test device's root file system: a Debian initramfs (cpio.newc,
# uncompressed: LAVA unpacks and repacks it to append its overlay, and
# compressing it again would cost more than the copy saves) built with mmdebstrap from the Debian archive, minbase plus what
# the kvmbench package depends on, so that its .deb installs offline as
# on a lab device whose image carries its libraries; plus wget and
# iproute2 (the test definition fetches the .deb), kmod (insmod), the
# guest kernel's virtio_net modules and rootfs-init as /init.
#
#   rootfs.sh CACHE KVMBENCH_DEB KERNEL_MODULES_DIR
#
# prints the image's path. It is built once per recipe: the cache key
# covers this script, rootfs-init, the package list (from the .deb's
# Depends) and the modules, not kvmbench itself (the test installs it), so
# a rebuilt kvmbench reuses the image. Exit 77 (the reason on stderr) when
# it cannot be built here (not root, no mmdebstrap, no archive).
set -u
cache="$1" deb="$2" modules="$3"
here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(id -u)" != 0 ]; then
    echo "building the device's root file system needs root (mmdebstrap, device nodes)" >&2
    exit 77
fi
for tool in mmdebstrap cpio dpkg-deb sha256sum flock; do
    command -v "$tool" >/dev/null || { echo "$tool missing (scripts/bootstrap.sh)" >&2; exit 77; }
done
. /etc/os-release
suite="${VERSION_CODENAME:-bookworm}"
mirror="${KVMBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# The Depends of the .deb, one package of each alternative, without versions.
depends="$(dpkg-deb -f "$deb" Depends)" || { echo "cannot read $deb" >&2; exit 2; }
packages="$(echo "$depends" | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g' | grep . | sort -u | tr '\n' ',')"
packages="${packages}iproute2,kmod,wget"

key="$( { cat "$0" "$here/rootfs-init"; echo "$suite $mirror $packages";
          ls "$modules" 2>/dev/null; cat "$modules"/*.ko 2>/dev/null; } | sha256sum | cut -c1-16)"
out="$cache/rootfs-$key/rootfs.cpio"
mkdir -p "$cache" || exit 77
exec 9>"$cache/.rootfs.lock"
flock 9
if [ -f "$out" ]; then
    echo "$out"
    exit 0
fi
# One image is kept: an older recipe's is removed.
rm -rf "$cache"/rootfs-*
work="$cache/.rootfs-build.$$"
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
echo "rootfs.sh: building a $suite root file system ($packages) from $mirror" >&2
# merged-usr by the hook, not the usrmerge package (which would bring Perl);
# no documentation, manual pages or translations.
if ! mmdebstrap --variant=minbase --mode=root --include="$packages" \
        --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        "$suite" "$work/root" "$mirror" </dev/null >"$work/log" 2>&1; then
    tail -n 20 "$work/log" >&2
    echo "mmdebstrap could not build the root file system from $mirror" >&2
    exit 77
fi
root="$work/root"
install -m 0755 "$here/rootfs-init" "$root/init"
echo kvmbench-qemu >"$root/etc/hostname"
release="$(basename "$modules")"
if [ -d "$modules" ]; then
    mkdir -p "$root/lib/modules/$release"
    cp "$modules"/*.ko "$root/lib/modules/$release/" 2>/dev/null
fi
mkdir -p "$(dirname "$out").tmp"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$(dirname "$out").tmp/rootfs.cpio" || {
    echo "cannot write the image under $cache" >&2
    exit 77
}
mv "$(dirname "$out").tmp" "$(dirname "$out")"
echo "$out"
