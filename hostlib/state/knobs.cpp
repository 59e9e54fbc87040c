#include "hostlib/state/knobs.h"
#include "hostlib/os/kernel_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "hostlib/state/host_change_record.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/state/knob_journal.h"
#include "hostlib/state/module_reload.h"
#include <algorithm>

namespace kvmbench::host {

namespace {

// The emergency table: old values pre-formatted in static storage so a
// signal handler can write them back without allocating or locking.
struct EmergencySlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 active
  unsigned long order = 0;
  char path[512];
  char value[512];
};
constexpr int kSlots = 256;
EmergencySlot g_slots[kSlots];
std::atomic<unsigned long> g_order{0};

int claim_slot(const std::string& path, const std::string& value) {
  if (path.size() >= sizeof g_slots[0].path || value.size() >= sizeof g_slots[0].value) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    std::memcpy(g_slots[i].value, value.c_str(), value.size() + 1);
    g_slots[i].order = ++g_order;
    g_slots[i].state.store(2);
    return i;
  }
  return -1;  // table full: the journal still covers this change
}

void release_slot(int i) {
  if (i >= 0) g_slots[i].state.store(0);
}

void install_emergency_restore() {
  static std::once_flag once;
  std::call_once(once, [] {
    set_second_interrupt_hook(&emergency_restore_knobs);
    std::atexit([] { emergency_restore_knobs(); });
  });
}

// Empty string on success, the error otherwise.
std::string write_text(const std::string& path, std::string_view value) {
  // O_TRUNC: sysfs ignores it, a regular file (fake tree in tests) needs it.
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  ssize_t n = ::write(fd, value.data(), value.size());
  int e = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(value.size())) return n < 0 ? std::strerror(e) : "short write";
  return "";
}

}  // namespace

void emergency_restore_knobs() noexcept {
  // Newest first, without allocating: repeatedly pick the active slot with
  // the highest order below the previous one.
  unsigned long below = ~0ul;
  for (;;) {
    int best = -1;
    unsigned long best_order = 0;
    for (int i = 0; i < kSlots; ++i)
      if (g_slots[i].state.load() == 2 && g_slots[i].order < below && g_slots[i].order >= best_order) {
        best = i;
        best_order = g_slots[i].order;
      }
    if (best < 0) return;
    int fd = ::open(g_slots[best].path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd >= 0) {
      ssize_t n = ::write(fd, g_slots[best].value, std::strlen(g_slots[best].value));
      (void)n;
      ::close(fd);
    }
    below = best_order;
  }
}

std::filesystem::path default_knob_root() {
  if (const char* r = std::getenv("KVMBENCH_SYSFS_ROOT"); r && *r) return r;
  return "/";
}

std::string knob_value_from_text(std::string_view text) {
  auto lb = text.find('[');
  auto rb = text.find(']', lb == std::string_view::npos ? 0 : lb);
  if (lb != std::string_view::npos && rb != std::string_view::npos) return std::string(text.substr(lb + 1, rb - lb - 1));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return std::string(text);
}

KnobSet::KnobSet(std::filesystem::path root) : root_(std::move(root)), modprobe_(default_modprobe_command()) {}

KnobSet::~KnobSet() {
  for (auto& e : restore()) fmt::print(stderr, "kvmbench: warning: {}\n", e);
}

std::string KnobSet::full(std::string_view path) const {
  std::string p(path);
  if (root_.empty() || root_ == "/") return p;
  auto r = root_.string();
  while (!r.empty() && r.back() == '/') r.pop_back();
  return r + (p.empty() || p.front() != '/' ? "/" : "") + p;
}

std::string KnobSet::set(std::string_view rel, std::string_view value) {
  const std::string path = full(rel);
  const std::string old = knob_value_from_text(read_kernel_file_or_throw(path));
  install_emergency_restore();
  // Journal first: a SIGKILL between the two leaves a line whose restore
  // writes the value that is already there, never a change without a line.
  auto id = journal_knob_change(path, old);
  int slot = claim_slot(path, old);
  if (auto err = write_text(path, value); !err.empty()) {
    release_slot(slot);
    journal_knob_restored(id);
    throw std::runtime_error(fmt::format("cannot write '{}' to {}: {}", value, path, err));
  }
  changes_.push_back({path, old, std::string(value), id, false, {}, record_host_change("knob", path, old, std::string(value))});
  slots_.push_back(slot);
  try {
    return knob_value_from_text(read_kernel_file_or_throw(path));
  } catch (...) {
    return std::string(value);  // write-only files
  }
}

std::string KnobSet::set_thp_enabled(std::string_view mode) {
  return set("/sys/kernel/mm/transparent_hugepage/enabled", mode);
}

std::uint64_t KnobSet::set_hugepages(std::uint64_t page_kb, std::uint64_t count, std::optional<int> node) {
  auto path = node ? fmt::format("/sys/devices/system/node/node{}/hugepages/hugepages-{}kB/nr_hugepages", *node, page_kb)
                   : fmt::format("/sys/kernel/mm/hugepages/hugepages-{}kB/nr_hugepages", page_kb);
  std::error_code ec;
  if (!std::filesystem::exists(full(path), ec))
    throw std::runtime_error(fmt::format("no {} kB hugepage pool{} on this host ({} missing)", page_kb,
                                         node ? fmt::format(" on node {}", *node) : "", full(path)));
  auto got = set(path, std::to_string(count));
  try {
    return std::stoull(got);
  } catch (...) {
    throw std::runtime_error(fmt::format("unexpected content '{}' in {}", got, full(path)));
  }
}

std::string KnobSet::set_kvm_param(std::string_view module, std::string_view name, std::string_view value) {
  auto path = fmt::format("/sys/module/{}/parameters/{}", module, name);
  struct stat st {};
  if (::stat(full(path).c_str(), &st) != 0)
    throw std::runtime_error(fmt::format("{} has no parameter {} ({} missing)", module, name, full(path)));
  if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))
    throw std::runtime_error(fmt::format("{} parameter {} is read-only (set when the module is loaded)", module, name));
  return set(path, value);
}

std::map<std::string, std::string> KnobSet::reload_module(std::string_view module_name,
                                                          const std::map<std::string, std::string>& params) {
  const std::string module(module_name);
  const std::filesystem::path dir = full("/sys/module/" + module);
  ModuleState before = read_module_state(dir);
  // A guest that has just exited may still be dropping its hold on the
  // module: give refcnt a second to reach 0 before refusing.
  for (int i = 0; i < 10 && before.loadable && before.refcnt != 0 && !interrupted(); ++i) {
    ::usleep(100 * 1000);
    before = read_module_state(dir);
  }
  if (auto why = module_reload_refusal(dir, before); !why.empty()) throw std::runtime_error(why);
  ModuleParams old;
  bool same = true;
  for (auto& [k, v] : params) {
    auto it = before.params.find(k);
    if (it == before.params.end())
      throw std::runtime_error(fmt::format("{} has no parameter {} ({} missing)", module, k,
                                           (dir / "parameters" / k).string()));
    old[k] = it->second;
    same = same && module_param_equal(it->second, v);
  }
  if (same) return before.params;
  install_emergency_restore();  // for the other knobs; a reload is the journal's
  // Journal first, as for any knob: a crash from here on is put back by
  // the next start or `kvmbench restore`.
  const auto id = journal_module_reload(dir.string(), old, before.params);
  try {
    host::reload_module(modprobe_, dir, params);
  } catch (const std::exception& e) {
    // Put it back as it was, if it is not already.
    std::string back = restore_module_params(modprobe_, dir, old);
    if (back.empty()) {
      journal_knob_restored(id);
      throw std::runtime_error(fmt::format("{} (the module was loaded again with {})", e.what(),
                                           format_module_params(old)));
    }
    // The journal line stays: the next start tries again.
    throw std::runtime_error(fmt::format("{}; and then {}", e.what(), back));
  }
  changes_.push_back({dir.string(), format_module_params(old), format_module_params(params), id, true, old,
                      record_host_change("module_reload", dir.string(), format_module_params(old),
                                         format_module_params(params))});
  slots_.push_back(-1);
  const ModuleState after = read_module_state(dir);
  for (auto& [k, v] : params) {
    auto it = after.params.find(k);
    if (it == after.params.end() || !module_param_equal(it->second, v))
      throw std::runtime_error(fmt::format("{} reloaded with {}={} but reads {}", module, k, v,
                                           it == after.params.end() ? std::string("nothing") : it->second));
  }
  return after.params;
}

void KnobSet::set_governor(std::string_view governor, const std::vector<int>& cpus_in) {
  std::vector<int> cpus = cpus_in;
  if (cpus.empty()) {
    std::error_code ec;
    for (auto& e : std::filesystem::directory_iterator(full("/sys/devices/system/cpu"), ec)) {
      auto n = e.path().filename().string();
      if (n.rfind("cpu", 0) != 0 || n.size() < 4 || n.find_first_not_of("0123456789", 3) != std::string::npos) continue;
      if (std::filesystem::exists(e.path() / "cpufreq/scaling_governor", ec)) cpus.push_back(std::stoi(n.substr(3)));
    }
    if (cpus.empty()) throw std::runtime_error("no CPU has cpufreq here: the governor cannot be set");
    std::sort(cpus.begin(), cpus.end());
  }
  for (int c : cpus) set(fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_governor", c), governor);
}

void KnobSet::drop_caches(int what) {
  if (what < 1 || what > 3) throw std::invalid_argument(fmt::format("drop_caches: {} is not 1, 2 or 3", what));
  ::sync();
  auto path = full("/proc/sys/vm/drop_caches");
  if (auto err = write_text(path, std::to_string(what)); !err.empty())
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, err));
}

std::vector<std::string> KnobSet::restore() {
  std::vector<std::string> errors;
  while (!changes_.empty()) {
    auto c = std::move(changes_.back());
    int slot = slots_.back();
    changes_.pop_back();
    slots_.pop_back();
    std::string err = c.module_reload ? restore_module_params(modprobe_, c.path, c.module_old_params)
                                      : write_text(c.path, c.old_value);
    record_host_restore(c.record, err);
    if (!err.empty()) {
      // Leave the journal line: `kvmbench restore` (as root) can try again.
      errors.push_back(c.module_reload ? err + " (the knob journal keeps it: `kvmbench restore` tries again)"
                                       : fmt::format("could not put back '{}' in {}: {}", c.old_value, c.path, err));
      release_slot(slot);
      continue;
    }
    release_slot(slot);
    journal_knob_restored(c.journal_id);
  }
  return errors;
}

}  // namespace kvmbench::host
