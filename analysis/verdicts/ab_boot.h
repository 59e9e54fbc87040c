// What `kvmbench ab` decides about the boots it makes, before and after
// them. Pure: the facts come from hostlib/state/kexec.h's probes.
//  - the preflight: whether kexec can take this machine into both kernels,
//    or the cause that refuses it and the way out, decided before anything
//    is written or arranged;
//  - how an image is loaded (kexec_file_load, `kexec -s`, where lockdown
//    refuses kexec_load or the image is signed);
//  - the words that turn a hang of a booted kernel into a reset;
//  - the words the suite's run needs on each kernel's command line;
//  - whether a boot came back within --boot-timeout.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/kexec_facts.h"
#include "analysis/verdicts/ab_experiment.h"

namespace kvmbench::ab {

// The root= a command line mounts (the last one wins, as in the kernel),
// "" for none.
std::string root_device(std::string_view cmdline);
// Whether that root needs an initramfs to be found: UUID=, LABEL=, udev's
// /dev/disk/by-* and /dev/mapper/ names (the kernel itself resolves
// /dev/sdXN, PARTUUID= and PARTLABEL=).
bool root_needs_initrd(std::string_view cmdline);

// The cause that refuses a kexec experiment on this machine, with the way
// out, or nullopt. Static facts first; the kernels' trial loads (where
// tried) last. Each message is one sentence or two, ready for exit 2.
std::optional<std::string> preflight_refusal(const KexecHost& host, const std::vector<KexecKernel>& kernels);

// What each kernel ab boots gets after its own words, so that a hang ends
// by itself: a panic resets after `panic_s` seconds, and a soft lockup or a
// hung task panics.
inline constexpr int kAbPanicSeconds = 10;
std::string hang_words(int panic_s = kAbPanicSeconds);

// A word the command's suite needs on the kernel command line (suites'
// BootNeed, as `run --dry-run --format json` says it), and who needs it.
struct SuiteBootWord {
  std::string word;  // "kvm.vm_memory_attributes=0"
  std::string who;   // "make_shared / document"
  std::string why;
};

// A side's appended words: the suites' words first, then the user's
// --base-append / --cand-append (`option` names it), a word the user gave
// already not repeated. A user word that sets a module parameter the
// suites set (module.param=) to another value is a conflict: its text,
// else "".
struct MergedAppend {
  std::string append;
  std::string conflict;
};
MergedAppend merge_boot_words(const std::vector<SuiteBootWord>& needs, const std::string& user_append,
                              const std::string& option);

// Seconds from one ISO 8601 UTC time ("2026-12-06T17:45:00Z", as the state
// keeps them) to another; nullopt where either is not one.
std::optional<double> seconds_between(std::string_view from_iso, std::string_view to_iso);

// What a boot that ab asked for came to, for its step's record: nullopt
// when it is the boot asked for and came back within `timeout_s`, else why
// not ("its kernel came back after 812 s, beyond --boot-timeout 600 s").
// `elapsed_s` nullopt: not known (the times could not be read).
std::optional<std::string> boot_problem(bool marked_as_asked, std::optional<double> elapsed_s, double timeout_s,
                                        std::string_view this_release);

// Why the candidate never came back, for the verdict: a candidate step
// that did not boot (its note says what came instead) and none that did;
// nullopt otherwise.
std::optional<std::string> candidate_never_came_back(const Experiment& e);

}  // namespace kvmbench::ab
