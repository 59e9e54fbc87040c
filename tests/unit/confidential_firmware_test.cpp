// Firmware versions for the host metadata and the labels
// (hostlib/facts/confidential_firmware.h): the TDX module's from a made-up sysfs
// tree laid out as the tdx-host driver lays it out, the SEV and SNP ones
// from status bytes laid out as the ccp driver copies them (offsets of
// linux/psp-sev.h), and nothing where the kernel says nothing.
#include <gtest/gtest.h>

#include <cstring>

#include "hostlib/facts/confidential_firmware.h"
#include "tests/support/run_command.h"

using kvmbench::host::add_versions;
using kvmbench::host::ConfidentialFirmware;
using kvmbench::host::probe_confidential_firmware;
using kvmbench::host::SevPlatformStatus;
using kvmbench::host::SevStatusQuery;
using kvmbench::host::SnpPlatformStatus;
using kvmbench::host::tdx_module_version;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;

TEST(ConfidentialFirmware, TdxModuleVersionFromSysfs) {
  TempDir t;
  EXPECT_EQ(tdx_module_version(t.path), "");  // no tdx-host driver
  write_text(t.path / "devices/faux/tdx_host/version", "1.5.06\n");
  EXPECT_EQ(tdx_module_version(t.path), "1.5.06");
  for (const char* bad : {"", "\n", "unknown\n", "1..5\n", "1.5.\n", "15\n", "1.5 06\n"}) {
    write_text(t.path / "devices/faux/tdx_host/version", bad);
    EXPECT_EQ(tdx_module_version(t.path), "") << bad;
  }
}

// The bytes as the kernel copies them to user space: SEV build at offset 7
// (after api_major, api_minor, state and the 32-bit flags), SNP build_id a
// little-endian 32-bit word at offset 4.
TEST(ConfidentialFirmware, VersionsFromTheStatusLayout) {
  unsigned char sev_bytes[sizeof(SevPlatformStatus)] = {};
  sev_bytes[0] = 1;
  sev_bytes[1] = 55;
  sev_bytes[7] = 21;
  SevPlatformStatus sev;
  std::memcpy(&sev, sev_bytes, sizeof sev);
  EXPECT_EQ(kvmbench::host::sev_firmware_version(sev), "1.55.21");

  unsigned char snp_bytes[sizeof(SnpPlatformStatus)] = {};
  snp_bytes[0] = 1;
  snp_bytes[1] = 57;
  snp_bytes[4] = 0x2c;  // build 300 = 0x12c
  snp_bytes[5] = 0x01;
  SnpPlatformStatus snp;
  std::memcpy(&snp, snp_bytes, sizeof snp);
  EXPECT_EQ(kvmbench::host::snp_firmware_version(snp), "1.57.300");
}

// No /dev/sev, or a file that is not the ccp device (the ioctl fails): no
// SEV version, and the TDX one still read.
TEST(ConfidentialFirmware, NothingWhereTheKernelSaysNothing) {
  TempDir t;
  write_text(t.path / "devices/faux/tdx_host/version", "2.0.01\n");
  auto f = probe_confidential_firmware(SevStatusQuery::sev_and_snp, t.path, t.path / "no-such-sev");
  EXPECT_EQ(f.sev, "");
  EXPECT_EQ(f.sev_snp, "");
  EXPECT_EQ(f.tdx_module, "2.0.01");
  write_text(t.path / "sev", "not a device\n");
  f = probe_confidential_firmware(SevStatusQuery::sev_and_snp, t.path, t.path / "sev");
  EXPECT_EQ(f.sev, "");
  EXPECT_EQ(f.sev_snp, "");
}

TEST(ConfidentialFirmware, AddsOnlyKnownVersions) {
  nlohmann::json fw = {{"bios_vendor", "AMI"}};
  add_versions(fw, ConfidentialFirmware{"1.55.21", "", "1.5.06"});
  EXPECT_EQ(fw, (nlohmann::json{{"bios_vendor", "AMI"}, {"sev", "1.55.21"}, {"tdx_module", "1.5.06"}}));
  nlohmann::json none = nullptr;
  add_versions(none, ConfidentialFirmware{});
  EXPECT_EQ(none, nlohmann::json::object());
}
