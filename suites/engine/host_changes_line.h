// What a run changed on the host (meta.json "host_changes", written from
// hostlib/state/host_change_record.h) as one line for `report`: the same change
// made again (a reload per repetition) counted once, with its first time
// and its last restore, and whether everything was put back, e.g.
//   host changes: /sys/module/kvm_amd reloaded npt=Y -> npt=N x2 (10:15:02 .. 10:19:40 UTC), all put back
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kvmbench::engine {

// "" when meta.json has no "host_changes" (a run from before it was kept).
std::string host_changes_line(const nlohmann::json& meta);

}  // namespace kvmbench::engine
