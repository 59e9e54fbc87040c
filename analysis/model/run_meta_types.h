// The members of a run's meta.json that kvmbench's readers use (report,
// compare, gate, export, merge, history), checked for the type kvmbench
// writes them with when a run is read, so that an edited or damaged
// meta.json is refused with the member named instead of failing deep in a
// reader with a JSON library error ("type must be string, but is number").
// Members kvmbench does not use, or does not know, are not looked at.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kvmbench {

// What is wrong, as "\"skipped_parts\"[2].\"reason\" is number where a
// string belongs"; nullopt when nothing is.
std::optional<std::string> run_meta_type_problem(const nlohmann::json& meta);

}  // namespace kvmbench
