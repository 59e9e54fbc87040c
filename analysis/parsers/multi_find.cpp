#include "analysis/parsers/multi_find.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kvmbench::parsers {

namespace {

// How common a byte is in log text, roughly (lower: rarer). Rare probe
// bytes leave few candidates to check: the first and last byte, 'S' and
// 'T' of "SEV-SNP: RMPOPT", match all over an English-language log.
int commonness(unsigned char c) {
  if (c == ' ' || c == ':' || c == '.' || c == ',' || c == '=') return 4;
  if (c >= 'a' && c <= 'z') return 3;
  if (c >= '0' && c <= '9') return 2;
  if (c >= 'A' && c <= 'Z') return 1;
  return 0;  // other punctuation: '_', '-', ...
}

// The positions of the two rarest bytes of `needle`, in order (the same
// one twice for a one-byte needle).
std::pair<std::size_t, std::size_t> probe_positions(std::string_view needle) {
  auto rarer = [&](std::size_t i, std::size_t j) {
    return commonness(static_cast<unsigned char>(needle[i])) < commonness(static_cast<unsigned char>(needle[j]));
  };
  std::size_t a = 0;
  for (std::size_t i = 1; i < needle.size(); ++i)
    if (rarer(i, a)) a = i;
  std::size_t b = a == 0 ? needle.size() - 1 : 0;
  for (std::size_t i = 0; i < needle.size(); ++i)
    if (i != a && rarer(i, b)) b = i;
  return {std::min(a, b), std::max(a, b)};
}

}  // namespace

MultiFinder::MultiFinder(std::span<const std::string_view> needles) {
  for (auto n : needles) {
    if (n.empty()) throw std::invalid_argument("MultiFinder: empty needle");
    auto [a, b] = probe_positions(n);
    probes_.push_back({n, a, b});
    longest_ = std::max(longest_, n.size());
  }
}

// The candidates of one block (bit b of hits[k]: needle k may start at
// base + b), in position order; at one position the first needle that
// matches wins.
MultiFindHit MultiFinder::check_candidates(std::string_view text, std::size_t base, const unsigned* hits,
                                           unsigned any) const {
  while (any) {
    const unsigned bit = static_cast<unsigned>(__builtin_ctz(any));
    for (std::size_t k = 0; k < probes_.size(); ++k)
      if ((hits[k] >> bit & 1u) &&
          std::memcmp(text.data() + base + bit, probes_[k].needle.data(), probes_[k].needle.size()) == 0)
        return {base + bit, k};
    any &= any - 1;
  }
  return {};
}

#if defined(__x86_64__)
// The same scan 32 positions at a time, on CPUs with AVX2 (chosen at run
// time: the build targets plain x86-64).
__attribute__((target("avx2"))) MultiFindHit MultiFinder::find_avx2(std::string_view text, std::size_t& i) const {
  constexpr std::size_t kMaxNeedles = 4;
  __m256i first[kMaxNeedles], second[kMaxNeedles];
  for (std::size_t k = 0; k < probes_.size(); ++k) {
    first[k] = _mm256_set1_epi8(probes_[k].needle[probes_[k].at1]);
    second[k] = _mm256_set1_epi8(probes_[k].needle[probes_[k].at2]);
  }
  if (probes_.size() == 2) {
    // Two needles (the kernel log's anchors): the loop unrolled, its probes
    // and offsets in registers.
    const char* const d = text.data();
    const std::size_t a0 = probes_[0].at1, b0 = probes_[0].at2, a1 = probes_[1].at1, b1 = probes_[1].at2;
    for (; i + longest_ + 31 <= text.size(); i += 32) {
      const char* const at = d + i;
      const auto h0 = static_cast<unsigned>(_mm256_movemask_epi8(_mm256_and_si256(
          _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + a0)), first[0]),
          _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + b0)), second[0]))));
      const auto h1 = static_cast<unsigned>(_mm256_movemask_epi8(_mm256_and_si256(
          _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + a1)), first[1]),
          _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + b1)), second[1]))));
      if (h0 | h1) {
        const unsigned hits[2] = {h0, h1};
        if (const MultiFindHit h = check_candidates(text, i, hits, h0 | h1); h.pos != std::string_view::npos) return h;
      }
    }
    return {};
  }
  for (; i + longest_ + 31 <= text.size(); i += 32) {
    unsigned hits[kMaxNeedles];
    unsigned any = 0;
    for (std::size_t k = 0; k < probes_.size(); ++k) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i + probes_[k].at1));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i + probes_[k].at2));
      hits[k] = static_cast<unsigned>(
          _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(a, first[k]), _mm256_cmpeq_epi8(b, second[k]))));
      any |= hits[k];
    }
    if (any)
      if (const MultiFindHit h = check_candidates(text, i, hits, any); h.pos != std::string_view::npos) return h;
  }
  return {};
}
#endif

MultiFindHit MultiFinder::find(std::string_view text, std::size_t from) const {
  std::size_t i = from;
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && probes_.size() <= 4) {
    const MultiFindHit h = find_avx2(text, i);
    if (h.pos != std::string_view::npos) return h;
  }
#endif
#if defined(__SSE2__)
  constexpr std::size_t kMaxNeedles = 4;
  if (probes_.size() <= kMaxNeedles) {
    __m128i first[kMaxNeedles], second[kMaxNeedles];
    for (std::size_t k = 0; k < probes_.size(); ++k) {
      first[k] = _mm_set1_epi8(probes_[k].needle[probes_[k].at1]);
      second[k] = _mm_set1_epi8(probes_[k].needle[probes_[k].at2]);
    }
    // Blocks of 16 start positions while the longest needle stays inside
    // the text; the rest by the plain search below.
    for (; i + longest_ + 15 <= text.size(); i += 16) {
      unsigned hits[kMaxNeedles];
      unsigned any = 0;
      for (std::size_t k = 0; k < probes_.size(); ++k) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + probes_[k].at1));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + probes_[k].at2));
        hits[k] = static_cast<unsigned>(
            _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first[k]), _mm_cmpeq_epi8(b, second[k]))));
        any |= hits[k];
      }
      if (any)
        if (const MultiFindHit h = check_candidates(text, i, hits, any); h.pos != std::string_view::npos) return h;
    }
  }
#endif
  // Plain search of what is left: the leftmost hit of any needle.
  MultiFindHit best;
  for (std::size_t k = 0; k < probes_.size(); ++k) {
    const std::string_view n = probes_[k].needle;
    if (i >= text.size() || n.size() > text.size() - i) continue;
    const void* p = ::memmem(text.data() + i, text.size() - i, n.data(), n.size());
    if (!p) continue;
    const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(p) - text.data());
    if (pos < best.pos) best = {pos, k};
  }
  return best;
}

}  // namespace kvmbench::parsers
