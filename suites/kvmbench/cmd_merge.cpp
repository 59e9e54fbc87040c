// kvmbench merge RUN|DIR... [--format text|md|csv|json|html]: runs from many
// machines in one report, one row per machine (analysis/verdicts/fleet_merge.h), for
// a lab that collects run directories without a results database. A DIR is
// searched for run directories (those holding meta.json), as `db import`
// does. A run that cannot be read is bad input (exit 2, nothing printed):
// a report that left a machine out without a word would mislead.
#include <fmt/format.h>

#include <memory>

#include "analysis/verdicts/fleet_merge.h"
#include "analysis/report/render/renderer.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/store/run_store.h"
#include "hostlib/os/tarball.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

void add_merge_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> inputs;
    std::string format = "text";
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("merge", "Runs of many machines in one report, one row per machine");
  cmd->footer("Exit status: 0 merged; 2 a bad option or a run that cannot be read.");
  cmd->add_option("INPUT", o->inputs, "run directories or directories of runs")->required();
  cmd->add_option("--format", o->format, "text, md, csv, json or html")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "md", "csv", "json", "html"}));
  cmd->callback([o] {
    std::vector<FleetRun> runs;
    for (const auto& input : o->inputs) {
      std::error_code ec;
      if (!std::filesystem::is_directory(input, ec)) usage_error(fmt::format("{}: not a directory", input));
      const auto dirs = find_run_directories(input);
      if (dirs.empty()) usage_error(fmt::format("{}: no run directories (no meta.json) in it", input));
      for (const auto& dir : dirs) {
        // load_run and check_sample_count name the file.
        runs.push_back(naming_bad_input("", [&] {
          Run run = load_run(dir, SampleProvenance::drop);
          // An emptied or cut samples.jsonl would read as a run with fewer
          // samples, or none: a table without a word.
          if (const auto short_file = check_sample_count(run)) throw std::runtime_error(*short_file);
          FleetRun f;
          const MachineIdentity id = machine_identity(run.meta);
          f.run = export_run(run, dir.filename().string());
          f.machine = id.known() ? id.fingerprint : "unknown:" + f.run.hostname;
          return f;
        }));
      }
    }
    const Format format = parse_format(o->format);  // one of the names checked above
    // Data formats keep a row per machine; text turns the metrics into rows.
    const auto groups = merge_fleet(runs);
    Document d;
    d.title = "kvmbench merge";
    d.tables = format == Format::text || format == Format::mail ? fleet_text_tables(groups) : fleet_tables(groups);
    fmt::print("{}", render(d, format));
  });
}

}  // namespace kvmbench::cli
