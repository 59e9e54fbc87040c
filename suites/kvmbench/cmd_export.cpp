// kvmbench export RUN... --to junit|lava|kcidb|markdown [--out FILE]
// Stored runs in the formats lab engines read (analysis/views/export_view.h).
// Exit status as the gate's: 0 ok, 1 a run failed, 2 bad input (nothing
// written), and 3 inconclusive (a run incomplete, a primary metric without a
// CI) for an engine to route, e.g. to a rerun.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "analysis/views/export_view.h"
#include "analysis/report/render/renderer.h"
#include "analysis/store/run_store.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

void add_export_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> runs;
    std::string to, out, origin = "kvmbench";
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("export", "Runs as JUnit, LAVA test cases, KCIDB v5 JSON or a Markdown summary");
  cmd->footer("Exit status: 0 exported; 1 a run failed; 3 inconclusive: a run is not complete, or a "
              "primary metric has no CI (the output is written in both cases); 2 a bad option or input "
              "that cannot be read.");
  cmd->add_option("RUN", o->runs, "run directories")->required();
  cmd->add_option("--to", o->to, "junit, lava, kcidb or markdown")
      ->required()
      ->check(CLI::IsMember({"junit", "lava", "kcidb", "markdown"}));
  cmd->add_option("--out", o->out, "write to FILE (atomically) instead of stdout");
  cmd->add_option("--origin", o->origin, "KCIDB origin: the submitting CI system's name")
      ->capture_default_str()
      ->check([](const std::string& s) {
        const bool ok = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
        return ok ? std::string() : std::string("a KCIDB origin is [a-z0-9_]+");
      });
  cmd->callback([o] {
    std::vector<ExportedRun> runs;
    for (const auto& dir : o->runs) {
      std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
      if (p.filename().empty()) p = p.parent_path();
      // load_run and check_sample_count name the file.
      runs.push_back(naming_bad_input("", [&] {
        const Run run = load_run(p, SampleProvenance::drop);
        // An emptied or cut samples.jsonl would pass as a run that measured
        // less: an engine would store it as a result.
        if (const auto short_file = check_sample_count(run)) throw std::runtime_error(*short_file);
        return export_run(run, p.filename().string());
      }));
    }
    std::string text;
    if (o->to == "junit") text = render(export_document(runs), Format::junit);
    else if (o->to == "lava") text = render_export_lava(runs);
    else if (o->to == "kcidb") text = render_export_kcidb(runs, o->origin);
    else text = render(export_document(runs), Format::md);
    if (o->out.empty())
      fmt::print("{}", text);
    else
      write_file_atomic(o->out, text);
    switch (export_verdict(runs)) {
      case ExportVerdict::failed: throw ExitError(kExitGateFailed, "export: a run failed (exit 1)");
      case ExportVerdict::inconclusive:
        throw ExitError(kExitInconclusive,
                        "export: inconclusive (exit 3): a run is not complete, or a primary metric has no CI");
      case ExportVerdict::ok: break;
    }
  });
}

}  // namespace kvmbench::cli
