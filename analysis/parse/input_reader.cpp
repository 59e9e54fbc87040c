#include "analysis/parse/input_reader.h"

#include <fmt/format.h>

namespace kvmbench::parsers {

InputReader::InputReader(Provenance kernel_provenance, std::size_t size_hint, std::size_t whole_limit)
    : provenance_(kernel_provenance),
      whole_limit_(whole_limit),
      kernel_(kernel_provenance, BadRecords::fail, size_hint) {
  if (size_hint && size_hint <= whole_limit_) held_.reserve(size_hint);
}

std::string InputReader::too_large(std::string_view what) const {
  return fmt::format("{} larger than {}: only kernel logs are read as a stream, every other format is read "
                     "whole, up to that size",
                     what, whole_limit_ % (1 << 20) ? fmt::format("{} bytes", whole_limit_)
                                                     : fmt::format("{} MiB", whole_limit_ >> 20));
}

void InputReader::hold(std::string_view piece) {
  if (held_.size() + piece.size() > whole_limit_) throw ParseError(0, too_large("JSON"));
  held_.append(piece);
}

void InputReader::feed(std::string_view piece) {
  bytes_ += piece.size();
  if (mode_ == Mode::undecided) {
    // The first character that is not blank tells JSON (read whole) from
    // lines (read as a kernel log while they may be one).
    const std::size_t first = piece.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) {
      hold(piece);
      return;
    }
    mode_ = piece[first] == '{' ? Mode::whole : Mode::lines;
    if (mode_ == Mode::lines) kernel_.feed(held_);
  }
  if (mode_ == Mode::whole) {
    hold(piece);
    return;
  }
  kernel_.feed(piece);
  if (!holding_) return;
  if (kernel_.mentions_record() || held_.size() + piece.size() > whole_limit_) {
    // A kernel log (no other format is looked for), or too large for any
    // other format: the text is no longer needed.
    std::string().swap(held_);
    holding_ = false;
    return;
  }
  held_.append(piece);
}

ParsedInput InputReader::finish() {
  if (mode_ != Mode::lines) return parse_any(held_, provenance_);
  KernelLogParse k = kernel_.finish();
  if (kernel_.mentions_record()) return parsed_kernel_log(std::move(k));
  if (!holding_)
    throw ParseError(0, too_large("a text without any kernel log record (Google Benchmark JSON, a selftest's, "
                                  "vmexit's or a guest's output, plain numbers)"));
  return parse_any(held_, provenance_);
}

}  // namespace kvmbench::parsers
