#include "hostlib/state/knob_journal.h"

#include "analysis/model/json_input.h"
#include "hostlib/os/kernel_files.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hostlib/state/module_reload.h"
#include "hostlib/state/state_dir.h"

namespace kvmbench::host {

namespace {

std::atomic<std::uint64_t> g_next_id{1};

// Holds the journal's lock file (exclusive flock) for a scope.
class JournalLock {
 public:
  JournalLock() {
    auto p = knob_journal_path();
    p += ".lock";
    fd_ = ::open(p.c_str(), O_RDWR | O_CLOEXEC | O_CREAT, 0644);
    // Not root: an existing lock file can still be locked read-only, enough
    // to read the journal consistently.
    if (fd_ < 0) fd_ = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return;
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~JournalLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
  }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

void append_line(const std::string& line) {
  auto path = knob_journal_path();
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write knob journal {}: {}", path.string(), std::strerror(errno)));
  std::string l = line + "\n";
  ssize_t n = ::write(fd, l.data(), l.size());
  int e = errno;
  bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (n != static_cast<ssize_t>(l.size()) || !synced)
    throw std::runtime_error(fmt::format("cannot write knob journal {}: {}", path.string(), std::strerror(e)));
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool process_alive(long pid, long start) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  long now = process_start_ticks(pid);
  // /proc not readable: trust kill(); otherwise the start time must match.
  return now < 0 ? true : now == start;
}

std::string write_value(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  ssize_t n = ::write(fd, value.data(), value.size());
  int e = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(value.size())) return n < 0 ? std::strerror(e) : "short write";
  return "";
}

}  // namespace

std::filesystem::path knob_journal_path() { return state_dir() / "knobs.journal"; }

long process_start_ticks(long pid) {
  const auto stat = read_kernel_value(fmt::format("/proc/{}/stat", pid));
  if (!stat) return -1;
  const std::string& s = *stat;
  // The command name (field 2) may contain spaces and parentheses: count
  // fields after the last ')'.
  auto rp = s.rfind(')');
  if (rp == std::string::npos) return -1;
  std::istringstream rest(s.substr(rp + 2));
  std::string field;
  for (int i = 3; i <= 22; ++i)
    if (!(rest >> field)) return -1;
  try {
    return std::stol(field);
  } catch (...) {
    return -1;
  }
}

std::string current_boot_id() {
  return trim(read_kernel_value("/proc/sys/kernel/random/boot_id").value_or(""));
}

namespace {

// Appends a "set" entry (this process, this boot, a fresh id, `path` and
// `old`, plus `more`) under the journal lock; returns its id.
std::uint64_t journal_set(const std::string& path, const std::string& old_value, const nlohmann::json& more) {
  ensure_state_dir();
  JournalLock lock;
  if (!lock.ok())
    throw std::runtime_error(fmt::format("cannot lock knob journal {}.lock: {}", knob_journal_path().string(),
                                         std::strerror(errno)));
  std::uint64_t id = g_next_id++;
  long pid = ::getpid();
  nlohmann::json j = {{"op", "set"},   {"pid", pid},   {"start", process_start_ticks(pid)},
                      {"boot", current_boot_id()}, {"id", id}, {"path", path}, {"old", old_value}};
  for (auto& [k, v] : more.items()) j[k] = v;
  append_line(j.dump());
  return id;
}

}  // namespace

std::uint64_t journal_knob_change(const std::string& path, const std::string& old_value) {
  return journal_set(path, old_value, nlohmann::json::object());
}

std::uint64_t journal_module_reload(const std::string& module_dir, const std::map<std::string, std::string>& old,
                                    const std::map<std::string, std::string>& all) {
  return journal_set(module_dir, format_module_params(old),
                     {{"kind", "module_reload"}, {"params", old}, {"all", all}});
}

void journal_knob_restored(std::uint64_t id) {
  try {
    JournalLock lock;
    if (!lock.ok()) return;
    long pid = ::getpid();
    nlohmann::json j = {{"op", "done"}, {"pid", pid}, {"start", process_start_ticks(pid)}, {"id", id}};
    append_line(j.dump());
  } catch (...) {
  }
}

KnobRestoreReport restore_dead_knob_changes() {
  KnobRestoreReport rep;
  auto path = knob_journal_path();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return rep;
  rep.journal_found = true;
  JournalLock lock;
  if (!lock.ok()) {
    rep.error = fmt::format("cannot lock {}.lock: {}", path.string(), std::strerror(errno));
    return rep;
  }
  std::ifstream in(path);
  if (!in) {
    rep.error = fmt::format("cannot read {}", path.string());
    return rep;
  }
  struct Pending {
    nlohmann::json line;
    bool done = false;
  };
  using Owner = std::pair<long, long>;  // pid, start ticks
  std::map<Owner, std::map<std::uint64_t, Pending>> owners;
  std::vector<std::string> unparsable;
  std::size_t lines_read = 0;
  for (std::string l; std::getline(in, l);) {
    if (l.empty()) continue;
    ++lines_read;
    const nlohmann::json j = parse_json_input_or_discarded(l);
    if (j.is_discarded() || !j.is_object() || !j.contains("op") || !j.contains("pid") || !j.contains("id")) {
      // A torn last line from a crash in the middle of a write: the change
      // it described was never made (the journal is written first).
      unparsable.push_back(l);
      continue;
    }
    Owner o{j.value("pid", 0L), j.value("start", -1L)};
    auto id = j.value("id", std::uint64_t{0});
    if (j["op"] == "set")
      owners[o][id].line = j;
    else if (j["op"] == "done")
      owners[o][id].done = true;
  }
  const auto boot = current_boot_id();
  std::vector<std::string> keep;
  for (auto& [owner, changes] : owners) {
    bool alive = process_alive(owner.first, owner.second);
    // Newest first: a knob changed twice goes back to its first old value.
    for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
      auto& p = it->second;
      if (p.done || p.line.is_null()) continue;
      if (alive) {
        keep.push_back(p.line.dump());
        ++rep.kept_live;
        continue;
      }
      if (p.line.value("boot", std::string()) != boot) {
        ++rep.dropped_stale_boot;
        continue;
      }
      KnobRestoreResult r;
      r.path = p.line.value("path", std::string());
      r.value = p.line.value("old", std::string());
      r.pid = owner.first;
      if (p.line.value("kind", std::string()) == "module_reload") {
        // A module reload: modprobe, not a file write.
        ModuleParams old;
        if (p.line.contains("params") && p.line["params"].is_object())
          for (auto& [k, v] : p.line["params"].items())
            if (v.is_string()) old[k] = v.get<std::string>();
        r.error = old.empty() ? std::string("journal line without parameters")
                              : restore_module_params(default_modprobe_command(), r.path, old);
      } else {
        r.error = write_value(r.path, r.value);
      }
      r.ok = r.error.empty();
      if (!r.ok) keep.push_back(p.line.dump());  // try again next time (e.g. as root)
      rep.restored.push_back(r);
    }
  }
  std::reverse(keep.begin(), keep.end());  // keep.front() was newest; file order is oldest first
  // Rewrite when something changed or when lines of finished changes can be
  // dropped (the journal would otherwise grow with every run).
  bool must = !rep.restored.empty() || rep.dropped_stale_boot || !unparsable.empty();
  bool compact = lines_read > keep.size();
  if (!must && compact && ::access(path.parent_path().c_str(), W_OK) != 0) return rep;  // not ours to tidy
  if (must || compact) {
    auto tmp = path;
    tmp += ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      for (auto& l : keep) out << l << '\n';
      out.flush();
      if (!out) {
        rep.error = fmt::format("cannot rewrite {}", path.string());
        return rep;
      }
    }
    int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ::fsync(fd);
      ::close(fd);
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) rep.error = fmt::format("cannot rewrite {}: {}", path.string(), ec.message());
  }
  return rep;
}

}  // namespace kvmbench::host
