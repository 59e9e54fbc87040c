// kvmbench report DIR [--format text|md|csv|json|html]
// kvmbench report RUN_A RUN_B ... (runs of a suite that offers a table of
// several runs, its Suite::tables_of_runs: directmap's document table with
// one row pair per kernel)
// The tables of a run, recomputed from meta.json + samples.jsonl
// (engine::report_tables), as one Document (analysis/views/run_view.h) in
// every format.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include <fmt/ranges.h>

#include "analysis/report/render/renderer.h"
#include "analysis/store/run_store.h"
#include "analysis/views/run_view.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"
#include "suites/engine/render_tables.h"
#include "analysis/model/text_wrap.h"
#include "suites/engine/host_changes_line.h"
#include "suites/engine/incomplete_run.h"
#include "suites/engine/run_report.h"
#include "suites/framework/suite.h"

namespace kvmbench::cli {

// "results/runs/directmap-X/" -> "directmap-X".
static std::string run_name(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

// What the run's files hold that meta.json does not expect (a raw copy or
// samples.jsonl cut short): said on stderr; the tables still print.
static void warn_about_stored_files(const Run& run) {
  for (const auto& w : check_raw_copies(run)) fmt::print(stderr, "kvmbench: warning: {}\n", w);
  if (const auto w = check_sample_count(run)) fmt::print(stderr, "kvmbench: warning: {}\n", *w);
}

// The kernel a run ran on (meta.json host.kernel.release), "" when not said.
static std::string kernel_release(const nlohmann::json& meta) {
  const nlohmann::json* j = &meta;
  for (const char* key : {"host", "kernel", "release"}) {
    if (!j->is_object() || !j->contains(key)) return "";
    j = &j->at(key);
  }
  return j->is_string() ? j->get<std::string>() : "";
}

// Several runs of one suite in its table of several runs (directmap's
// document table puts a 4K-pre-split kernel and a 2M+split kernel side by
// side); other suites compare two runs with `kvmbench compare`.
static void report_several(const std::vector<std::string>& dirs, const std::string& format, Format f) {
  if (format == "html") usage_error("report of several runs: --format html takes one run");
  const suites::Suite* suite = nullptr;
  std::vector<suites::NamedRun> runs;
  for (const auto& d : dirs) {
    Run run = naming_bad_input("", [&] { return load_run(d, SampleProvenance::drop); });  // names the file
    warn_about_stored_files(run);
    const suites::Suite* s = suites::find_suite(run.suite());
    if (!s || !s->tables_of_runs || (suite && s != suite))
      usage_error(fmt::format("{}: a {} run; several runs in one report are for {} (use `kvmbench "
                              "compare BASE CAND` for two runs of another suite)",
                              d, run.suite().empty() ? std::string("suite-less") : run.suite(),
                              suite ? suite->name
                                    : suites::suite_names([](const suites::Suite& x) { return bool(x.tables_of_runs); })));
    suite = s;
    runs.push_back({run_name(d), std::move(run.samples), std::string(to_string(run.source())), kernel_release(run.meta)});
  }
  // Runs are named by their directory's name, or by the path as given when
  // two share a name (the same run given twice stays a duplicate).
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = 0; j < runs.size(); ++j)
      if (std::error_code ec; i != j && runs[i].name == run_name(dirs[j]) && !std::filesystem::equivalent(dirs[i], dirs[j], ec))
        runs[i].name = dirs[i];
  const std::vector<Table> tables = naming_bad_input("", [&] { return suite->tables_of_runs(runs); });
  if (f == Format::json) {
    fmt::print("{}\n", nlohmann::json{{"runs", dirs}, {"suite", suite->name}, {"tables", engine::tables_json(tables)}}
                           .dump(2, ' ', false, nlohmann::json::error_handler_t::replace));  // a path's bytes
    return;
  }
  if (f == Format::text) fmt::print("runs:\n  {}\nsuite: {}\n\n", fmt::join(dirs, "\n  "), suite->name);
  fmt::print("{}", engine::render_tables(tables, f));
}

// What the run changed on the host, the parts the preset skipped, one line
// each, and with --verbose the reasons in full and the stability warnings
// that `run` counted but did not print (meta.json keeps them all).
static std::vector<std::string> about_the_run(const Run& run, bool verbose) {
  std::vector<std::string> out;
  if (const std::string changes = engine::host_changes_line(run.meta); !changes.empty())
    out.push_back(verbose ? changes : cut_to_width(changes));
  const nlohmann::json skips = run.meta.value("skipped_parts", nlohmann::json::array());
  if (!skips.empty()) out.push_back(fmt::format("skipped parts ({}):", skips.size()));
  for (const auto& s : skips) {
    const std::string line = fmt::format("  {}: {}", s.value("part", std::string("?")), s.value("reason", std::string()));
    if (!verbose) {
      out.push_back(cut_to_width(line));
      continue;
    }
    for (const auto& l : wrap_lines(line, "  ")) out.push_back(l);
  }
  if (!verbose) return out;
  const nlohmann::json warnings = run.meta.value("stability_warnings", nlohmann::json::array());
  if (!warnings.empty()) out.push_back(fmt::format("stability warnings ({}):", warnings.size()));
  for (const auto& w : warnings)
    for (const auto& l : wrap_lines(w.get<std::string>(), "    ")) out.push_back(l);
  return out;
}

void add_report_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> dirs;
    std::string dir, format = "text";
    bool verbose = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("report", "Tables of a run, recomputed from its meta.json and samples.jsonl");
  cmd->footer("Exit status: 0 printed; 2 a bad option or a run that cannot be read.");
  cmd->add_option("DIR", o->dirs,
                  fmt::format("run directory (several: {} runs, one kernel each, in one table)",
                              suites::suite_names([](const suites::Suite& x) { return bool(x.tables_of_runs); })))
      ->required();
  cmd->add_option("--format", o->format, "text, md, csv, json or html")->capture_default_str();
  cmd->add_flag("--verbose", o->verbose,
                "Text: each skipped part's reason in full, every stability warning the run recorded, a table "
                "for every metric and each case's statistics in full (as CSV and JSON always have)");
  cmd->callback([o] {
    // html: a page of the run, which the commands of several parts lack.
    const Format f = o->format == "html" ? Format::html : engine::parse_table_format(o->format);
    if (o->dirs.size() > 1) return report_several(o->dirs, o->format, f);
    o->dir = o->dirs.front();
    Run run = naming_bad_input("", [&] { return load_run(o->dir, SampleProvenance::drop); });  // names the file
    warn_about_stored_files(run);
    const auto detail = f == Format::csv || f == Format::json ? engine::ReportDetail::data
                        : o->verbose                          ? engine::ReportDetail::full
                                                              : engine::ReportDetail::brief;
    // Samples the tables refuse (one metric in two units) are the run's.
    std::vector<Table> tables = naming_bad_input(o->dir + ": ", [&] { return engine::report_tables(run, detail); });
    engine::mark_run_notes(tables, run);
    // The suite's own pictures (directmap's ramps): a page's, not a table's.
    std::vector<Chart> charts;
    if (const suites::Suite* s = suites::find_suite(run.suite()); f == Format::html && s && s->run_charts)
      charts = s->run_charts(run.dir, run.samples);
    const Document d = run_document(run, {.dir = o->dir,
                                          .tables = std::move(tables),
                                          .incomplete = engine::incomplete_note(run),
                                          .about = about_the_run(run, o->verbose),
                                          .charts = std::move(charts)});
    fmt::print("{}", render(d, f));
  });
}

}  // namespace kvmbench::cli
