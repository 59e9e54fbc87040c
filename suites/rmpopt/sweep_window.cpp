#include "suites/rmpopt/sweep_window.h"

#include <fmt/format.h>

#include <vector>

namespace kvmbench::suites::rmpopt {

namespace {

bool is_sweep(std::string_view line) { return line.find("RMPOPT execution time ") != std::string_view::npos; }

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return out;
}

}  // namespace

SweepWindow repetition_sweep_window(std::string_view kmsg, const std::string& capture) {
  SweepWindow w;
  const std::vector<std::string_view> lines = lines_of(kmsg);
  std::size_t first = lines.size(), last = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (first == lines.size() && lines[i].find(kMarkFirstExit) != std::string_view::npos) first = i;
    if (lines[i].find(kMarkAllExited) != std::string_view::npos) last = i;
  }
  if (first == lines.size()) {
    int sweeps = 0;
    for (auto l : lines) sweeps += is_sweep(l);
    if (sweeps > 1) {
      w.refusal = fmt::format(
          "{} holds {} RMPOPT sweeps and no mark of snp-guest0's exit ('{}', which kvmbench writes into the kernel "
          "log from this version on): which sweep is this repetition's cannot be told (from v7 the series also "
          "sweeps 10 s after the last SNP guest's exit, into the next repetition's window); capture it again",
          capture, sweeps, kMarkFirstExit);
      return w;
    }
    w.text = std::string(kmsg);
    return w;
  }
  w.marked = true;
  bool kept = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const bool sweep = is_sweep(lines[i]);
    if (i < first) {
      w.before_first_exit += sweep;
    } else if (i > last) {
      w.after_last_exit += sweep;
    } else if (i > first && !kept) {
      w.text.append(lines[i]).push_back('\n');
      kept = sweep;
    } else {
      w.more_in_window += sweep;
    }
  }
  return w;
}

}  // namespace kvmbench::suites::rmpopt
