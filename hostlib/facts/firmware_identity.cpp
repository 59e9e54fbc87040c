#include "hostlib/facts/firmware_identity.h"

#include <string>

#include "hostlib/os/kernel_files.h"

namespace kvmbench::host {

nlohmann::json firmware_identity(const std::filesystem::path& dmi_dir) {
  nlohmann::json fw = nlohmann::json::object();
  for (const char* name : {"bios_vendor", "bios_version", "bios_date", "sys_vendor", "product_name",
                           "board_vendor", "board_name"}) {
    const auto value = read_kernel_value(dmi_dir / name);
    if (value && !value->empty()) fw[name] = *value;
  }
  return fw;
}

}  // namespace kvmbench::host
