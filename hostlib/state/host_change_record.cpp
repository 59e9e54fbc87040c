#include "hostlib/state/host_change_record.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "analysis/store/run_store.h"
#include "hostlib/os/lab_env.h"

namespace kvmbench::host {

namespace {

struct Entry {
  std::string kind, path, old_value, new_value, set_at, restored_at, restore_error;
};

std::mutex& record_mutex() {
  static std::mutex m;
  return m;
}

std::vector<Entry>& entries() {
  static std::vector<Entry> e;
  return e;
}

// Inside the lab: one line on the machine's console (best effort).
void tell_lab_console(const std::string& line) {
  const char* lab = std::getenv(kLabEnv);
  if (!lab || !*lab) return;
  const int fd = ::open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return;
  const std::string text = "KVMBENCH-LAB-CHANGE " + line + "\n";
  [[maybe_unused]] auto n = ::write(fd, text.data(), text.size());
  ::close(fd);
}

}  // namespace

std::size_t record_host_change(const std::string& kind, const std::string& path, const std::string& old_value,
                               const std::string& new_value) {
  Entry e{kind, path, old_value, new_value, utc_timestamp_iso(), "", ""};
  tell_lab_console(fmt::format("set {} {}: {} -> {} at {}", kind, path, old_value, new_value, e.set_at));
  std::lock_guard lock(record_mutex());
  entries().push_back(std::move(e));
  return entries().size() - 1;
}

void record_host_restore(std::size_t entry, const std::string& error) {
  std::string line;
  {
    std::lock_guard lock(record_mutex());
    if (entry >= entries().size()) return;
    Entry& e = entries()[entry];
    if (error.empty()) e.restored_at = utc_timestamp_iso();
    else e.restore_error = error;
    line = error.empty() ? fmt::format("restored {} {}: {} at {}", e.kind, e.path, e.old_value, e.restored_at)
                         : fmt::format("not restored {} {}: {}", e.kind, e.path, error);
  }
  tell_lab_console(line);
}

std::size_t host_change_count() {
  std::lock_guard lock(record_mutex());
  return entries().size();
}

nlohmann::json host_changes_json(std::size_t from) {
  std::lock_guard lock(record_mutex());
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = from; i < entries().size(); ++i) {
    const Entry& e = entries()[i];
    nlohmann::json j = {{"kind", e.kind}, {"path", e.path}, {"old", e.old_value}, {"new", e.new_value},
                        {"set_at", e.set_at}};
    if (!e.restored_at.empty()) j["restored_at"] = e.restored_at;
    if (!e.restore_error.empty()) j["restore_error"] = e.restore_error;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace kvmbench::host
