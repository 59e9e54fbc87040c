#!/bin/sh
# Boot a candidate kernel with kexec, as LKP boots its test kernels: no
# firmware, no boot loader, no change to the machine's default boot entry
# (a hang or a bad kernel ends with the next power cycle in the lab's
# default kernel). The running kernel's command line is kept, so the
# candidate boots with the machine's settings (hugepages=, kvm_amd.*,
# isolcpus=...); --append adds to it, --cmdline-file takes another one
# (a saved command line) instead of /proc/cmdline.
#
#   kexec-candidate.sh [--initrd FILE] [--append "ARGS"] [--cmdline-file FILE]
#                      [--delay S] [--dry-run] BZIMAGE
#
# The kexec happens --delay seconds (default 10) after the script returns,
# through systemd, so a CI job that calls it can end and report first; the
# next job checks `uname -r` and runs `kvmbench probe --require` on the new
# kernel. --dry-run prints the kexec command and does nothing. Needs root
# and kexec-tools.
set -eu

usage() {
    echo "usage: $0 [--initrd FILE] [--append ARGS] [--cmdline-file FILE] [--delay S] [--dry-run] BZIMAGE" >&2
    exit 2
}

initrd=""
append=""
cmdline_file=/proc/cmdline
delay=10
dry_run=0
while [ $# -gt 0 ]; do
    case "$1" in
        --initrd) [ $# -ge 2 ] || usage; initrd=$2; shift 2 ;;
        --append) [ $# -ge 2 ] || usage; append=$2; shift 2 ;;
        --cmdline-file) [ $# -ge 2 ] || usage; cmdline_file=$2; shift 2 ;;
        --delay) [ $# -ge 2 ] || usage; delay=$2; shift 2 ;;
        --dry-run) dry_run=1; shift ;;
        -*) usage ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || usage
kernel=$1
[ -r "$kernel" ] || { echo "$0: $kernel: cannot read the kernel image" >&2; exit 2; }
[ -z "$initrd" ] || [ -r "$initrd" ] || { echo "$0: $initrd: cannot read the initrd" >&2; exit 2; }
[ -r "$cmdline_file" ] || { echo "$0: $cmdline_file: cannot read the command line" >&2; exit 2; }
case "$delay" in ''|*[!0-9]*) echo "$0: --delay $delay: not a number of seconds" >&2; exit 2 ;; esac

# The boot loader's own words (BOOT_IMAGE=, initrd=) name the old kernel's
# files: the candidate gets its own. --append goes before a "--", after
# which the words are init's, not the kernel's. No globbing of the words.
set -f
kernel_args=""
init_args=""
seen_dashes=0
for word in $(cat "$cmdline_file"); do
    if [ "$seen_dashes" = 1 ]; then init_args="$init_args $word"; continue; fi
    case "$word" in
        --) seen_dashes=1 ;;
        BOOT_IMAGE=*|initrd=*) ;;
        *) kernel_args="$kernel_args $word" ;;
    esac
done
set +f
cmdline="${kernel_args# }${append:+ $append}"
[ "$seen_dashes" = 0 ] || cmdline="$cmdline --$init_args"

if [ "$dry_run" = 1 ]; then
    echo "kexec -l $kernel${initrd:+ --initrd=$initrd} --append=\"$cmdline\""
    echo "systemd-run --on-active=$delay systemctl kexec"
    exit 0
fi
command -v kexec >/dev/null || { echo "$0: kexec not found (Debian: kexec-tools)" >&2; exit 77; }
if [ -n "$initrd" ]; then
    kexec -l "$kernel" --initrd="$initrd" --append="$cmdline"
else
    kexec -l "$kernel" --append="$cmdline"
fi
# systemctl kexec stops the services (the CI runner among them) and
# unmounts file systems before jumping, unlike a bare `kexec -e`.
systemd-run --on-active="$delay" systemctl kexec
echo "$0: $kernel loaded; kexec in ${delay}s"
