// A host described by `kvmbench probe --json` output in a file (`probe
// --host`, `run --dry-run --host`): read, parsed and checked alike for
// every command that takes one, its refusals in the same words.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kvmbench::engine {

// The host's metadata. A usage error (exit 2) naming the file for one
// that cannot be read, is empty, is not JSON (a kernel log given by
// mistake), has no "cpu" or "kvm" object, or has a value of the wrong type.
nlohmann::json read_host_description(const std::string& path);

}  // namespace kvmbench::engine
