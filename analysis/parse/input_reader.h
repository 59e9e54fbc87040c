// Recognises and parses one input that is read in pieces (a file a piece at
// a time, a pipe), with what parse_any gives for its whole text, holding no
// more of the text than its format needs:
//   a kernel log (a line holds a record's anchor, and the text does not
//     start with '{') is read as a stream (KernelLogStream): only its
//     records and samples are held, whatever its size;
//   every other format (Google Benchmark JSON, a selftest's, vmexit's or a
//     guest's output, plain numbers) is one program's output and is parsed
//     whole: its text is held, up to kWholeInputLimit bytes; a larger one
//     is refused.
// A text without a record's anchor so far is held too (up to that limit),
// until its end shows which format it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/parse/format_recognizer.h"

namespace kvmbench::parsers {

inline constexpr std::size_t kWholeInputLimit = std::size_t{64} << 20;

class InputReader {
 public:
  // `size_hint`: the input's size where it is known (0: unknown).
  // `whole_limit`: kWholeInputLimit, or less (a test's).
  explicit InputReader(Provenance kernel_provenance = Provenance::in_extra, std::size_t size_hint = 0,
                       std::size_t whole_limit = kWholeInputLimit);

  // The next piece. Throws ParseError for an inconsistent kernel log record
  // (as parse_any does) and for a text of another format that grows beyond
  // kWholeInputLimit (line 0).
  void feed(std::string_view piece);
  std::uint64_t bytes() const { return bytes_; }
  // After the last piece: parse_any's outcome for the whole text (its
  // ParseError included).
  ParsedInput finish();

 private:
  enum class Mode { undecided, whole, lines };
  void hold(std::string_view piece);
  std::string too_large(std::string_view what) const;

  Provenance provenance_;
  std::size_t whole_limit_;
  Mode mode_ = Mode::undecided;
  KernelLogStream kernel_;
  std::string held_;     // the text so far, while it may be of a format parsed whole
  bool holding_ = true;  // held_ holds all of it
  std::uint64_t bytes_ = 0;
};

}  // namespace kvmbench::parsers
