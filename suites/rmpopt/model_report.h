// Tables of the RMPOPT sweep cost model (suites/rmpopt/model.h and
// suites/rmpopt/model_calibration.h): the predicted sweep per strategy, the fit
// to the published figures, the fitted parameters, and how the fit and the
// worst case move with what the posts do not say (CPU count, TSC rate,
// memory bandwidth). Every table says `source: model` and lists the
// assumptions behind it. Renderers only format; all numbers come from the
// model.
#pragma once

#include <vector>

#include "suites/rmpopt/model_calibration.h"
#include "suites/rmpopt/model.h"
#include "analysis/report/table.h"

namespace kvmbench::suites::rmpopt {

namespace model = kvmbench::rmpopt;

struct SweepRequest {
  model::Machine target;
  model::Layout layout;
  std::vector<model::Strategy> strategies;  // one, or all four for "compare"
};

// One row per strategy: CPUs in the broadcast mask, wall time with the 95%
// interval of the fit, busy time of each CPU in the mask, total CPU time,
// and the share of the wall time spent scanning and in cross-CPU calls.
Table sweep_table(const model::Calibration& cal, const SweepRequest& req);

// The worst case of the request's layout for memory bandwidths from 1/4 to
// 8 times the assumed one (B is not fitted: nothing published pins it).
Table bandwidth_table(const model::Calibration& cal, const SweepRequest& req);

// True when the prediction for some requested strategy moves by more than
// 0.1% between B/4 and 8B, i.e. when bandwidth_table() says something.
bool depends_on_bandwidth(const model::Calibration& cal, const SweepRequest& req);

// Each published figure, the model's value and the relative error.
Table fit_table(const model::Calibration& cal);

// F, c, a, b (fitted, with standard errors) and B (assumed).
Table parameter_table(const model::Calibration& cal);

// Fits for CPU counts x TSC rates of the posted machine, with the fit's
// rms error, the model's boot average cycles and the predicted last-page
// worst case (2TB, leader + primary threads) at each.
Table sensitivity_table(const std::vector<model::Calibration>& cals);

// The CPU counts and TSC rates sensitivity_table() is meant to be fed.
std::vector<unsigned> sensitivity_cpu_counts();
std::vector<double> sensitivity_tsc_hz();

}  // namespace kvmbench::suites::rmpopt
