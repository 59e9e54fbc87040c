// kvmbench reproduce [SUITE|all] [--reference DIR] [--format F]
//                   [--tsc-ghz G]
// Regenerates the documents' tables from results/reference/ (source: replay).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>

#include "analysis/model/text_wrap.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"
#include "suites/engine/render_tables.h"
#include "suites/framework/reproduce.h"

namespace kvmbench::cli {

void add_reproduce_command(CLI::App& app) {
  struct Opts {
    std::string what = "all", reference, format = "text";
    std::optional<double> tsc_ghz;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("reproduce", "Regenerate the documents' tables from results/reference/ (source: replay)");
  cmd->footer("Exit status: 0 the tables regenerated; 2 a bad option or reference data that cannot be "
              "read.");
  cmd->add_option("SUITE", o->what, fmt::format("{} or all", fmt::join(suites::reproducible_suites(), ", ")))
      ->capture_default_str();
  // The default is where this binary's data lies, so it is described, not
  // printed: help reads the same wherever kvmbench is installed or built.
  cmd->add_option("--reference", o->reference,
                  "directory of the transcribed raw data (default: share/kvmbench/reference of this kvmbench's prefix)");
  cmd->add_option("--format", o->format, "text, md, csv or json")->capture_default_str();
  cmd->add_option("--tsc-ghz", o->tsc_ghz,
                  "TSC rate in GHz of the machine that printed the RMPOPT cycles: adds their wall time in ns");
  cmd->callback([o] {
    const Format f = engine::parse_table_format(o->format);
    const std::filesystem::path dir = o->reference.empty() ? suites::default_reference_dir() : std::filesystem::path(o->reference);
    std::vector<std::string> which;
    if (o->what == "all") which = suites::reproducible_suites();
    else which.push_back(o->what);

    std::vector<suites::Reproduction> done;
    for (auto& s : which) {
      // An unknown suite, missing or malformed reference data (named).
      done.push_back(naming_bad_input("", [&] { return suites::reproduce(s, dir, {o->tsc_ghz}); }));
    }
    if (f == Format::json) {
      nlohmann::json out = nlohmann::json::array();
      for (auto& r : done)
        out.push_back({{"suite", r.suite}, {"document", r.document}, {"source", "replay"}, {"files", r.files},
                       {"tables", engine::tables_json(r.tables)}, {"notes", r.notes}});
      fmt::print("{}\n", out.dump(2));
      return;
    }
    for (std::size_t i = 0; i < done.size(); ++i) {
      const auto& r = done[i];
      if (i) fmt::print("\n");
      if (f == Format::md) fmt::print("## {}: {} (source: replay)\n\n", r.suite, r.document);
      else if (f == Format::csv) fmt::print("# {}: {} (source: replay)\n", r.suite, r.document);
      else fmt::print("== {}: {} (source: replay) ==\n\n", r.suite, r.document);
      fmt::print("{}", engine::render_tables(r.tables, f));
      if (!r.notes.empty()) {
        if (!r.tables.empty()) fmt::print("\n");
        for (auto& n : r.notes) fmt::print("{}", f == Format::csv ? "# " + n + "\n" : wrap_text(n));
      }
    }
  });
}

}  // namespace kvmbench::cli
