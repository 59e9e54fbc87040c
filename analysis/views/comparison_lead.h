// The head of a comparison, in every format: the verdict in one line, a
// banner where the figures are no measurement of this machine, then what
// was compared: the suite, the machine (or the two machines) with its
// fingerprint, the two sides with their kernels, and the configuration that
// differs. compare, gate and ab put it first.
#pragma once

#include <string>
#include <vector>

#include "analysis/verdicts/compare.h"

namespace kvmbench {

// The first line of a comparison for people: the verdict over the tested
// metrics ("verdict: no significant difference in 24 tested metrics (Holm,
// alpha 0.05)", "verdict: WORSE in 2 of 24 tested metrics (...)").
std::string verdict_line(const Comparison& c);

// What the data exclude, the line under the verdict: "a regression beyond
// +4.20% is excluded for each of 24 tested metrics (99.79%); this design
// detects +6.10% with 80% power, +7.90% with 95%" (the largest bound and
// MDEs of the metrics, comparison_bounds.h); "" where no metric has one.
std::string excluded_line(const Comparison& c);

// A line saying the figures are no measurement of this machine's
// performance, for emulated, model and replay input; "" for hardware.
std::string source_banner(const Comparison& c);

// What was compared, a line each: "suite: directmap --preset host",
// "machine: lab7, AMD EPYC 9654, 192 CPUs [8f07002788f45435]" (or a line
// per machine and a warning), "base: RUN (kernel 6.12.0)" (each run by its
// directory's name; JSON has the paths), "cand: ...",
// and the configuration that differs ("  key: base -> cand") or that it is
// the same.
std::vector<std::string> comparison_context(const Comparison& c);

// "  key: base -> cand" in 80 columns: values that do not fit are cut, each
// to its half of what the key leaves ("..." says so; meta.json and JSON
// have them whole).
std::string configuration_line(const MetaDifference& d);

}  // namespace kvmbench
