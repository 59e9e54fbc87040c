// The steady clock in nanoseconds, as a double: what measurement loops
// subtract. A double holds every nanosecond of the first 104 days of uptime.
#pragma once

#include <chrono>

namespace kvmbench::host {

inline double monotonic_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace kvmbench::host
