// The firmware and platform a host runs on, as DMI tells it
// (/sys/class/dmi/id: BIOS vendor, version and date, system vendor and
// product, board vendor and name): the "firmware" object of the host
// metadata, part of the machine's fingerprint (analysis/
// machine_fingerprint.h). Only files every user may read; serial numbers
// and UUIDs are root-only and not wanted (a fingerprint names a
// configuration, not an asset). A host without DMI (some VMs, non-x86)
// gives an empty object.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

nlohmann::json firmware_identity(const std::filesystem::path& dmi_dir = "/sys/class/dmi/id");

}  // namespace kvmbench::host
