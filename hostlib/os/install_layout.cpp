#include "hostlib/os/install_layout.h"

#include <cstdlib>
#include <system_error>

namespace fs = std::filesystem;

namespace kvmbench::host {

namespace {

fs::path env_path(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? fs::path(v) : fs::path();
}

}  // namespace

fs::path install_prefix() {
  if (auto e = env_path("KVMBENCH_PREFIX"); !e.empty()) return e;
  std::error_code ec;
  // The binary itself, not argv[0]: found through PATH or a symlink alike.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = exe.parent_path();
  for (const fs::path& cand : {dir.parent_path(), dir})
    if (fs::is_directory(cand / "share" / "kvmbench", ec)) return cand;
  return {};
}

fs::path data_dir() {
  const fs::path p = install_prefix();
  return p.empty() ? fs::path() : p / "share" / "kvmbench";
}

fs::path libexec_dir() {
  const fs::path p = install_prefix();
  return p.empty() ? fs::path() : p / "libexec" / "kvmbench";
}

fs::path guest_kernel_cache() {
  if (auto e = env_path("KVMBENCH_GUEST_KERNEL_CACHE"); !e.empty()) return e;
  std::error_code ec;
  // The build tree's link is there before the kernel is fetched: its
  // "not found" then names the source's cache, where the script puts it.
  if (const fs::path d = data_dir(); !d.empty() && fs::exists(fs::symlink_status(d / "guest-kernel", ec)))
    return d / "guest-kernel";
  return "/var/cache/kvmbench/guest-kernel";
}

}  // namespace kvmbench::host
