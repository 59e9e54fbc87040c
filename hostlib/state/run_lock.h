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

// A wait without limit: until the holder lets go (or an interrupt).
inline constexpr std::chrono::milliseconds kWaitForever = std::chrono::milliseconds::max();

class RunLock {
 public:
  // Takes the lock, waiting up to `wait` (zero: do not wait; kWaitForever:
  // no limit). Throws RunLockBusy "another kvmbench run (pid N: what) holds
  // PATH" when it stays taken (the wait ran out, or an interrupt ended it),
  // std::runtime_error when the lock file cannot be opened or locked.
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
