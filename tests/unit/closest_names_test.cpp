// The "did you mean" helper: edit distances worked out by hand, and which
// names are offered for a mistyped suite, preset, parameter or command.
#include "analysis/model/closest_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using kvmbench::closest_names;
using kvmbench::did_you_mean;
using kvmbench::edit_distance;

namespace {

const std::vector<std::string> kSuites = {"rmpopt", "directmap", "make_shared", "asid", "all"};

}  // namespace

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  // One extra letter at the end: delete the second 'p'.
  EXPECT_EQ(edit_distance("directmapp", "directmap"), 1u);
  // One letter short: insert the 's'.
  EXPECT_EQ(edit_distance("byte", "bytes"), 1u);
  // kitten -> sitten (k/s) -> sittin (e/i) -> sitting (+g).
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  // Nothing against something: every character inserted (or deleted).
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", ""), 0u);
  // make_shared -> make-shared: one substitution ('_' for '-').
  EXPECT_EQ(edit_distance("make-shared", "make_shared"), 1u);
  // Nothing in common, same length: every character substituted.
  EXPECT_EQ(edit_distance("abcd", "wxyz"), 4u);
}

TEST(EditDistance, ASwapOfNeighboursIsOneEdit) {
  // "hots" -> "host": 't' and 's' swapped; plain Levenshtein says 2.
  EXPECT_EQ(edit_distance("hots", "host"), 1u);
  // "dierctmap" -> "directmap": 'e' and 'r' swapped.
  EXPECT_EQ(edit_distance("dierctmap", "directmap"), 1u);
  // "asdi" -> "asid": 'd' and 'i' swapped.
  EXPECT_EQ(edit_distance("asdi", "asid"), 1u);
  // Optimal string alignment edits a swapped pair no further: "ca" ->
  // "abc" would be 2 with the swap then an insertion between the pair,
  // but here it is delete 'c', keep 'a', insert 'b', insert 'c' = 3.
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(EditDistance, IgnoresCaseAndIsSymmetric) {
  EXPECT_EQ(edit_distance("DirectMap", "directmap"), 0u);
  EXPECT_EQ(edit_distance("HOTS", "host"), 1u);
  EXPECT_EQ(edit_distance("sitting", "kitten"), edit_distance("kitten", "sitting"));
  EXPECT_EQ(edit_distance("bytes", "byte"), 1u);
}

TEST(ClosestNames, OffersTheNameOneEditAway) {
  EXPECT_EQ(closest_names("directmapp", kSuites), std::vector<std::string>{"directmap"});
  EXPECT_EQ(closest_names("dierctmap", kSuites), std::vector<std::string>{"directmap"});
  EXPECT_EQ(closest_names("make-shared", kSuites), std::vector<std::string>{"make_shared"});
  EXPECT_EQ(closest_names("hots", {"document", "host", "smoke"}), std::vector<std::string>{"host"});
  // Only the case differs: 0 edits, yet not the name itself.
  EXPECT_EQ(closest_names("ASID", kSuites), std::vector<std::string>{"asid"});
}

TEST(ClosestNames, OffersTheNameAMistakeCutShort) {
  // "rmp" -> "rmpopt" is 3 insertions, beyond max(2, 3/3) = 2, but it
  // begins the name.
  EXPECT_EQ(closest_names("rmp", kSuites), std::vector<std::string>{"rmpopt"});
  EXPECT_EQ(closest_names("d", kSuites), std::vector<std::string>{"directmap"});
}

TEST(ClosestNames, NothingWhenNoNameIsClose) {
  EXPECT_TRUE(closest_names("nosuch", kSuites).empty());
  EXPECT_TRUE(closest_names("", kSuites).empty());
  EXPECT_TRUE(closest_names("directmap", {}).empty());
  // The name itself is not "corrected".
  EXPECT_TRUE(closest_names("directmap", kSuites).empty());
  // One character away from a one-character name would be any name.
  EXPECT_TRUE(closest_names("x", {"y", "z"}).empty());
  // "al" -> "asid": 'l'/'s', +i, +d = 3, beyond max(2, 2/3) = 2, and
  // limited to 1 (fewer edits than its 2 characters) anyway; "al" begins
  // "all".
  EXPECT_EQ(closest_names("al", kSuites), std::vector<std::string>{"all"});
}

TEST(ClosestNames, TheLimitGrowsWithTheName) {
  // 6 characters: max(2, 6/3) = 2 edits.
  EXPECT_EQ(closest_names("abcdef", {"abcdxy"}), std::vector<std::string>{"abcdxy"});  // ef -> xy: 2
  EXPECT_TRUE(closest_names("abcdef", {"abcxyz"}).empty());                            // def -> xyz: 3
  // 9 characters: max(2, 9/3) = 3 edits.
  EXPECT_EQ(closest_names("abcdefghi", {"abcdefxyz"}), std::vector<std::string>{"abcdefxyz"});  // 3
  EXPECT_TRUE(closest_names("abcdefghi", {"abcdewxyz"}).empty());                               // 4
}

TEST(ClosestNames, TiesInTheCandidatesOrderUpToMost) {
  // "pin" -> "pins" (+s), "pan" (i/a), "ping" (+g): 1 edit each; "vcpus"
  // is 4 away (+v, +c, i/u, n/s), beyond max(2, 3/3) = 2.
  const std::vector<std::string> names = {"pins", "vcpus", "pan", "ping"};
  EXPECT_EQ(closest_names("pin", names), (std::vector<std::string>{"pins", "pan", "ping"}));
  EXPECT_EQ(closest_names("pin", names, 2), (std::vector<std::string>{"pins", "pan"}));
  // The fewest edits win: "bytes" (+s: 1) over "bits" (y/i, e/s: 2, also
  // within the limit of 2).
  EXPECT_EQ(closest_names("byte", {"bits", "bytes"}), std::vector<std::string>{"bytes"});
}

TEST(DidYouMean, ThePhraseAnErrorAdds) {
  EXPECT_EQ(did_you_mean("directmapp", kSuites), "did you mean 'directmap'?");
  EXPECT_EQ(did_you_mean("pin", {"pins", "pan"}), "did you mean 'pins' or 'pan'?");
  EXPECT_EQ(did_you_mean("pin", {"pins", "pan", "ping"}), "did you mean 'pins', 'pan' or 'ping'?");
  EXPECT_EQ(did_you_mean("nosuch", kSuites), "");
  // The phrase for names found elsewhere (a command offered with the one
  // it belongs to: "db import").
  EXPECT_EQ(did_you_mean(std::vector<std::string>{"db import"}), "did you mean 'db import'?");
  EXPECT_EQ(did_you_mean(std::vector<std::string>{}), "");
}
