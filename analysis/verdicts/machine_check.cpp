#include "analysis/verdicts/machine_check.h"

#include <fmt/format.h>

#include "analysis/store/machine_fingerprint.h"

namespace kvmbench {

MachineCheck check_same_machine(const nlohmann::json& base_meta, const nlohmann::json& cand_meta) {
  const MachineIdentity a = machine_identity(base_meta), b = machine_identity(cand_meta);
  MachineCheck c;
  c.base_fingerprint = a.fingerprint;
  c.cand_fingerprint = b.fingerprint;
  if (!a.known() || !b.known()) {
    c.outcome = MachineCheck::Outcome::unknown;
    const char* who = !a.known() && !b.known() ? "neither side records" : !a.known() ? "base does not record" : "cand does not record";
    c.message = fmt::format("{} the machine it was measured on (no host CPU in its metadata): cannot check "
                            "that both come from the same machine",
                            who);
    return c;
  }
  const auto diffs = machine_differences(a, b);
  if (diffs.empty()) {
    c.outcome = MachineCheck::Outcome::same;
    return c;
  }
  c.outcome = MachineCheck::Outcome::different;
  std::string fields;
  for (std::size_t i = 0; i < diffs.size(); ++i)
    fields += fmt::format("{}{} {} -> {}", i ? "; " : "", diffs[i].name, diffs[i].a, diffs[i].b);
  c.message = fmt::format("base and cand come from different machines ({} vs {}): {}", a.fingerprint,
                          b.fingerprint, fields);
  return c;
}

std::optional<std::string> gate_machine_problem(const MachineCheck& check, bool cross_machine) {
  if (check.outcome != MachineCheck::Outcome::different || cross_machine) return std::nullopt;
  return check.message + " (a gate compares one machine with itself; --cross-machine to gate anyway)";
}

}  // namespace kvmbench
