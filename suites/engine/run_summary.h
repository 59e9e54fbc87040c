// The closing block of `kvmbench run`: per suite and preset what came of
// it (ran, skipped with the reason in one line, failed, interrupted), where
// the runs are and how long it all took; then the warnings, each kind once
// with its count. `run all` printed the same host warning once per run and
// a line of about 200 columns per unstable series; the full texts stay in
// each run's meta.json (`kvmbench report --verbose DIR`).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kvmbench::engine {

class RunSummary {
 public:
  // A suite, or a preset of one, left out before anything ran.
  void not_run(const std::string& line) { lines_.push_back({line, {}}); }
  // A preset that ran: `outcome` says what came of it ("ran, 3
  // repetitions", "INTERRUPTED after 1 of 5 repetitions", ...), `dir` its
  // run directory, `seconds` its wall time.
  void ran(const std::string& suite, const std::string& preset, const std::string& outcome,
           const std::filesystem::path& dir, double seconds);
  // A preset left out because it needs another boot of the kernel, with
  // `setting` on its command line: one line per boot names them all.
  void other_boot(const std::string& setting, const std::string& what);
  // A warning counted under `kind` ("high variation", or a host setting):
  // shown once per kind, with the first text and how many there were.
  void warn(const std::string& kind, const std::string& text);

  // The block, every line within 80 columns (but for a word longer than a
  // line, a path say, which stays whole); `wall_s`: the whole command.
  std::vector<std::string> render(double wall_s) const;

 private:
  struct Line {
    std::string text;
    std::filesystem::path dir;
  };
  struct Kind {
    std::string kind, first_text;
    std::size_t count = 0;
  };
  std::vector<Line> lines_;
  std::vector<Kind> warnings_;
  std::vector<std::pair<std::string, std::vector<std::string>>> other_boots_;
};

}  // namespace kvmbench::engine
