// A JSON document as "a.b.c" -> scalar text pairs: what compare's
// configuration lines and the adaptive stop rule's run identity read.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmbench {

// Flattens nested JSON to "a.b.c" -> scalar text; arrays of scalars become
// one space-separated value, arrays of objects "a[0].b".
std::vector<std::pair<std::string, std::string>> flatten_json(const nlohmann::json& j);

}  // namespace kvmbench
