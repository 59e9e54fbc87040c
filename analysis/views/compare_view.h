// `kvmbench compare` as one Document, whatever the format it is written
// in (renderer.h): the verdict and what was compared first
// (comparison_lead.h); then a row per series in the LKP robot's columns
// that kernel developers already read (base, %stddev, %change, cand,
// %stddev) with the n of each side, the CI of the change at Holm's level,
// Holm's p and a verdict, the row notes, the legend and how the units were
// made under it; Kalibera and Jones's levels where the runs have them; a
// chart per series (HTML); the comparison's data (JSON). Text and mail lay
// the table out in 80 columns (a long series name on a line of its own
// above its row); CSV gets the numbers in full, with the figures the
// people's layout leaves out (each side's n, Welch's and Mann-Whitney's p).
#pragma once

#include "analysis/report/document.h"
#include "analysis/verdicts/compare.h"

namespace kvmbench {

struct CompareView {
  bool all = false;       // the derived and secondary metrics too (shown, never tested)
  bool per_unit = false;  // every unit's value and its sub-units', for looking
};

Document comparison_document(const Comparison& c, const CompareView& view = {});

// Every unit's value and its sub-units' values, a line each (`compare
// --per-unit`); never used for a verdict.
std::vector<std::string> per_unit_lines(const Comparison& c);

}  // namespace kvmbench
