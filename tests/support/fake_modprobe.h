// A stand-in for modprobe over a fake sysfs tree ($FAKE_ROOT), for tests of
// the module-reload knob (hostlib/module_reload.h) through
// $KVMBENCH_MODPROBE: `-r M` removes sys/module/M; `M k=v ...` creates it
// with refcnt 0, npt=Y, nested=1, then the given parameters (1/y -> Y,
// 0/n -> N). Every call is logged to modprobe.log. Flag files in the root
// make a load fail: modprobe-fails-load (every load), modprobe-fails-load-once
// (the next one).
#pragma once

#include <sys/stat.h>

#include <filesystem>

#include "tests/support/run_command.h"

namespace kvmbench::test_support {

inline constexpr const char* kFakeModprobe = R"(#!/bin/sh
root="$FAKE_ROOT"
echo "$*" >> "$root/modprobe.log"
if [ "$1" = "-r" ]; then rm -rf "$root/sys/module/$2"; exit 0; fi
if [ -e "$root/modprobe-fails-load" ]; then echo "modprobe: ERROR: could not insert '$1'" >&2; exit 1; fi
if [ -e "$root/modprobe-fails-load-once" ]; then rm -f "$root/modprobe-fails-load-once"; echo "modprobe: ERROR: once" >&2; exit 1; fi
m=$1; shift
d="$root/sys/module/$m"
mkdir -p "$d/parameters"
echo 0 > "$d/refcnt"
echo Y > "$d/parameters/npt"
echo 1 > "$d/parameters/nested"
for a in "$@"; do
  k=${a%%=*}; v=${a#*=}
  case $v in 1|y|Y) v=Y;; 0|n|N) v=N;; esac
  echo "$v" > "$d/parameters/$k"
done
)";

// Writes the script at `path`, executable.
inline void write_fake_modprobe(const std::filesystem::path& path) {
  write_text(path, kFakeModprobe);
  ::chmod(path.c_str(), 0755);
}

}  // namespace kvmbench::test_support
