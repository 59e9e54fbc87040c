// Which QEMU this host has, its version and accelerators. QEMU is run with
// an argument vector (no shell) under a timeout, so a broken binary cannot
// hang the probe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

struct QemuInfo {
  bool found = false;
  std::string path;
  std::string version;               // "8.2.2"
  std::string version_line;          // the first line of --version
  std::vector<std::string> accels;   // from -accel help: "kvm", "tcg", ...
  std::string error;                 // why something is missing
};

// Pure parsers of QEMU's output.
std::string parse_qemu_version(std::string_view version_output);   // "" when not found
std::vector<std::string> parse_qemu_accels(std::string_view accel_help_output);

QemuInfo probe_qemu(double timeout_s = 60.0);

nlohmann::json to_json(const QemuInfo& q);

}  // namespace kvmbench::host
