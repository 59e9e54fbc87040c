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
#include "analysis/report/render/document.h"

namespace kvmbench {

// Text (and md, csv) a table per machine's series that fit 80 columns,
// change points under each group, the detection's settings last; json
// history_to_json's data. HTML is render_history_html's page of charts.
Document history_document(const History& h, Format f);
std::string render_history_html(const History& h);
nlohmann::json history_to_json(const History& h);

}  // namespace kvmbench
