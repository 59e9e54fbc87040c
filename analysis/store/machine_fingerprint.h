// Which machine a run was measured on, from the stable facts of its
// metadata only: CPU vendor, name, family, model, stepping and microcode;
// sockets, cores and threads; memory size; the NUMA layout; firmware and
// SEV/TDX firmware versions where the metadata has them. Never a clock
// rate, a TSC frequency, a bogomips figure or free memory: a key hashed
// from those splits one machine into many and turns its noise into
// one-sided "regressions" (fleet_anchors.md, folo-rs/folo PR #429).
//
// Memory is the direct map's size (DirectMap4k + 2M + 1G + 4M: the RAM the
// firmware reports, whatever the kernel reserves out of it) rounded to
// GiB, else MemTotal rounded to GiB: MemTotal moves by tens of MB from one
// kernel build to the next. NUMA nodes count by their CPUs, not their free
// or total memory, for the same reason.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvmbench {

struct MachineField {
  std::string name;   // "cpu.microcode", "numa.node1.cpus", ...
  std::string value;
};

struct MachineIdentity {
  std::vector<MachineField> fields;  // the stable fields the metadata has, in a fixed order
  // 16 hex digits (SHA-256 of the fields), or "" when the metadata does not
  // say what the CPU is (no host object, a Google Benchmark context).
  std::string fingerprint;
  bool known() const { return !fingerprint.empty(); }
  const std::string* field(std::string_view name) const;
};

// From a run's meta.json (its "host" object) or from a host description
// itself (`kvmbench probe --json`, which has "cpu" at the top).
MachineIdentity machine_identity(const nlohmann::json& meta_or_host);

// The fields whose values differ (or that only one side has), for saying
// why two runs are from different machines.
struct MachineFieldDifference {
  std::string name, a, b;  // "(absent)" where a side lacks the field
};
std::vector<MachineFieldDifference> machine_differences(const MachineIdentity& a, const MachineIdentity& b);

}  // namespace kvmbench
