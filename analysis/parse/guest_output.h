// Parser of a kvmbench guest's serial console (guests/image/init and the
// workloads in guests/workloads/). The console mixes kernel messages with
// the guest's marker lines:
//   KVMBENCH-BEGIN workload=NAME        the workload started
//   KVMBENCH-RESULT {json}              one Sample (case, variant, metric,
//                                       unit, value, iteration, extras)
//   KVMBENCH-ERROR message              the guest reports a failure
//   KVMBENCH-END workload=NAME status=N the workload exited with N
//   KVMBENCH-LISTENING port=N           a network workload listens (the
//                                       host starts its peer; no data)
// A marker may follow console noise on the same line (a kernel message
// without its newline); everything before the prefix is ignored. Pure: no
// I/O, the caller passes the text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/parse/parse_result.h"

namespace kvmbench::parsers {

inline constexpr std::string_view kGuestResultPrefix = "KVMBENCH-RESULT ";
inline constexpr std::string_view kGuestBeginPrefix = "KVMBENCH-BEGIN ";
inline constexpr std::string_view kGuestEndPrefix = "KVMBENCH-END ";
inline constexpr std::string_view kGuestErrorPrefix = "KVMBENCH-ERROR ";

struct GuestOutput {
  // format "guest-output"; samples carry extra "line" (1-based console line).
  ParseResult result;
  std::string workload;             // from the first BEGIN ("" if none)
  bool began = false;               // a BEGIN line was seen
  bool ended = false;               // an END line was seen after it
  std::optional<int> exit_status;   // from END
  std::vector<std::string> errors;     // KVMBENCH-ERROR texts, "line N: text"
  std::vector<std::string> malformed;  // "line N: reason" for bad marker lines
  bool kernel_panic = false;        // "Kernel panic - not syncing" seen
  std::string panic_line;           // that line

  // The workload began but its END never came (hung, killed or crashed).
  bool unfinished() const { return began && !ended; }
  // Began, ended with status 0, no ERROR, no malformed line, no panic.
  bool ok() const {
    return began && ended && exit_status == 0 && errors.empty() && malformed.empty() && !kernel_panic;
  }
  // One sentence saying what went wrong, "" when ok().
  std::string failure() const;
};

GuestOutput parse_guest_output(std::string_view console_text);

}  // namespace kvmbench::parsers
