// The output formats a command can be asked for (--format), one renderer
// each (renderer.h).
#pragma once

#include <string_view>

namespace kvmbench {

enum class Format { text, md, csv, json, html, mail, junit };

// Throws std::invalid_argument for an unknown name.
Format parse_format(std::string_view name);
std::string_view to_string(Format f);

}  // namespace kvmbench
