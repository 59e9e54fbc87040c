// What a command says, the same whatever the format it is written in: lead
// lines (the verdict first, then what the figures are: a source banner, the
// two sides), tables, closing lines; and where a command has them, the data
// its JSON holds, the test cases of its JUnit and the charts of its HTML.
// Commands build a Document; a Renderer (renderer.h) writes it in one format.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/report/render/junit_xml.h"
#include "analysis/report/table.h"

namespace kvmbench {

// One group of samples in a chart (a side of a comparison, or a run).
struct ChartGroup {
  std::string label;            // "base", "cand", or empty for a single run
  std::vector<double> values;   // the samples (warm-up excluded)
  int color = -1;               // index into the palette; -1: by position
};

// A chart of samples, one per metric (HTML draws them; text has the tables).
struct Chart {
  std::string title, unit;
  std::vector<ChartGroup> groups;
  std::string caption;        // under the title: "+5.0% [+4.1, +6.0] slower"
  std::string caption_class;  // what the caption says for styling ("slower")
};

struct Document {
  std::string title;    // HTML's page title and heading; text has none
  std::string source;   // hardware | replay | emulated | model: HTML's badge
  std::vector<std::string> lead;     // a line each; "" is a blank line
  std::vector<Table> tables;
  std::vector<std::string> closing;  // a line each, after the tables
  // What --format json writes: the command's own data (every number in
  // full, the verdicts), or unset: the tables.
  std::optional<nlohmann::json> data;
  // What --format junit writes (gate, export); unset: junit is refused.
  std::optional<std::vector<JunitSuite>> junit;
  std::string junit_name;            // the <testsuites> name
  std::vector<Chart> charts;         // HTML, after the tables
};

// The lines of `text`, without their newlines (a text a command already
// laid out as lines: a document's lead or closing).
std::vector<std::string> text_lines(std::string_view text);

}  // namespace kvmbench
