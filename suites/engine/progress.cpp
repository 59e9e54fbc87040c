#include "suites/engine/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>

namespace kvmbench::engine {

Progress::Progress(std::size_t total_steps, std::FILE* out, Mode mode)
    : out_(out),
      enabled_(mode == Mode::always || (mode == Mode::automatic && out && isatty(fileno(out)))),
      total_(total_steps),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

std::string Progress::format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  long t = std::lround(s);
  if (t < 60) return fmt::format("{} s", t);
  if (t < 3600) return fmt::format("{}:{:02}", t / 60, t % 60);
  return fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
}

std::string Progress::render_line(double elapsed_s) const {
  std::string line = label_;
  if (of_) line += fmt::format("  iteration {}/{}", iteration_, of_);
  else if (iteration_) line += fmt::format("  iteration {}", iteration_);
  if (total_) {
    line += fmt::format("  [{}/{}]", done_, total_);
    if (done_ > 0 && done_ < total_) {
      double left = elapsed_s / static_cast<double>(done_) * static_cast<double>(total_ - done_);
      line += "  ~" + format_duration(left) + " left";
    }
  }
  line += "  " + format_duration(elapsed_s) + " elapsed";
  return line;
}

void Progress::draw() {
  if (!enabled_) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = render_line(elapsed);
  // Never wrap: a wrapped line cannot be redrawn with \r.
  std::size_t cols = 80;
  winsize ws{};
  if (ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10) cols = ws.ws_col;
  if (line.size() > cols - 1) line = line.substr(0, cols - 1);
  fmt::print(out_, "\r\033[K{}", line);
  std::fflush(out_);
  drawn_ = true;
}

void Progress::clear() {
  if (!enabled_ || !drawn_) return;
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

void Progress::update(std::string_view label, std::size_t iteration, std::size_t of) {
  label_ = label;
  iteration_ = iteration;
  of_ = of;
  draw();
}

void Progress::step_done() {
  ++done_;
  draw();
}

void Progress::message(std::string_view line) {
  if (!out_) return;
  clear();
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
  if (enabled_ && !label_.empty()) draw();
}

void Progress::finish() { clear(); }

}  // namespace kvmbench::engine
