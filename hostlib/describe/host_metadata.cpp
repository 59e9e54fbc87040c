#include "hostlib/describe/host_metadata.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/facts/physical_ram.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analysis/parse/meminfo.h"
#include "hostlib/facts/cpuid.h"
#include "hostlib/facts/confidential_firmware.h"
#include "hostlib/facts/firmware_identity.h"
#include "hostlib/kvm/kvm_probe.h"
#include "hostlib/measure/pinning.h"
#include "hostlib/os/cpu_list.h"
#include "hostlib/kvm/private_vm.h"
#include "hostlib/qemu/qemu_info.h"
#include "hostlib/facts/topology.h"
#include "hostlib/facts/tsc.h"

namespace kvmbench::host {

namespace fs = std::filesystem;

namespace {

// Reads small procfs/sysfs files and remembers which could not be read.
class Reader {
 public:
  std::optional<std::string> read(const fs::path& p, bool trim = true) {
    std::optional<std::string> s = trim ? read_kernel_value(p) : read_kernel_file(p);
    if (!s) note(p, errno);
    return s;
  }
  // Like read(), but a missing file is not worth a note (optional features).
  std::optional<std::string> read_if_exists(const fs::path& p) {
    std::error_code ec;
    if (!fs::exists(p, ec)) return std::nullopt;
    return read(p);
  }
  nlohmann::json unreadable() const { return unreadable_; }
  nlohmann::json needs_root() const { return needs_root_; }

 private:
  void note(const fs::path& p, int err) {
    bool root_would_help = (err == EACCES || err == EPERM) && ::geteuid() != 0;
    unreadable_.push_back({{"path", p.string()},
                           {"error", err ? std::strerror(err) : "unreadable"},
                           {"needs_root", root_would_help}});
    if (root_would_help) needs_root_.push_back(p.string());
  }
  nlohmann::json unreadable_ = nlohmann::json::array();
  nlohmann::json needs_root_ = nlohmann::json::array();
};

nlohmann::json str_or_null(const std::optional<std::string>& s) {
  return s ? nlohmann::json(*s) : nlohmann::json(nullptr);
}

std::string utc_now() {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<fs::path> sorted_dir(const fs::path& d) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(d, ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json hugepage_pools(Reader& r, const fs::path& dir) {
  nlohmann::json pools = nlohmann::json::array();
  for (auto& p : sorted_dir(dir)) {
    auto kb = hugepage_dir_kb(p.filename().string());
    if (!kb) continue;
    nlohmann::json j = {{"page_kb", kb}};
    for (const char* f : {"nr_hugepages", "free_hugepages", "resv_hugepages", "surplus_hugepages"}) {
      auto v = r.read_if_exists(p / f);
      if (!v) continue;
      try {
        j[f] = std::stoull(*v);
      } catch (...) {
        j[f] = *v;
      }
    }
    pools.push_back(j);
  }
  std::sort(pools.begin(), pools.end(),
            [](const nlohmann::json& a, const nlohmann::json& b) { return a["page_kb"] < b["page_kb"]; });
  return pools;
}

nlohmann::json kvm_modules(Reader& r) {
  nlohmann::json mods = nlohmann::json::object();
  for (auto& m : sorted_dir("/sys/module")) {
    auto name = m.filename().string();
    if (name != "kvm" && name.rfind("kvm_", 0) != 0) continue;
    nlohmann::json params = nlohmann::json::object();
    nlohmann::json writable = nlohmann::json::array();
    for (auto& p : sorted_dir(m / "parameters")) {
      params[p.filename().string()] = str_or_null(r.read(p));
      std::error_code ec;
      auto perms = fs::status(p, ec).permissions();
      if (!ec && (perms & fs::perms::owner_write) != fs::perms::none) writable.push_back(p.filename().string());
    }
    mods[name] = {{"parameters", params}, {"writable", writable}};
  }
  return mods;
}

nlohmann::json cpufreq(Reader& r, const std::vector<int>& cpus) {
  std::map<std::string, std::vector<int>> governors;
  std::optional<std::string> driver;
  for (int c : cpus) {
    fs::path d = fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq", c);
    if (auto g = r.read_if_exists(d / "scaling_governor")) governors[*g].push_back(c);
    if (!driver) driver = r.read_if_exists(d / "scaling_driver");
  }
  nlohmann::json gov = nlohmann::json::object();
  for (auto& [g, cs] : governors) gov[g] = format_cpu_list(cs);
  // Boost: acpi-cpufreq/amd-pstate "boost" (1 on), intel_pstate "no_turbo" (0 on).
  nlohmann::json boost = nullptr;
  if (auto b = r.read_if_exists("/sys/devices/system/cpu/cpufreq/boost"))
    boost = {{"enabled", *b == "1"}, {"from", "cpufreq/boost"}};
  else if (auto nt = r.read_if_exists("/sys/devices/system/cpu/intel_pstate/no_turbo"))
    boost = {{"enabled", *nt == "0"}, {"from", "intel_pstate/no_turbo"}};
  nlohmann::json j = {{"driver", str_or_null(driver)}, {"governors", gov}, {"boost", boost}};
  if (governors.empty()) j["note"] = "no cpufreq on this host (virtual machine or driver not loaded)";
  return j;
}

}  // namespace

nlohmann::json virtualization_json(const nlohmann::json& cpu, bool dev_kvm_present) {
  const bool in_vm = cpu.value("hypervisor", false);
  const std::string name = cpu.value("hypervisor_name", std::string());
  const bool emulated = name == "tcg";
  nlohmann::json v = {{"in_vm", in_vm},
                      {"hypervisor", in_vm ? nlohmann::json(name) : nlohmann::json(nullptr)},
                      {"signature", cpu.value("hypervisor_signature", std::string())},
                      {"emulated", emulated},
                      // A KVM here runs its guests as a nested hypervisor.
                      {"kvm_nested", in_vm && dev_kvm_present}};
  if (emulated)
    v["note"] = "the CPU is QEMU's software emulator (TCG): every result measured here is emulated";
  else if (in_vm && dev_kvm_present)
    v["note"] = fmt::format("KVM here is nested in {}: guests run two levels down",
                            name.empty() || name == "other" ? "another hypervisor" : name);
  return v;
}

std::string emulation_reason(const nlohmann::json& m) {
  if (!m.is_object() || !m.contains("cpu") || !m["cpu"].is_object()) return "";
  const auto& cpu = m["cpu"];
  if (cpu.value("hypervisor_name", std::string()) != "tcg") return "";
  return fmt::format("this machine's CPU is QEMU's software emulator (TCG; CPUID 0x40000000 \"{}\"): "
                     "what runs here is emulated, not measured on hardware",
                     cpu.value("hypervisor_signature", std::string()));
}

unsigned long hugepage_dir_kb(std::string_view name) {
  constexpr std::string_view pre = "hugepages-", suf = "kB";
  if (name.size() <= pre.size() + suf.size() || name.substr(0, pre.size()) != pre ||
      name.substr(name.size() - suf.size()) != suf)
    return 0;
  auto num = name.substr(pre.size(), name.size() - pre.size() - suf.size());
  unsigned long v = 0;
  for (char c : num) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + static_cast<unsigned long>(c - '0');
  }
  return v;
}

std::string selected_mode(std::string_view text) {
  auto lb = text.find('['), rb = text.find(']');
  if (lb != std::string_view::npos && rb != std::string_view::npos && rb > lb)
    return std::string(text.substr(lb + 1, rb - lb - 1));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return std::string(text);
}

nlohmann::json collect_metadata(const MetadataOptions& o) {
  Reader r;
  nlohmann::json m;
  m["collected_at"] = utc_now();
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  m["hostname"] = host;

  utsname u{};
  ::uname(&u);
  m["kernel"] = {{"release", u.release}, {"version", u.version}, {"machine", u.machine},
                 {"cmdline", str_or_null(r.read("/proc/cmdline"))}};

  CpuInfo cpu = read_cpu();
  m["cpu"] = to_json(cpu);
  {
    std::error_code ec;
    m["virtualization"] = virtualization_json(m["cpu"], fs::exists("/dev/kvm", ec));
  }

  if (o.probe_kvm) {
    const KvmStatus kvm = probe_kvm(o.kvm_timeout_ms);
    m["kvm"] = to_json(kvm);
    m["kvm"]["private_vm_types"] = private_vm_types_json(kvm);
  } else {
    std::error_code ec;
    m["kvm"] = {{"present", fs::exists("/dev/kvm", ec)}, {"runs_guests", nullptr},
                {"reason", "not probed"}, {"guest_memfd_flags", nullptr}};
  }
  m["kvm_modules"] = kvm_modules(r);

  m["smt"] = {{"control", str_or_null(r.read_if_exists("/sys/devices/system/cpu/smt/control"))},
              {"active", str_or_null(r.read_if_exists("/sys/devices/system/cpu/smt/active"))}};

  Topology topo = read_topology();
  auto tj = to_json(topo);
  m["numa"] = {{"nodes", tj["numa_nodes"]}, {"source", "hwloc"}};
  for (auto& n : m["numa"]["nodes"]) {
    n["hugepages"] = hugepage_pools(r, fmt::format("/sys/devices/system/node/node{}/hugepages", n["node"].get<int>()));
  }
  tj.erase("numa_nodes");
  m["topology"] = tj;

  auto meminfo_text = r.read("/proc/meminfo", false);
  auto mi = parse_meminfo(meminfo_text.value_or(""));
  auto field = [&](const char* k) { return mi.count(k) ? nlohmann::json(mi.at(k)) : nlohmann::json(nullptr); };
  m["memory"] = {{"total_bytes", field("MemTotal")},
                 {"directmap", {{"4k", field("DirectMap4k")}, {"2M", field("DirectMap2M")},
                                {"1G", field("DirectMap1G")}, {"4M", field("DirectMap4M")}}},
                 {"meminfo", {{"MemFree", field("MemFree")}, {"MemAvailable", field("MemAvailable")},
                              {"AnonHugePages", field("AnonHugePages")}, {"FileHugePages", field("FileHugePages")},
                              {"ShmemHugePages", field("ShmemHugePages")}, {"Hugetlb", field("Hugetlb")},
                              {"Hugepagesize", field("Hugepagesize")}}}};
  if (m["memory"]["directmap"]["4M"].is_null()) m["memory"]["directmap"].erase("4M");
  // Where RAM ends by address (above MemTotal: the PCI hole is remapped
  // above the top), which what covers memory by address must reach.
  const RamEnd ram_end = read_ram_end();
  m["memory"]["ram_end"] = ram_end.end ? nlohmann::json(*ram_end.end) : nlohmann::json(nullptr);
  m["memory"]["ram_end_from"] = ram_end.from;
  m["hugepages"] = hugepage_pools(r, "/sys/kernel/mm/hugepages");

  auto thp = [&](const char* f) {
    auto v = r.read_if_exists(fs::path("/sys/kernel/mm/transparent_hugepage") / f);
    return v ? nlohmann::json(selected_mode(*v)) : nlohmann::json(nullptr);
  };
  m["thp"] = {{"enabled", thp("enabled")}, {"defrag", thp("defrag")}, {"shmem_enabled", thp("shmem_enabled")}};

  TscInfo tsc = read_tsc_info(o.tsc_calibration_ms);
  m["tsc_hz"] = tsc.hz ? nlohmann::json(tsc.hz) : nlohmann::json(nullptr);
  m["tsc"] = to_json(tsc);
  m["clocksource"] = {
      {"current", str_or_null(r.read_if_exists("/sys/devices/system/clocksource/clocksource0/current_clocksource"))},
      {"available", str_or_null(r.read_if_exists("/sys/devices/system/clocksource/clocksource0/available_clocksource"))}};
  m["cpufreq"] = cpufreq(r, topo.online_cpus.empty() ? thread_affinity() : topo.online_cpus);

  if (o.probe_qemu) {
    m["qemu"] = to_json(probe_qemu(o.qemu_timeout_s));
  } else {
    m["qemu"] = {{"found", nullptr}, {"version", nullptr}, {"accels", nlohmann::json::array()}, {"error", "not probed"}};
  }
  m["firmware"] = firmware_identity();  // part of the machine fingerprint
  {
    // The SEV/SNP firmware's and TDX module's versions (labels' values, and
    // in the fingerprint): /dev/sev is asked only where the KVM probe ran
    // and offers SEV VM types, so a --dry-run sends no ioctl.
    const auto& types = m["kvm"].value("vm_types", nlohmann::json::array());
    auto offers = [&](const char* t) {
      return types.is_array() && std::find(types.begin(), types.end(), t) != types.end();
    };
    SevStatusQuery q = SevStatusQuery::none;
    if (o.probe_kvm && (offers("sev") || offers("sev_es"))) q = SevStatusQuery::sev;
    if (o.probe_kvm && offers("snp")) q = SevStatusQuery::sev_and_snp;
    add_versions(m["firmware"], probe_confidential_firmware(q));
  }
  m["running_as_root"] = ::geteuid() == 0;
  m["needs_root"] = r.needs_root();
  // /dev/kvm is usually root or group kvm only: say so when that is why
  // KVM looked absent.
  if (::geteuid() != 0 && ::access("/dev/kvm", F_OK) == 0 && ::access("/dev/kvm", R_OK | W_OK) != 0)
    m["needs_root"].push_back("/dev/kvm (root or its group)");
  m["unreadable"] = r.unreadable();
  return m;
}

}  // namespace kvmbench::host
