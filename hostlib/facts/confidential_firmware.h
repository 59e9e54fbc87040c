// The versions of the firmware confidential VMs run on, as the running
// kernel reports them, for the host metadata's "firmware" object: there
// they are part of the machine's fingerprint (a firmware update is a
// different machine configuration) and the values of the sev, sev-es,
// sev-snp and tdx capability labels (capability_labels.h), so that a lab
// job can ask for a firmware version as it asks for a feature.
//   - "sev": the SEV firmware's API version and build, "1.55.21", from
//     SEV_PLATFORM_STATUS on /dev/sev (the ccp driver's ioctl; the file is
//     root's, or the kvm group's where udev gives it that);
//   - "sev_snp": the same from SNP_PLATFORM_STATUS (Linux 6.11 and later;
//     older kernels answer it only after SNP_INIT);
//   - "tdx_module": the TDX module's "major.minor.update" ("1.5.06"), from
//     /sys/devices/faux/tdx_host/version (the tdx-host driver; a kernel
//     without it says it only in its boot log, which is not read here).
// Each is absent where the kernel does not say: no /dev/sev, no
// permission, no such sysfs file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

struct ConfidentialFirmware {
  std::string sev;         // "" when not known
  std::string sev_snp;
  std::string tdx_module;
};

// The leading fields of the ccp driver's status structs (linux/psp-sev.h:
// struct sev_user_data_status, struct sev_user_data_snp_status), packed as
// the kernel copies them out. Debian's 6.1 header has no SNP struct.
struct SevPlatformStatus {
  std::uint8_t api_major, api_minor, state;
  std::uint32_t flags;
  std::uint8_t build;
  std::uint32_t guest_count;
} __attribute__((packed));
static_assert(sizeof(SevPlatformStatus) == 12);

struct SnpPlatformStatus {
  std::uint8_t api_major, api_minor, state, rmp_initialized;
  std::uint32_t build_id;
  std::uint32_t mask_flags;
  std::uint32_t guest_count;
  std::uint64_t current_tcb_version;
  std::uint64_t reported_tcb_version;
} __attribute__((packed));
static_assert(sizeof(SnpPlatformStatus) == 32);

// Pure: "major.minor.build" of each.
std::string sev_firmware_version(const SevPlatformStatus& s);
std::string snp_firmware_version(const SnpPlatformStatus& s);

// The TDX module version under `sys_root` (devices/faux/tdx_host/version),
// "" when the file is absent or does not hold dotted numbers.
std::string tdx_module_version(const std::filesystem::path& sys_root = "/sys");

// Which status commands to send to /dev/sev: none where KVM offers no SEV
// VM type (the device is not opened); SNP's only where KVM offers SNP VMs,
// since a newer kernel brings SNP up to answer it when it is down.
enum class SevStatusQuery { none, sev, sev_and_snp };

// Live: the ioctls on `sev_device` (opened read-only: the status commands
// need no write access) and the sysfs file.
ConfidentialFirmware probe_confidential_firmware(SevStatusQuery query,
                                                 const std::filesystem::path& sys_root = "/sys",
                                                 const std::filesystem::path& sev_device = "/dev/sev");

// Adds the known versions to a "firmware" object, keys as above.
void add_versions(nlohmann::json& firmware, const ConfidentialFirmware& f);

}  // namespace kvmbench::host
