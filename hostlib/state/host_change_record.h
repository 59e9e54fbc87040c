// What this process changed on the host and put back: every knob write and
// module reload a KnobSet (knobs.h) makes, with the old and new value and
// the time, and its restore (the time, or why it failed). A run stores it
// in meta.json ("host_changes"); in the emulated lab each entry is also
// written on the lab machine's console (KVMBENCH-LAB-CHANGE lines), so that
// the lab's console log shows what the run did to the machine even when the
// run could not finish its meta.json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

// kind: "knob" or "module_reload". Returns the entry's number.
std::size_t record_host_change(const std::string& kind, const std::string& path, const std::string& old_value,
                               const std::string& new_value);
// The entry's restore: error "" when it was put back.
void record_host_restore(std::size_t entry, const std::string& error);

// How many entries there are: a run takes those from its start on.
std::size_t host_change_count();
// Entries [from, end) as JSON objects: kind, path, old, new, set_at, and
// restored_at or restore_error (neither: still changed).
nlohmann::json host_changes_json(std::size_t from);

}  // namespace kvmbench::host
