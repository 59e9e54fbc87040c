// KVM's statistics of a guest QEMU runs, through QMP (qapi/stats.json,
// QEMU 7.1 and later): query-stats-schemas gives each statistic's type and
// unit, query-stats its value for the VM and for each vCPU. The monitors
// count them beside the statistics of kvmbench's own VMs
// (hostlib/kvm/kvm_stat.h).
#pragma once

#include <nlohmann/json.hpp>

#include "hostlib/kvm/kvm_stat.h"

namespace kvmbench::host {

class QmpClient;

// The statistics of query-stats' answer for one target ("vm" or "vcpu"):
// one list per object (the VM, or each vCPU), the kvm provider's only,
// typed and scaled by the schema; histograms, and statistics the schema
// does not name, left out. Throws std::runtime_error for an answer of
// another shape.
std::vector<std::vector<KvmStat>> kvm_stats_from_qmp(const nlohmann::json& schemas, const nlohmann::json& answer,
                                                     const std::string& target);

// Asks QEMU for the VM's and each vCPU's statistics; never throws: what
// failed (a QEMU before 7.1 has no query-stats) is in the result's error.
GuestKvmStats query_guest_kvm_stats(QmpClient& qmp);

}  // namespace kvmbench::host
