#include "hostlib/facts/confidential_firmware.h"

#include <fcntl.h>
#include <linux/psp-sev.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "hostlib/os/kernel_files.h"

namespace kvmbench::host {

namespace {

// enum of linux/psp-sev.h: SNP_PLATFORM_STATUS follows SEV_GET_ID2, which
// is the last one Debian's 6.1 header has.
constexpr std::uint32_t kSnpPlatformStatus = SEV_GET_ID2 + 1;

// "1.5.06": numbers joined by single dots, nothing else.
bool is_dotted_version(const std::string& v) {
  if (v.empty() || v.front() == '.' || v.back() == '.' || v.find("..") != std::string::npos) return false;
  return std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c) || c == '.'; }) &&
         v.find('.') != std::string::npos;
}

// SEV_ISSUE_CMD with `cmd` filling `out`; false when the kernel or the
// firmware refused.
template <typename Status>
bool sev_status(int fd, std::uint32_t cmd, Status& out) {
  sev_issue_cmd arg{};
  arg.cmd = cmd;
  arg.data = reinterpret_cast<std::uint64_t>(&out);
  return ::ioctl(fd, SEV_ISSUE_CMD, &arg) == 0 && arg.error == 0;
}

}  // namespace

std::string sev_firmware_version(const SevPlatformStatus& s) {
  return fmt::format("{}.{}.{}", s.api_major, s.api_minor, s.build);
}

std::string snp_firmware_version(const SnpPlatformStatus& s) {
  return fmt::format("{}.{}.{}", s.api_major, s.api_minor, s.build_id);
}

std::string tdx_module_version(const std::filesystem::path& sys_root) {
  const auto v = read_kernel_value(sys_root / "devices/faux/tdx_host/version");
  return v && is_dotted_version(*v) ? *v : "";
}

ConfidentialFirmware probe_confidential_firmware(SevStatusQuery query,
                                                 const std::filesystem::path& sys_root,
                                                 const std::filesystem::path& sev_device) {
  ConfidentialFirmware f;
  f.tdx_module = tdx_module_version(sys_root);
  if (query == SevStatusQuery::none) return f;
  const int fd = ::open(sev_device.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return f;
  SevPlatformStatus sev{};
  if (sev_status(fd, SEV_PLATFORM_STATUS, sev)) f.sev = sev_firmware_version(sev);
  SnpPlatformStatus snp{};
  if (query == SevStatusQuery::sev_and_snp && sev_status(fd, kSnpPlatformStatus, snp)) f.sev_snp = snp_firmware_version(snp);
  ::close(fd);
  return f;
}

void add_versions(nlohmann::json& firmware, const ConfidentialFirmware& f) {
  if (!firmware.is_object()) firmware = nlohmann::json::object();
  if (!f.sev.empty()) firmware["sev"] = f.sev;
  if (!f.sev_snp.empty()) firmware["sev_snp"] = f.sev_snp;
  if (!f.tdx_module.empty()) firmware["tdx_module"] = f.tdx_module;
}

}  // namespace kvmbench::host
