// One measuring kvmbench per host: two runs at once would measure each
// other. An flock on a lock file (released by the kernel when the process
// dies, so a crash never leaves a stale lock); the holder's pid and command
// are written into the file for the message the second run prints.
#pragma once

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "analysis/model/busy_error.h"

namespace kvmbench::host {

// $KVMBENCH_STATE_DIR/run.lock when set, else /run/lock/kvmbench.lock, else
// (no writable /run/lock) <tmp>/kvmbench.lock.
std::filesystem::path default_run_lock_path();

// Thrown when the lock stays taken: another run holds it (a busy host, not
// one that cannot run), so that a caller can tell it from a lock file that
// cannot be opened.
struct RunLockBusy : BusyError {
  std::string holder;          // "pid N: what", or "unknown pid"
  std::filesystem::path path;  // the lock file
  RunLockBusy(const std::string& msg, std::string who, std::filesystem::path file)
      : BusyError(msg), holder(std::move(who)), path(std::move(file)) {}
};

// Thrown when the lock file cannot be had at all: its directory is
// read-only or cannot be made, the path is a directory, ... Bad set-up (exit
// 2, the path and the reason named), neither busy (a poller would try
// again for ever) nor a host that cannot run.
struct RunLockUnusable : std::runtime_error {
  std::filesystem::path path;
  RunLockUnusable(const std::string& msg, std::filesystem::path file)
      : std::runtime_error(msg), path(std::move(file)) {}
};

// Opens (creating it and its directory where missing) the lock file at
// `path` for RunLock; the descriptor. Throws RunLockUnusable naming the
// path and the reason. Also what a command calls to check a lock it will
// take, before it starts anything.
int open_lock_file(const std::filesystem::path& path);

// A wait without limit: until the holder lets go (or an interrupt).
inline constexpr std::chrono::milliseconds kWaitForever = std::chrono::milliseconds::max();

class RunLock {
 public:
  // Takes the lock, waiting up to `wait` (zero: do not wait; kWaitForever:
  // no limit). Throws RunLockBusy "another kvmbench run (pid N: what) holds
  // PATH" when it stays taken (the wait ran out, or an interrupt ended it),
  // RunLockUnusable when the lock file cannot be opened or locked.
  explicit RunLock(std::chrono::milliseconds wait = std::chrono::milliseconds(0),
                   const std::string& what = "", std::filesystem::path path = default_run_lock_path());
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Who holds `path` now ("pid N: what"), "" when nobody (does not take it).
  static std::string holder(const std::filesystem::path& path = default_run_lock_path());

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace kvmbench::host
