// Text from an input file shown in a message: a binary file's bytes must not
// reach the terminal raw, so everything outside printable ASCII is \xNN.
#pragma once

#include <string>
#include <string_view>

namespace kvmbench {

std::string printable(std::string_view text);

}  // namespace kvmbench
