// `kvmbench history` for people and programs: per machine (and preset and
// parameters) and metric, a text table of kernels in point order with the
// mean of each case's runs, the change points marked and listed under it
// with their size, CI, p-value and the runs on both sides; an HTML page with
// one chart per series (every run a dot, each segment's mean a line, each
// change point a dashed line at its kernel); JSON with every point.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/verdicts/history.h"

namespace kvmbench {

std::string render_history_text(const History& h);
std::string render_history_html(const History& h);
nlohmann::json history_to_json(const History& h);

}  // namespace kvmbench
