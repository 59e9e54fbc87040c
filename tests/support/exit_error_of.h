// For tests that call the engine directly: how a call ends, as the kvmbench
// command would end with it (suites/framework/errors.h).
#pragma once

#include <string>

#include "suites/framework/errors.h"

namespace kvmbench::test_support {

// The ExitError `f` throws; code -1 and no message when it returns.
template <typename F>
ExitError exit_error_of(F&& f) {
  try {
    f();
  } catch (const ExitError& e) {
    return e;
  }
  return ExitError(-1, "");
}

// The message of the usage error (exit 2) `f` ends with: "" when it
// returns, "exit N: ..." for another code.
template <typename F>
std::string usage_error_of(F&& f) {
  const ExitError e = exit_error_of(f);
  if (e.code == -1) return "";
  return e.code == kExitUsage ? e.what() : "exit " + std::to_string(e.code) + ": " + e.what();
}

}  // namespace kvmbench::test_support
