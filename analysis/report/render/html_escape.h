// Text as HTML content and attribute values: & < > " ' escaped.
#pragma once

#include <string>
#include <string_view>

namespace kvmbench {

std::string html_escape(std::string_view s);

}  // namespace kvmbench
