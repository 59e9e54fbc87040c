// Exit codes of the kvmbench command (docs/run.md's list, kvmbench(1)) and the exception that
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

// Whether `error` is the user's doing: bad input, which exit_verdict ends
// with the usage code (an ExitError of kExitUsage included), rather than a
// bug in kvmbench or an ExitError of another code. For a command that
// records bad input and goes on (a gate that says why it cannot judge, an
// import that counts what it could not read) instead of ending.
bool is_bad_input(const std::exception_ptr& error);

// Ends the command for bad input that `error` is (is_bad_input, not an
// ExitError): exit 2, its message after `about`. Anything else is thrown
// again as it is, so that exit_verdict alone tells a bug (70) from bad
// input (2).
[[noreturn]] void rethrow_naming_bad_input(const std::exception_ptr& error, const std::string& about);

// Calls `read` (what reads a file, a run directory or a value the user
// named) and returns what it returns. What it throws because of the input
// ends the command with exit 2, its message after `about`: "FILE: " where
// the reader's message does not name the file, "" where it does. A bug
// inside (a std::logic_error, a bad_optional_access, ...) and an ExitError
// pass on unchanged: a catch of every std::exception that turned it into
// a usage error would tell a lab engine that its command line was wrong.
template <typename Read>
decltype(auto) naming_bad_input(const std::string& about, Read&& read) {
  try {
    return read();
  } catch (...) {
    rethrow_naming_bad_input(std::current_exception(), about);
  }
}

[[noreturn]] inline void usage_error(const std::string& msg) { throw ExitError(kExitUsage, msg); }
[[noreturn]] inline void cannot_run(const std::string& msg) { throw ExitError(kExitCannotRun, msg); }

}  // namespace kvmbench
