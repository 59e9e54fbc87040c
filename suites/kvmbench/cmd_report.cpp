// kvmbench report DIR [--format text|md|csv|json|html]
// The tables of a run, recomputed from meta.json + samples.jsonl
// (suites::report_tables, which an html renderer can reuse).
#include <fmt/format.h>

#include <memory>

#include "analysis/html_report.h"
#include "analysis/run_store.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/exit.h"
#include "suites/kvmbench/render_tables.h"
#include "suites/run_report.h"

namespace kvmbench::cli {

void add_report_command(CLI::App& app) {
  struct Opts {
    std::string dir, format = "text";
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("report", "Tables of a run, recomputed from its meta.json and samples.jsonl");
  cmd->add_option("DIR", o->dir, "run directory")->required();
  cmd->add_option("--format", o->format, "text, md, csv, json or html")->capture_default_str();
  cmd->callback([o] {
    const bool html = o->format == "html";
    const Format f = html ? Format::text : parse_table_format(o->format);
    Run run;
    try {
      run = load_run(o->dir);
    } catch (const std::exception& e) {
      usage_error(e.what());
    }
    std::vector<Table> tables;
    try {
      tables = suites::report_tables(run);
    } catch (const std::exception& e) {
      usage_error(fmt::format("{}: {}", o->dir, e.what()));
    }
    if (html) {
      // One self-contained page: the same tables plus a chart per series.
      fmt::print("{}", render_run_html(run, tables));
      return;
    }
    const std::string source(to_string(run.source()));
    if (f == Format::json) {
      fmt::print("{}\n", nlohmann::json{{"run", o->dir}, {"suite", run.suite()}, {"status", run.status()},
                                        {"source", source}, {"samples", run.samples.size()},
                                        {"tables", tables_json(tables)}}
                             .dump(2));
      return;
    }
    if (f == Format::text) {
      fmt::print("run: {}\nsuite: {}  status: {}  source: {}  samples: {}\n", o->dir, run.suite(), run.status(), source,
                 run.samples.size());
      if (run.status() != "complete") fmt::print("note: the run is not complete ({})\n", run.status());
      fmt::print("\n");
    } else if (f == Format::md) {
      fmt::print("## run {} ({}, source: {})\n\n", o->dir, run.suite(), source);
    }
    if (run.samples.empty()) fmt::print("(no samples)\n");
    fmt::print("{}", render_tables(tables, f));
  });
}

}  // namespace kvmbench::cli
