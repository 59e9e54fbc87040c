// This machine's name as run directories and lab guests are named after
// it: gethostname(2), "localhost" where it has none (unset, "(none)").
#pragma once

#include <string>

namespace kvmbench::host {

std::string host_name();

}  // namespace kvmbench::host
