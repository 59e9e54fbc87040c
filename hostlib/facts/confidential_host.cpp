#include "hostlib/facts/confidential_host.h"
#include "hostlib/os/kernel_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace kvmbench::host {

namespace {

std::string read_text(const char* path) { return read_kernel_file(path).value_or(""); }

// /dev/kmsg opened for reading and closed again: "" or why not.
std::string kmsg_open_error(const char* device) {
  const int fd = ::open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fmt::format("{} cannot be opened: {}{}", device, std::strerror(errno),
                       errno == EPERM || errno == EACCES ? " (root is needed when kernel.dmesg_restrict=1)" : "");
  ::close(fd);
  return "";
}

[[noreturn]] void wrong_type(const std::string& key, const char* expected) {
  throw std::invalid_argument(fmt::format("confidential.{}: expected {}", key, expected));
}

std::string string_at(const nlohmann::json& j, const std::string& key, const std::string& fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_string()) wrong_type(key, "a string");
  return j[key].get<std::string>();
}

}  // namespace

std::string cpuinfo_flag_state(std::string_view proc_cpuinfo, std::string_view flag) {
  const auto flags = cpuinfo_field(proc_cpuinfo, "flags");
  if (!flags) return "unknown";
  std::istringstream ss(*flags);
  for (std::string f; ss >> f;)
    if (f == flag) return "yes";
  return "no";
}

bool cmdline_clears_cpu_flag(std::string_view cmdline, std::string_view flag) {
  constexpr std::string_view key = "clearcpuid=";
  std::size_t pos = 0;
  while (pos < cmdline.size()) {
    std::size_t end = cmdline.find_first_of(" \t\n", pos);
    if (end == std::string_view::npos) end = cmdline.size();
    std::string_view word = cmdline.substr(pos, end - pos);
    pos = end + 1;
    if (word.substr(0, key.size()) != key) continue;
    word.remove_prefix(key.size());
    while (!word.empty()) {
      const std::size_t comma = word.find(',');
      if (word.substr(0, comma) == flag) return true;
      if (comma == std::string_view::npos) break;
      word.remove_prefix(comma + 1);
    }
  }
  return false;
}

ConfidentialHost probe_confidential_host() {
  ConfidentialHost c;
  const CpuidTable cpuid = read_cpuid_table();
  c.sev_bits = sev_encryption_bits(cpuid);
  c.flushbyasid = cpuinfo_flag_state(read_text("/proc/cpuinfo"), "flushbyasid");
  c.clearcpuid_flushbyasid = cmdline_clears_cpu_flag(read_text("/proc/cmdline"), "flushbyasid");
  c.kmsg_error = kmsg_open_error("/dev/kmsg");
  if (decode_cpu(cpuid).has("sev_snp") || cpuinfo_flag_state(read_text("/proc/cpuinfo"), "sev_snp") == "yes")
    c.rmpopt = read_rmpopt_boot_state();
  return c;
}

nlohmann::json to_json(const ConfidentialHost& c) {
  nlohmann::json j;
  j["sev_cbitpos"] = c.sev_bits ? nlohmann::json(c.sev_bits->cbitpos) : nlohmann::json(nullptr);
  j["sev_reduced_phys_bits"] = c.sev_bits ? nlohmann::json(c.sev_bits->reduced_phys_bits) : nlohmann::json(nullptr);
  j["flushbyasid"] = c.flushbyasid;
  j["flushbyasid_from"] = "/proc/cpuinfo flags";
  j["clearcpuid_flushbyasid"] = c.clearcpuid_flushbyasid;
  j["kmsg_error"] = c.kmsg_error;
  const RmpoptBootState& r = c.rmpopt;
  auto number = [](const std::optional<unsigned long long>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  j["rmpopt_boot"] = {{"state", std::string(to_string(r.state))},
                      {"line", r.line},
                      {"detail", r.detail},
                      {"revision", r.revision},
                      {"range_lines", r.range_lines},
                      {"range_start", number(r.range_start)},
                      {"range_end", number(r.range_end)},
                      {"coverage_line", r.coverage_line},
                      {"not_optimized_above", number(r.not_optimized_above)},
                      {"boots", r.boots},
                      {"debugfs", r.debugfs},
                      {"from", r.from}};
  return j;
}

ConfidentialHost confidential_host_from_json(const nlohmann::json& j) {
  ConfidentialHost c;
  if (j.is_null()) return c;
  if (!j.is_object()) throw std::invalid_argument("confidential: expected an object");
  const bool has_cbit = j.contains("sev_cbitpos") && !j["sev_cbitpos"].is_null();
  if (has_cbit) {
    if (!j["sev_cbitpos"].is_number_unsigned()) wrong_type("sev_cbitpos", "a non-negative integer or null");
    SevEncryptionBits b;
    b.cbitpos = j["sev_cbitpos"].get<unsigned>();
    if (j.contains("sev_reduced_phys_bits") && !j["sev_reduced_phys_bits"].is_null()) {
      if (!j["sev_reduced_phys_bits"].is_number_unsigned())
        wrong_type("sev_reduced_phys_bits", "a non-negative integer or null");
      b.reduced_phys_bits = j["sev_reduced_phys_bits"].get<unsigned>();
    }
    c.sev_bits = b;
  }
  c.flushbyasid = string_at(j, "flushbyasid", "unknown");
  if (c.flushbyasid != "yes" && c.flushbyasid != "no" && c.flushbyasid != "unknown")
    wrong_type("flushbyasid", "\"yes\", \"no\" or \"unknown\"");
  if (j.contains("clearcpuid_flushbyasid")) {
    if (!j["clearcpuid_flushbyasid"].is_boolean()) wrong_type("clearcpuid_flushbyasid", "true or false");
    c.clearcpuid_flushbyasid = j["clearcpuid_flushbyasid"].get<bool>();
  }
  c.kmsg_error = string_at(j, "kmsg_error", "not in the host description");
  if (j.contains("rmpopt_boot") && !j["rmpopt_boot"].is_null()) {
    const auto& r = j["rmpopt_boot"];
    if (!r.is_object()) wrong_type("rmpopt_boot", "an object");
    try {
      c.rmpopt.state = rmpopt_boot_state_from_name(string_at(r, "state", "not_checked"));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("confidential.rmpopt_boot.state: ") + e.what());
    }
    c.rmpopt.line = string_at(r, "line", "");
    c.rmpopt.detail = string_at(r, "detail", "");
    c.rmpopt.revision = string_at(r, "revision", "");
    c.rmpopt.coverage_line = string_at(r, "coverage_line", "");
    c.rmpopt.debugfs = string_at(r, "debugfs", "");
    c.rmpopt.from = string_at(r, "from", "");
    auto address = [&](const char* key, std::optional<unsigned long long>& out) {
      if (!r.contains(key) || r[key].is_null()) return;
      if (!r[key].is_number_unsigned()) wrong_type(std::string("rmpopt_boot.") + key, "a non-negative integer");
      out = r[key].get<unsigned long long>();
    };
    address("range_start", c.rmpopt.range_start);
    address("range_end", c.rmpopt.range_end);
    address("not_optimized_above", c.rmpopt.not_optimized_above);
    auto count = [&](const char* key, int& out) {
      if (!r.contains(key) || r[key].is_null()) return;
      if (!r[key].is_number_integer() || r[key].get<long long>() < 0 || r[key].get<long long>() > 1000000)
        wrong_type(std::string("rmpopt_boot.") + key, "a count");
      out = r[key].get<int>();
    };
    count("range_lines", c.rmpopt.range_lines);
    count("boots", c.rmpopt.boots);
  }
  return c;
}

}  // namespace kvmbench::host
