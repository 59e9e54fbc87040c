// Checks of a preset's parameters before anything runs (issue #16): each
// Param may carry a `check`, built from the helpers here, that says whether
// a value given with --set can be used on this host. The run driver and the
// dry run call resolve_params() on every preset they are about to run,
// before the run lock, any knob, the run directory or any output, so that a
// bad value is exit 2 with the valid values named, and nothing is left behind.
#pragma once

#include <any>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "suites/framework/suite.h"

namespace kvmbench::suites {

// A size ("4K", "1G", "2T") of at least `min` bytes.
ParamCheck size_at_least(unsigned long long min);
// A whole number of at least `min`.
ParamCheck integer_at_least(long long min);
// A number (seconds, a rate) greater than 0.
ParamCheck positive_number();
// `text` as a finite number, all of it ("1.5", "1e3"); nullopt for "", "x",
// "1.5x", "inf", "nan" and what overflows a double.
std::optional<double> finite_number(const std::string& text);
// One of `valid`.
ParamCheck one_of(std::vector<std::string> valid);
// A comma-separated list, each item one of `valid`; empty text (the
// preset's "all") is accepted when `empty_means` says what it means.
ParamCheck list_of(std::vector<std::string> valid, std::string empty_means = "");
// A comma-separated list of whole numbers, each at least 1.
ParamCheck counts_list();
// "all" or a CPU list ("0-3,8") whose CPUs this host has online.
ParamCheck cpu_list_on_host();

// Each of `overrides` that `preset` declares, put through its check; the
// first that fails is ExitError(2): "--set KEY=VALUE: <what is valid>".
// Keys the preset does not declare are the caller's to refuse.
void check_overrides(const Preset& preset, const std::map<std::string, std::string>& overrides,
                     const HostCaps& caps);

// A preset's parameters as it runs with them: the text (defaults, with the
// overrides it declares), as meta.json and the dry run's header record it,
// and what its `parse` made of that text (empty without a `parse`).
struct ResolvedParams {
  std::map<std::string, std::string> text;
  std::any parsed;
};

// The preset's parameters as text: its defaults with the overrides it
// declares (nothing checked).
std::map<std::string, std::string> param_values(const Preset& preset,
                                                const std::map<std::string, std::string>& overrides);

// What the preset needs of the boot (Preset::boot over param_values()); any
// boot when it states nothing.
BootNeed boot_need(const Preset& preset, const HostCaps& caps, const std::map<std::string, std::string>& overrides);

// Why the preset cannot run on this boot of `caps` ("" when it can):
// another boot first (boot_need), then what the host lacks.
std::string why_not_here(const Preset& preset, const HostCaps& caps,
                         const std::map<std::string, std::string>& overrides);

// check_overrides(), then the preset's `parse` over the resolved text: both
// throw ExitError(2) naming the value.
ResolvedParams resolve_params(const Preset& preset, const std::map<std::string, std::string>& overrides,
                              const HostCaps& caps);

}  // namespace kvmbench::suites
