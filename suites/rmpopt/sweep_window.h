// Which of a repetition's kernel-log lines time its sweep. The document's
// sweep is the one snp-guest0's exit queues while the other guests still
// run. From v7 the series sweeps again 10 s after the *last* SNP guest's
// exit (RMPOPT_WORK_TIMEOUT, batched with mod_delayed_work; v3 every 10 s):
// with repetitions back to back, one repetition's late sweep would fall in
// the next one's window and be timed as its own. So the live run writes
// marks into the kernel log (kMarkFirstExit as snp-guest0 has exited,
// kMarkAllExited when every guest has) and settles before the next
// repetition; the window is the first sweep after the first mark.
#pragma once

#include <string>
#include <string_view>

namespace kvmbench::suites::rmpopt {

inline constexpr std::string_view kMarkFirstExit = "kvmbench: rmpopt: snp-guest0 exited";
inline constexpr std::string_view kMarkAllExited = "kvmbench: rmpopt: every SNP guest exited";

struct SweepWindow {
  std::string text;              // the lines to read: up to and through the repetition's sweep
  bool marked = false;           // cut at kvmbench's marks (else the capture predates them)
  int before_first_exit = 0;     // sweeps left out: queued before snp-guest0's exit
  int more_in_window = 0;        //   after the repetition's sweep, before the last exit
  int after_last_exit = 0;       //   the series' sweep after the last guest's exit
  std::string refusal;           // non-empty: which sweep is the repetition's cannot be told
};

// The window of a repetition's kernel log (`capture` names it in a refusal).
// Marked: the lines after kMarkFirstExit through the first sweep line after
// it (none: the text after the mark, which holds no sweep). Unmarked (a
// capture from before the marks): the whole text when it holds at most one
// sweep; with more, a refusal.
SweepWindow repetition_sweep_window(std::string_view kmsg, const std::string& capture);

}  // namespace kvmbench::suites::rmpopt
