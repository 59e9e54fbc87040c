// Exit codes of the kvmbench command (the README's list) and the exception that
// carries one out of a subcommand.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace kvmbench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitGateFailed = 1;   // a significant regression
inline constexpr int kExitFailed = 1;       // a run failed (e.g. the lab machine under it stalled)
inline constexpr int kExitUsage = 2;        // usage error or bad input
// `export`: nothing failed, but the runs do not say enough (a run
// incomplete, or a primary metric without a CI): a lab engine may rerun.
inline constexpr int kExitInconclusive = 3;
inline constexpr int kExitInternalError = 70;  // a bug in kvmbench (sysexits' EX_SOFTWARE)
inline constexpr int kExitBusy = 75;        // the run lock is held (sysexits' EX_TEMPFAIL): try again later
inline constexpr int kExitCannotRun = 77;   // this host cannot run it
inline constexpr int kExitInterrupted = 130;  // Ctrl-C / SIGTERM (128 + SIGINT)

// Thrown by a subcommand to end with `code`; `what()` goes to stderr
// (nothing is printed when it is empty).
struct ExitError : std::runtime_error {
  int code;
  ExitError(int c, const std::string& msg) : std::runtime_error(msg), code(c) {}
};

// How an exception that left a subcommand ends the program: its exit code
// and the line for stderr (empty: print nothing). Usage errors and bad input
// (ExitError, std::invalid_argument and std::out_of_range from parsing a
// value, a runtime_error about a file or the host, a malformed JSON document)
// end with `usage_code`; any other logic error, or a broken invariant of the
// standard library (bad_optional_access, bad_variant_access, ...), is a bug
// in kvmbench and says so, with kExitInternalError, so that a lab engine does
// not read it as a bad command line.
struct ExitVerdict {
  int code;
  std::string message;
};
ExitVerdict exit_verdict(const std::exception_ptr& error, int usage_code);

[[noreturn]] inline void usage_error(const std::string& msg) { throw ExitError(kExitUsage, msg); }
[[noreturn]] inline void cannot_run(const std::string& msg) { throw ExitError(kExitCannotRun, msg); }

}  // namespace kvmbench
