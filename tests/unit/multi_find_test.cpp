#include "analysis/parsers/multi_find.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>

#include "tests/unit/test_rng.h"

using kvmbench::parsers::MultiFinder;

namespace {

constexpr std::string_view kNeedles[] = {"SEV-SNP: RMPOPT", "guest_memfd to_shared:"};
// Three needles take the general loop (two have their own).
constexpr std::string_view kThreeNeedles[] = {"SEV-SNP: RMPOPT", "guest_memfd to_shared:", "tdx: seam"};

// The reference: the leftmost position of any needle, by brute force.
std::pair<std::size_t, std::size_t> naive(std::string_view text, std::size_t from,
                                          std::span<const std::string_view> needles = kNeedles) {
  for (std::size_t i = from; i < text.size(); ++i)
    for (std::size_t k = 0; k < needles.size(); ++k)
      if (text.substr(i).starts_with(needles[k])) return {i, k};
  return {std::string_view::npos, 0};
}

}  // namespace

TEST(MultiFind, FindsTheLeftmostOfEitherNeedle) {
  const MultiFinder f(kNeedles);
  const std::string text = "xx guest_memfd to_shared: a SEV-SNP: RMPOPT b guest_memfd to_shared:";
  auto h = f.find(text);
  EXPECT_EQ(h.pos, 3u);
  EXPECT_EQ(h.needle, 1u);
  h = f.find(text, 4);
  EXPECT_EQ(h.pos, text.find("SEV-SNP"));
  EXPECT_EQ(h.needle, 0u);
  h = f.find(text, h.pos + 1);
  EXPECT_EQ(h.pos, text.rfind("guest_memfd"));
  EXPECT_EQ(f.find(text, h.pos + 1).pos, std::string_view::npos);
  EXPECT_EQ(f.find("").pos, std::string_view::npos);
  EXPECT_EQ(f.find("SEV-SNP: RMPOP").pos, std::string_view::npos);  // one byte short
  EXPECT_EQ(f.find("SEV-SNP: RMPOPT").pos, 0u);                     // exactly the needle
}

// Every position relative to the 16-byte blocks and the end of the text,
// near misses (the two probe bytes right, the rest wrong), and random text,
// against the brute-force answer.
TEST(MultiFind, AgreesWithBruteForceEverywhere) {
  for (const std::span<const std::string_view> needles : {std::span<const std::string_view>(kNeedles),
                                                          std::span<const std::string_view>(kThreeNeedles)}) {
    const MultiFinder f(needles);
    kvmbench::testing::TestRng rng(12345);
    auto rnd = [&] { return rng.next(); };
    const std::string alphabet = "SEV-NP: RMOTguest_mdfo:ah \ntdx";
    for (int round = 0; round < 300; ++round) {
      std::string text(rnd() % 300, ' ');
      for (char& c : text) c = alphabet[rnd() % alphabet.size()];
      // Plant needles, whole or damaged in one byte, at random places.
      for (int p = 0; p < 4; ++p) {
        std::string n(needles[rnd() % needles.size()]);
        if (rnd() % 2) n[rnd() % n.size()] = '#';
        if (n.size() <= text.size()) text.replace(rnd() % (text.size() - n.size() + 1), n.size(), n);
      }
      for (std::size_t from = 0; from <= text.size(); from += 1 + rnd() % 7) {
        const auto want = naive(text, from, needles);
        const auto got = f.find(text, from);
        ASSERT_EQ(got.pos, want.first) << "text '" << text << "' from " << from;
        if (got.pos != std::string_view::npos) { EXPECT_EQ(got.needle, want.second); }
      }
    }
  }
}

TEST(MultiFind, EmptyNeedleIsRefused) {
  constexpr std::string_view bad[] = {"a", ""};
  EXPECT_THROW(MultiFinder{bad}, std::invalid_argument);
}
