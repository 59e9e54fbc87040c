// Whether two sides of a comparison were measured on the same machine
// (machine_fingerprint.h), worded for compare (a warning) and gate (a
// refusal unless --cross-machine): a difference between two machines is
// not a change made by a patch.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kvmbench {

struct MachineCheck {
  enum class Outcome { same, different, unknown } outcome = Outcome::unknown;
  std::string base_fingerprint, cand_fingerprint;  // "" where unknown
  // One line: "base and cand come from different machines (3f2a... vs
  // 9c01...): cpu.microcode 0xa101148 -> 0xa101150; ..." or why it cannot
  // be told; "" for the same machine.
  std::string message;
};

// From the two sides' metadata (meta.json objects).
MachineCheck check_same_machine(const nlohmann::json& base_meta, const nlohmann::json& cand_meta);

// The gate's rule: a problem (the input is unusable) when the machines
// differ and cross_machine is false; nullopt otherwise.
std::optional<std::string> gate_machine_problem(const MachineCheck& check, bool cross_machine);

}  // namespace kvmbench
