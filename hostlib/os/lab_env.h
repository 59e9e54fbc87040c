// The environment variable through which a command in the emulated lab
// (`kvmbench lab`) learns that it runs there: a JSON object (id, host,
// kernel, cpu, ...) that `kvmbench run` stores in meta.json as "lab", and
// that a host change inside the lab is also told to the lab's console by.
#pragma once

#include <nlohmann/json.hpp>

namespace kvmbench::host {

inline constexpr const char* kLabEnv = "KVMBENCH_LAB";

// That object, or null outside the lab ({"unparsed": text} for text that is
// not a JSON object).
nlohmann::json lab_identity_from_env();

}  // namespace kvmbench::host
