// Progress of a long run on the terminal: one line, redrawn in place, saying
// what is running, which iteration, and an estimate of the time left.
// Silent when stderr (where it draws) is not a terminal, so logs and pipes
// stay clean.
//
//   Progress p(total_steps);            // e.g. cases x repetitions
//   p.update("directmap anon-4k", 3, 10);    // label, iteration (1-based) of N
//   p.step_done();                           // after each measured step
//   p.message("skipped: no SNP");            // a line that stays (clears, prints, redraws)
//   p.finish();                              // clears the line (also in the destructor)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace kvmbench::engine {

class Progress {
 public:
  enum class Mode { automatic, always, never };
  // `total_steps`: steps in the whole run (0 = unknown: no time estimate).
  explicit Progress(std::size_t total_steps, std::FILE* out = stderr, Mode mode = Mode::automatic);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // What runs now; iteration/of are 1-based (of = 0: not shown).
  void update(std::string_view label, std::size_t iteration = 0, std::size_t of = 0);
  // One of the total steps is done (feeds the time estimate) and redraws.
  void step_done();
  // A line that should stay on the screen (printed above the progress line).
  // Printed even when the progress line is disabled.
  void message(std::string_view line);
  void finish();

  // "1:02:03", "4:05", "12 s"; for the estimate.
  static std::string format_duration(double seconds);
  // The line as drawn, for tests: label, iteration and the estimate.
  std::string render_line(double elapsed_s) const;

 private:
  void draw();
  void clear();

  std::FILE* out_;
  bool enabled_;
  bool drawn_ = false;
  std::size_t total_, done_ = 0;
  std::string label_;
  std::size_t iteration_ = 0, of_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kvmbench::engine
