// Where kvmbench keeps host state that must survive the process: the knob
// journal (hostlib/state/knob_journal.h) and the run lock (hostlib/state/run_lock.h).
// $KVMBENCH_STATE_DIR overrides it (tests point it at a temporary directory).
#pragma once

#include <filesystem>

namespace kvmbench::host {

// $KVMBENCH_STATE_DIR, else /var/lib/kvmbench. Not created here.
std::filesystem::path state_dir();

// Where `kvmbench ab` keeps its experiment: `given` (--state) when not
// empty, else $KVMBENCH_AB_STATE, else state_dir()/ab. Not created here.
std::filesystem::path ab_state_dir(const std::filesystem::path& given);

// state_dir(), created (mode 0755) when missing. Throws std::runtime_error
// with the path and reason when it cannot be created (e.g. not root).
std::filesystem::path ensure_state_dir();

}  // namespace kvmbench::host
