// The order of kernel releases as kernel developers read them: 6.9-rc1 <
// 6.9-rc7 < 6.9 = 6.9.0 < 6.9.1 < 6.10-rc1, and within one version the rest
// of the release string (a distribution's ABI number, a local version) in
// natural order: 6.1.0-9-amd64 < 6.1.0-27-amd64. `history
// --kernel-order release` puts runs in this order.
#pragma once

#include <string_view>

namespace kvmbench {

// <0, 0 or >0 as a is older than, the same as or newer than b. Releases
// that do not start with a number sort after those that do, by natural
// order among themselves.
int compare_kernel_releases(std::string_view a, std::string_view b);

inline bool kernel_release_less(std::string_view a, std::string_view b) { return compare_kernel_releases(a, b) < 0; }

}  // namespace kvmbench
