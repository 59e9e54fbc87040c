// What a command says, the same whatever the format it is written in: lead
// lines (the verdict first, then what the figures are: a source banner, the
// two sides), tables, closing lines; and where a command has them, the data
// its JSON holds, the test cases of its JUnit and the charts of its HTML.
// Commands build a Document (analysis/views/), without knowing the format;
// report/render/renderer.h writes it in one.
#pragma once

#include <nlohmann/json.hpp>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/report/junit_cases.h"
#include "analysis/report/table.h"

namespace kvmbench {

// One group of samples in a bar chart (a side of a comparison, a case of a
// run): the samples and their mean with its 95% CI, as the builder summed
// them up (sample_group); the chart draws what it is given.
struct ChartGroup {
  std::string label;            // "base", "cand", a case; empty for a single run
  std::vector<double> values;   // the samples (warm-up excluded)
  double mean = NAN, ci95_low = NAN, ci95_high = NAN;  // of the finite values
  int color = -1;               // index into the palette; -1: by position
};

// A group of `values` with the mean of the finite ones and its 95% CI
// (Student t; NaN with fewer than 2).
ChartGroup sample_group(std::string label, std::vector<double> values, int color = -1);

// A chart along a sequence of points (history: runs in kernel order).
struct ChartPoint {
  std::string label;  // what a point is ("6.13.0 directmap-2026..."), its tooltip
  double value = NAN;
};
// Points [first, last] and their mean (a segment between change points).
struct ChartSegment {
  std::size_t first = 0, last = 0;
  double mean = NAN;
};
// A mark between points at - 1 and at (a change point), and its label.
struct ChartMark {
  std::size_t at = 0;
  std::string label;
};

// A row of an overview of changes: a metric's change in percent and its CI
// (NaN or infinite ends: unbounded on that side).
struct ChartChange {
  std::string label;
  double pct = NAN, low = NAN, high = NAN;
  Tone tone = Tone::plain;
};

// A point of an x-y chart, and a fitted line drawn over part of it.
struct ChartXY {
  double x = NAN, y = NAN;
};
struct ChartLine {
  double x0 = NAN, y0 = NAN, x1 = NAN, y1 = NAN;
  std::string label;  // its tooltip: "fitted: 0.0121 GB/s"
};

struct Chart {
  enum class Kind {
    bars,     // a bar per group: its mean, the 95% CI as whiskers, every sample a dot
    points,   // as bars, the mean a mark instead of a bar: the axis fits the data, not 0
    along,    // points in order, each segment's mean a line, each mark a dashed line
    changes,  // a row per metric: its change in percent, the CI a line, 0 a dashed line
    xy,       // points over x (a time series), fitted lines over parts of it
  };
  Kind kind = Kind::bars;
  std::string title, unit;
  std::string caption;       // under the title: "+5.0% [+4.1, +6.0] slower"
  Tone tone = Tone::plain;   // what the caption says for the reader
  std::vector<ChartGroup> groups;      // bars
  std::vector<ChartPoint> points;      // along
  std::vector<ChartSegment> segments;  // along
  std::vector<ChartMark> marks;        // along
  std::vector<ChartChange> changes;    // changes
  std::vector<ChartXY> xy;             // xy: the points, in order of x
  std::vector<ChartLine> lines;        // xy: fitted lines
  std::string x_unit;                  // xy: the x axis's unit ("s"); `unit` is y's
};

struct Document {
  std::string title;    // HTML's page title and heading; text has none
  std::string source;   // hardware | replay | emulated | model: HTML's badge
  // What the reader must not miss about the figures ("INCOMPLETE: 1 of 5
  // repetitions measured"): HTML's banners; first of the lead elsewhere.
  std::vector<std::string> alerts;
  std::vector<std::string> lead;     // a line each; "" is a blank line
  std::vector<Table> tables;
  std::vector<std::string> closing;  // a line each, after the tables
  // What --format json writes: the command's own data (every number in
  // full, the verdicts), or unset: the tables.
  std::optional<nlohmann::json> data;
  // JSON: the tables (as JSON tables) under "tables" in the data.
  bool tables_in_data = false;
  // What --format junit writes (gate, export); unset: junit is refused.
  std::optional<std::vector<JunitSuite>> junit;
  std::string junit_name;            // the <testsuites> name
  std::vector<Chart> overview;       // HTML, right after the lead: what the tables detail
  std::vector<Chart> charts;         // HTML, after the tables
};

// The lines of `text`, without their newlines (a text a command already
// laid out as lines: a document's lead or closing).
std::vector<std::string> text_lines(std::string_view text);

}  // namespace kvmbench
