#include "hostlib/state/state_dir.h"

#include <cstdlib>
#include <stdexcept>
#include <system_error>

namespace kvmbench::host {

std::filesystem::path state_dir() {
  if (const char* d = std::getenv("KVMBENCH_STATE_DIR"); d && *d) return d;
  return "/var/lib/kvmbench";
}

std::filesystem::path ab_state_dir(const std::filesystem::path& given) {
  if (!given.empty()) return given;
  if (const char* e = std::getenv("KVMBENCH_AB_STATE"); e && *e) return e;
  return state_dir() / "ab";
}

std::filesystem::path ensure_state_dir() {
  auto d = state_dir();
  std::error_code ec;
  std::filesystem::create_directories(d, ec);
  if (ec || !std::filesystem::is_directory(d))
    throw std::runtime_error("cannot create state directory " + d.string() + ": " +
                             (ec ? ec.message() : "not a directory") +
                             " (run as root or set KVMBENCH_STATE_DIR)");
  return d;
}

}  // namespace kvmbench::host
