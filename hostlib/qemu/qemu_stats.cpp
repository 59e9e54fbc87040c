#include "hostlib/qemu/qemu_stats.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "hostlib/qemu/qemu_qmp.h"

namespace kvmbench::host {

namespace {

struct SchemaEntry {
  KvmStat::Kind kind = KvmStat::Kind::cumulative;
  ScaledUnit unit;
};

// The kvm provider's schema for `target`, by statistic name; histograms left out.
std::map<std::string, SchemaEntry> schema_for(const nlohmann::json& schemas, const std::string& target) {
  if (!schemas.is_array()) throw std::runtime_error("query-stats-schemas did not answer a list");
  std::map<std::string, SchemaEntry> out;
  for (const auto& s : schemas) {
    if (!s.is_object() || s.value("provider", "") != "kvm" || s.value("target", "") != target) continue;
    if (!s.contains("stats") || !s["stats"].is_array())
      throw std::runtime_error("query-stats-schemas: a schema without its stats");
    for (const auto& v : s["stats"]) {
      const std::string type = v.value("type", "");
      SchemaEntry e;
      if (type == "cumulative") e.kind = KvmStat::Kind::cumulative;
      else if (type == "instant") e.kind = KvmStat::Kind::instant;
      else if (type == "peak") e.kind = KvmStat::Kind::peak;
      else continue;  // linear-histogram, log2-histogram
      const std::string unit = v.value("unit", "");
      const KvmStatUnit u = unit == "bytes"     ? KvmStatUnit::bytes
                            : unit == "seconds" ? KvmStatUnit::seconds
                            : unit == "cycles"  ? KvmStatUnit::cycles
                                                : KvmStatUnit::none;
      // base is only present where exponent is not 0.
      e.unit = kvm_stat_unit(u, v.value("base", 10) == 2, v.value("exponent", 0));
      out[v.value("name", "")] = e;
    }
  }
  return out;
}

}  // namespace

std::vector<std::vector<KvmStat>> kvm_stats_from_qmp(const nlohmann::json& schemas, const nlohmann::json& answer,
                                                     const std::string& target) {
  const auto schema = schema_for(schemas, target);
  if (!answer.is_array()) throw std::runtime_error("query-stats did not answer a list");
  std::vector<std::vector<KvmStat>> out;
  for (const auto& result : answer) {
    if (!result.is_object() || result.value("provider", "") != "kvm") continue;
    if (!result.contains("stats") || !result["stats"].is_array())
      throw std::runtime_error("query-stats: a result without its stats");
    std::vector<KvmStat> stats;
    for (const auto& st : result["stats"]) {
      if (!st.is_object() || !st.contains("value")) throw std::runtime_error("query-stats: a statistic without a value");
      const auto it = schema.find(st.value("name", ""));
      const auto& value = st["value"];
      if (it == schema.end() || !value.is_number_unsigned()) continue;  // a histogram, a boolean, unnamed
      KvmStat s;
      s.name = it->first;
      s.kind = it->second.kind;
      s.unit = it->second.unit.unit;
      s.value = static_cast<double>(value.get<std::uint64_t>()) * it->second.unit.factor;
      stats.push_back(std::move(s));
    }
    out.push_back(std::move(stats));
  }
  return out;
}

GuestKvmStats query_guest_kvm_stats(QmpClient& qmp) {
  GuestKvmStats g;
  try {
    const nlohmann::json providers = nlohmann::json::array({{{"provider", "kvm"}}});
    const nlohmann::json schemas = qmp.execute("query-stats-schemas", {{"provider", "kvm"}});
    const auto vm = kvm_stats_from_qmp(
        schemas, qmp.execute("query-stats", {{"target", "vm"}, {"providers", providers}}), "vm");
    if (vm.size() != 1) throw std::runtime_error(fmt::format("query-stats answered {} VMs, not one", vm.size()));
    g.vm = vm.front();
    g.vcpus = kvm_stats_from_qmp(schemas,
                                 qmp.execute("query-stats", {{"target", "vcpu"}, {"providers", providers}}), "vcpu");
  } catch (const std::exception& e) {
    g = {};
    g.error = fmt::format("QEMU's query-stats: {}", e.what());
  }
  return g;
}

}  // namespace kvmbench::host
