#!/bin/sh
# Install the Debian packages kvmbench needs to build, test and boot its
# TCG guests. Idempotent and quiet when everything is already there.
set -eu

PACKAGES="cmake ninja-build g++ pkg-config libfmt-dev libcli11-dev libeigen3-dev
libbenchmark-dev libgtest-dev nlohmann-json3-dev libhwloc-dev libnuma-dev
libboost-dev libsqlite3-dev libpq-dev libcurl4-openssl-dev libyaml-cpp-dev postgresql git qemu-system-x86 busybox-static cpio kmod
chromium dpkg-dev file libxml2-utils python3-jsonschema lava-common
lava-server lava-dispatcher mmdebstrap kexec-tools systemd grub-pc-bin grub2-common
e2fsprogs"
# chromium: the HTML report is checked in a real (headless) browser.
# dpkg-dev, file: CPack's Debian package takes its Depends from
# dpkg-shlibdeps, which CPack runs on what `file` says is ELF.
# libxml2-utils: xmllint checks `kvmbench export --to junit` against the XSD;
# python3-jsonschema: its jsonschema (what kcidb-io validates with) checks
# `--to kcidb` against KCIDB's schema. lava-common (with python3-yaml and
# python3-voluptuous, nothing else): LAVA's own job and test definition
# schemas check lab-jobs/lava/. Test tools only, not kvmbench's.
# lava-server, lava-dispatcher, mmdebstrap: `kvmbench fleet`'s test (ctest
# -L lava-server) starts a real LAVA server with a worker
# (tests/support/lava/server.sh, no systemd needed) whose QEMU device boots
# a Debian root file system mmdebstrap builds (tests/support/lava/rootfs.sh)
# and installs this build's .deb; the dispatcher alone (lava-run) runs the
# nightly LAVA test (ctest -L lava). About 190 packages with their Depends
# (Django, libguestfs, udev, Perl): some 56 s of apt here once downloaded.
# Their maintainer scripts would start services (uuidd, mdadm) where no
# policy-rc.d forbids it: one that does is put in place for the install.
# kexec-tools: `kvmbench ab` boots each invocation's kernel with kexec, also
# inside the emulated lab (`kvmbench lab ab`), which uses the host's own.
# grub-pc-bin, grub2-common, e2fsprogs: `kvmbench lab ab --boot-via reboot`
# boots the lab from a disk through GRUB (grub-mkimage's core.img, an ext2
# partition mke2fs fills), and ab inside chooses each boot with the host's
# grub-reboot (hostlib/lab/lab_boot_disk.h). Only files: nothing is
# installed into this host's own boot.
# systemd: its systemd-analyze reads the units that resume `kvmbench ab`
# after each boot (verify, condition --unit), as systemd would at boot.
# kmod: modprobe, rmmod and depmod, also inside the emulated lab (`kvmbench
# lab`), whose kvm_amd reloads use the host's own.
# libcurl4-openssl-dev, libyaml-cpp-dev: `kvmbench fleet` talks to a LAVA
# server's REST API over HTTP(S) and reads LAVA's YAML (job templates, job
# logs).
# libsqlite3-dev, libpq-dev: the results database (SQLite file by default,
# PostgreSQL by URL); postgresql: its tests start a throwaway server of
# their own (initdb, pg_ctl). git: the bisect-run test drives `git bisect run`.
# util-linux's setpriv and unshare (Debian's base system) run the tests of a
# read-only database as `nobody` and of a full disk on a tmpfs of their own.

# `scripts/bootstrap.sh fuzz`: also clang-14 and libclang-rt-14-dev, the
# compiler and the libFuzzer runtime of the fuzz preset (the long fuzzing
# runs, docs/fuzzing.md). Not for the test command: ctest's bounded
# fuzzing runs under a driver of its own that g++ builds, so CI does not
# download a second compiler.
if [ "${1:-}" = fuzz ]; then
    PACKAGES="$PACKAGES clang-14 libclang-rt-14-dev"
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "bootstrap: missing Debian packages:$missing" >&2
        echo "bootstrap: run as root, or: sudo apt-get install$missing" >&2
        exit 1
    fi
    echo "bootstrap: installing$missing" >&2
    apt-get update -qq
    # No service starts from an install here (invoke-rc.d asks policy-rc.d;
    # 101: "action forbidden"); a policy the machine has is left as it is.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 0755 "$policy"
        trap 'rm -f "$policy"' EXIT
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    if [ -n "$policy" ]; then rm -f "$policy"; trap - EXIT; fi
fi

# The guest kernel: a Debian kernel image package, downloaded (not installed)
# into a cache that the build's guest image recipe reads.
exec "$(dirname "$0")/fetch-guest-kernel.sh"
