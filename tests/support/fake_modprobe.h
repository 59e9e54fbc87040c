// Stand-ins for modprobe and rmmod over a fake sysfs tree ($FAKE_ROOT), for
// tests of the module-reload knob (hostlib/state/module_reload.h) through
// $KVMBENCH_MODPROBE (rmmod is the copy beside it): `rmmod M` removes
// sys/module/M; `modprobe M k=v ...` creates it with refcnt 0, npt=Y,
// nested=1, then the given parameters (1/y -> Y, 0/n -> N). Every call is
// logged to modprobe.log as "rmmod M" / "modprobe M k=v". Flag files in the
// root make a load fail: modprobe-fails-load (every load),
// modprobe-fails-load-once (the next one).
#pragma once

#include <sys/stat.h>

#include <filesystem>

#include "tests/support/run_command.h"

namespace kvmbench::test_support {

inline constexpr const char* kFakeModprobe = R"(#!/bin/sh
root="$FAKE_ROOT"
me=$(basename "$0")
echo "$me $*" >> "$root/modprobe.log"
if [ "$me" = rmmod ]; then rm -rf "$root/sys/module/$1"; exit 0; fi
if [ "$1" = "-r" ]; then echo "modprobe -r would unload the dependencies too" >&2; exit 1; fi
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

// Writes the script at `path` (the modprobe) and as rmmod beside it, executable.
inline void write_fake_modprobe(const std::filesystem::path& path) {
  for (const auto& p : {path, path.parent_path() / "rmmod"}) {
    write_text(p, kFakeModprobe);
    ::chmod(p.c_str(), 0755);
  }
}

}  // namespace kvmbench::test_support
