#include "hostlib/firmware_identity.h"

#include <fstream>
#include <string>

namespace kvmbench::host {

nlohmann::json firmware_identity(const std::filesystem::path& dmi_dir) {
  nlohmann::json fw = nlohmann::json::object();
  for (const char* name : {"bios_vendor", "bios_version", "bios_date", "sys_vendor", "product_name",
                           "board_vendor", "board_name"}) {
    std::ifstream in(dmi_dir / name);
    std::string value;
    if (!in || !std::getline(in, value)) continue;
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.pop_back();
    if (!value.empty()) fw[name] = value;
  }
  return fw;
}

}  // namespace kvmbench::host
