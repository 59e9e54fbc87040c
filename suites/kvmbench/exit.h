// Exit codes of the kvmbench command (DESIGN.md) and the exception that
// carries one out of a subcommand.
#pragma once

#include <stdexcept>
#include <string>

namespace kvmbench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitGateFailed = 1;   // a significant regression
inline constexpr int kExitUsage = 2;        // usage error or bad input
// `export`: nothing failed, but the runs do not say enough (a run
// incomplete, or a primary metric without a CI): a lab engine may rerun.
inline constexpr int kExitInconclusive = 3;
inline constexpr int kExitCannotRun = 77;   // this host cannot run it
inline constexpr int kExitInterrupted = 130;  // Ctrl-C / SIGTERM (128 + SIGINT)

// Thrown by a subcommand to end with `code`; `what()` goes to stderr
// (nothing is printed when it is empty).
struct ExitError : std::runtime_error {
  int code;
  ExitError(int c, const std::string& msg) : std::runtime_error(msg), code(c) {}
};

[[noreturn]] inline void usage_error(const std::string& msg) { throw ExitError(kExitUsage, msg); }
[[noreturn]] inline void cannot_run(const std::string& msg) { throw ExitError(kExitCannotRun, msg); }

}  // namespace kvmbench
