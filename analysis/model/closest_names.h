// "Did you mean": the valid names closest to one that was mistyped (a
// suite, preset, parameter or command), so that an error can offer the
// correction instead of only refusing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench {

// Edits between `a` and `b`, ignoring ASCII case: insertions, deletions,
// substitutions and swaps of two neighbouring characters, each 1 (the
// optimal-string-alignment form of Damerau-Levenshtein: the swap is what
// fast typing gets wrong most, "dierctmap").
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates `name` was most likely meant to be: those within
// max(2, size/3) edits of it (size: of `name`; fewer edits than it has
// characters, so that a short name is not "corrected" into an unrelated
// one), or that it begins (a name cut short: "rmp" for "rmpopt"); of them,
// those with the fewest edits, at most `most`, in the candidates' order.
// Empty when none is close, or when `name` is empty or is a candidate.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t most = 3);

// "did you mean 'x'?", "did you mean 'x' or 'y'?" (... 'x', 'y' or 'z')
// for `names`, "" for none: the phrase an error message adds.
std::string did_you_mean(const std::vector<std::string>& names);
// That phrase for the closest_names of `name`.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace kvmbench
