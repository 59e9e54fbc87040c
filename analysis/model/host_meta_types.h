// The members of a host description (`kvmbench probe --json`, the "host"
// of a run's meta.json) that kvmbench's readers use (the dry run's plan
// for a --host file, `probe --host`'s labels and text, the suites'
// requirements, compare's machine check), checked for the type the probe
// writes them with: an edited or hand-made file is refused with the member
// named, instead of failing deep in a reader with the JSON library's
// "type must be string, but is number" and no file or member named.
// Members kvmbench does not read are not looked at.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kvmbench {

// What is wrong, as "\"hugepages\"[0].\"page_kb\" is string where a number
// belongs"; nullopt when nothing is (or `host` is not an object: the
// reader says that itself).
std::optional<std::string> host_meta_type_problem(const nlohmann::json& host);

}  // namespace kvmbench
