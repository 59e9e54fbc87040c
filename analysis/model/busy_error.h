// Something another process holds now: the run lock (hostlib/state/
// run_lock.h), a results database's lock (analysis/store/db). Neither bad
// input nor a host that cannot run, but "try again later": a command that
// ends with it exits 75 (busy, suites/framework/errors.h), so that a job
// engine retries instead of failing the job or skipping it.
#pragma once

#include <stdexcept>

namespace kvmbench {

struct BusyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kvmbench
