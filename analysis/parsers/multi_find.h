// The first occurrence of any of a few fixed strings, in one pass over the
// text: the kernel log parser looks for two record anchors in months of
// logs, and two memmem calls per record (each restarting its scan) were a
// fifth of the parse time.
//
// The scan is the "generic SIMD" substring search (W. Muła): compare 16
// positions at once against two bytes of each needle (its two rarest, for
// log text), and check the few candidates where both match with memcmp.
// AVX2 where the CPU has it, else SSE2 (every x86-64 CPU); elsewhere,
// memmem per needle.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace kvmbench::parsers {

// Position of the leftmost occurrence of any needle, and which needle it
// is; pos is npos when there is none.
struct MultiFindHit {
  std::size_t pos = std::string_view::npos;
  std::size_t needle = 0;
};

class MultiFinder {
 public:
  // The needles are not copied: they must outlive the finder (string
  // literals). None may be empty.
  explicit MultiFinder(std::span<const std::string_view> needles);
  // Searches [from, text.size()).
  MultiFindHit find(std::string_view text, std::size_t from = 0) const;

 private:
  struct Probe {
    std::string_view needle;
    std::size_t at1, at2;  // the two positions compared first
  };
  MultiFindHit find_avx2(std::string_view text, std::size_t& i) const;  // advances i past what it searched
  MultiFindHit check_candidates(std::string_view text, std::size_t base, const unsigned* hits, unsigned any) const;
  std::vector<Probe> probes_;
  std::size_t longest_ = 0;
};

}  // namespace kvmbench::parsers
