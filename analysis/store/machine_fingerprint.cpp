#include "analysis/store/machine_fingerprint.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "analysis/model/sha256.h"

namespace kvmbench {

namespace {

// The text of a scalar as the fingerprint sees it: numbers without a
// trailing ".0", strings as they are; nullopt for null and containers.
std::optional<std::string> scalar(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer() || j.is_number_unsigned()) return j.dump();
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (std::floor(v) == v && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
    return j.dump();
  }
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  return std::nullopt;
}

const nlohmann::json* at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* p = &j;
  for (const char* k : path) {
    if (!p->is_object()) return nullptr;
    auto it = p->find(k);
    if (it == p->end()) return nullptr;
    p = &*it;
  }
  return p;
}

double number_or_nan(const nlohmann::json* j) { return j && j->is_number() ? j->get<double>() : NAN; }

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::optional<std::string> memory_gib(const nlohmann::json& host) {
  if (const auto* dm = at(host, {"memory", "directmap"}); dm && dm->is_object()) {
    double sum = 0;
    bool any = false;
    for (auto& [k, v] : dm->items())
      if (v.is_number()) sum += v.get<double>(), any = true;
    if (any && sum > 0) return fmt::format("{}", std::llround(sum / kGiB));
  }
  const double total = number_or_nan(at(host, {"memory", "total_bytes"}));
  if (std::isfinite(total) && total > 0) return fmt::format("{}", std::llround(total / kGiB));
  return std::nullopt;
}

}  // namespace

const std::string* MachineIdentity::field(std::string_view name) const {
  for (auto& f : fields)
    if (f.name == name) return &f.value;
  return nullptr;
}

MachineIdentity machine_identity(const nlohmann::json& meta_or_host) {
  MachineIdentity id;
  const nlohmann::json* host = nullptr;
  if (meta_or_host.is_object() && meta_or_host.contains("host") && meta_or_host["host"].is_object())
    host = &meta_or_host["host"];
  else if (meta_or_host.is_object() && meta_or_host.contains("cpu"))
    host = &meta_or_host;
  if (!host) return id;

  auto add = [&](std::string name, const nlohmann::json* j) {
    if (!j) return;
    if (auto s = scalar(*j)) id.fields.push_back({std::move(name), *s});
  };
  // The CPU as CPUID and the microcode loader describe it.
  for (const char* k : {"vendor_id", "model_name", "family", "model", "stepping", "microcode"})
    add(std::string("cpu.") + k, at(*host, {"cpu", k}));
  const auto* hv = at(*host, {"cpu", "hypervisor"});
  if (hv && hv->is_boolean() && hv->get<bool>()) add("cpu.hypervisor", at(*host, {"cpu", "hypervisor_name"}));
  if (!id.field("cpu.vendor_id") || !id.field("cpu.family") || !id.field("cpu.model")) {
    id.fields.clear();  // not enough to tell one machine from another
    return id;
  }
  for (const char* k : {"packages", "cores", "threads"}) add(std::string("topology.") + k, at(*host, {"topology", k}));
  if (auto gib = memory_gib(*host)) id.fields.push_back({"memory.gib", *gib});
  if (const auto* nodes = at(*host, {"numa", "nodes"}); nodes && nodes->is_array()) {
    id.fields.push_back({"numa.nodes", fmt::format("{}", nodes->size())});
    for (auto& n : *nodes) {
      const auto* node = at(n, {"node"});
      const auto* cpus = at(n, {"cpus"});
      if (node && cpus && scalar(*node) && scalar(*cpus))
        id.fields.push_back({fmt::format("numa.node{}.cpus", *scalar(*node)), *scalar(*cpus)});
    }
  }
  // Firmware: DMI's BIOS and board, the SEV firmware and the TDX module,
  // each where the metadata has it.
  if (const auto* fw = at(*host, {"firmware"}); fw && fw->is_object()) {
    std::map<std::string, std::string> sorted;  // a fixed order whatever order the JSON has
    for (auto& [k, v] : fw->items())
      if (auto s = scalar(v)) sorted[k] = *s;
    for (auto& [k, v] : sorted) id.fields.push_back({"firmware." + k, v});
  }

  std::string text = "kvmbench machine identity v1\n";
  for (auto& f : id.fields) text += f.name + "=" + f.value + "\n";
  id.fingerprint = sha256_hex(text).substr(0, 16);
  return id;
}

std::vector<MachineFieldDifference> machine_differences(const MachineIdentity& a, const MachineIdentity& b) {
  std::vector<MachineFieldDifference> out;
  for (auto& f : a.fields) {
    const std::string* other = b.field(f.name);
    if (!other || *other != f.value) out.push_back({f.name, f.value, other ? *other : "(absent)"});
  }
  for (auto& f : b.fields)
    if (!a.field(f.name)) out.push_back({f.name, "(absent)", f.value});
  return out;
}

}  // namespace kvmbench
