// The capability labels of a host, for the lab engines that match jobs to
// machines on labels (GitLab runner tags, Jenkins label expressions, LAVA
// device tags): `kvmbench probe --labels` prints them, `--require` checks
// them. Derived from what the probe verified (ioctls answered, kernel
// parameters as loaded, /proc/cpuinfo as the kernel sees it), never from
// the CPU's model name, so a label is a promise that the path works here:
// "sev-snp" is KVM accepting an SNP VM type, not a CPU that has SNP in its
// CPUID with the firmware off.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench::host {

struct CapabilityLabel {
  std::string name;   // "sev-snp", "numa-2"
  std::string value;  // "" when the label has none; else printed as name=value
};

// Pure: the labels of the host that `metadata` describes (what `kvmbench
// probe --json` prints: this host's or another's), in a fixed order.
std::vector<CapabilityLabel> capability_labels(const nlohmann::json& metadata);

// "name" or "name=value".
std::string to_string(const CapabilityLabel& l);

// Pure: the required labels that `have` does not satisfy, in the order
// given. A requirement "name" is met by the label of that name whatever its
// value; "name=value" by that value, by a value with more dot-separated
// parts after it (a version: "1.55" by "1.55.21"), and, for a count, by any
// count at least that.
std::vector<std::string> missing_labels(const std::vector<CapabilityLabel>& have,
                                        const std::vector<std::string>& required);

}  // namespace kvmbench::host
