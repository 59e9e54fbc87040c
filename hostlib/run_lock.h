// One measuring kvmbench per host: two runs at once would measure each
// other. An flock on a lock file (released by the kernel when the process
// dies, so a crash never leaves a stale lock); the holder's pid and command
// are written into the file for the message the second run prints.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace kvmbench::host {

// $KVMBENCH_STATE_DIR/run.lock when set, else /run/lock/kvmbench.lock, else
// (no writable /run/lock) <tmp>/kvmbench.lock.
std::filesystem::path default_run_lock_path();

class RunLock {
 public:
  // Takes the lock, waiting up to `wait` (zero: do not wait). Throws
  // std::runtime_error "another kvmbench run (pid N: what) holds PATH" when
  // it stays taken, or when the lock file cannot be opened.
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
