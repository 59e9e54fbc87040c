// `--steady` (run and ab): the host settings that make one repetition
// differ from the next, set for the run through a KnobSet (knobs.h: each
// change journaled before it is made and put back at the end, also after a
// crash) and each said in meta.json, what was changed and what was left
// and why. pyperf's `system tune` is the model; these are the settings
// this field's measurements meet:
//  - free page reporting held off: a guest whose balloon reports free
//    blocks hands them to the hypervisor, and memory allocated from such a
//    block faults in at the host again (directmap's host preset: anon-4k
//    repetitions 0.1-0.7 GB/s with it on). page_reporting_order above the
//    largest buddy order (MAX_PAGE_ORDER, 10 on x86) reports nothing;
//    kernels that clamp the parameter to MAX_PAGE_ORDER refuse that, and
//    then it is left on with the kernel's answer;
//  - ASLR off (randomize_va_space = 0): for the processes the run starts
//    (QEMU, helpers); kvmbench's own layout was fixed when it started;
//  - the CPU frequency governor "performance", where cpufreq exists;
//  - THP defrag "madvise" where it is "always" (faults stall in direct
//    compaction), unless the suite measures THP: then its defrag setting is
//    part of what is measured and stays.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hostlib/state/knobs.h"

namespace kvmbench::engine {

struct SteadySetting {
  std::string name;       // "free page reporting", "ASLR", "CPU frequency governor", "THP defrag"
  std::string path;       // the knob ("" where there is none here)
  std::string was, now;   // the value before and during the run (now == was: left)
  std::string left_why;   // "" when changed; else why it was left as it was
  bool changed() const { return left_why.empty(); }
};

struct SteadyChoice {
  bool keep_thp_defrag = false;  // a suite of the run measures THP
};

// Applies the settings through `knobs` (which puts them back); never
// throws for a setting it cannot make: that one is left, with the reason.
std::vector<SteadySetting> make_host_steady(host::KnobSet& knobs, const SteadyChoice& choice);

// meta.json's "steady": [{"setting", "path", "was", "now"} or {..., "left": why}].
nlohmann::json steady_json(const std::vector<SteadySetting>& settings);
// One line for the terminal: "steady: ASLR 2 -> 0; left: CPU frequency
// governor (no cpufreq here), ...".
std::string steady_line(const std::vector<SteadySetting>& settings);

}  // namespace kvmbench::engine
