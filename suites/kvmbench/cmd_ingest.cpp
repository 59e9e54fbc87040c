// kvmbench ingest FILE... [--out DIR] [--suite NAME] [--variant-per-file]
//                         [--split-by boot|gap=S] [--format F]
// Stores raw output of other tools as a run and prints its tables: the
// options into an IngestRequest, the rest in engine/ingest.h.
#include <memory>

#include "suites/engine/ingest.h"
#include "suites/kvmbench/commands.h"

namespace kvmbench::cli {

void add_ingest_command(CLI::App& app) {
  auto req = std::make_shared<engine::IngestRequest>();
  auto* cmd = app.add_subcommand(
      "ingest", "Recognise raw output (kernel log lines, Google Benchmark JSON, KVM selftests output, plain "
                "numbers), store it as a run (source: replay) and print its tables; exit 1 when a test in it failed "
                "(stored as a failed run)");
  cmd->footer("Exit status: 0 stored; 1 a test in it failed (stored as a failed run); 2 input that cannot "
              "be read or recognised (nothing stored); 130 interrupted.");
  cmd->add_option("FILE", req->files, "raw output files ('-' is stdin)")->required();
  cmd->add_option("--out", req->out_root, "directory the run directory is created in")->capture_default_str();
  cmd->add_option("--suite", req->suite, "suite of the run (default: inferred from the metrics)");
  cmd->add_flag("--variant-per-file", req->variant_per_file,
                "use each file's name (without extension) as the variant of its samples that have none");
  cmd->add_option("--split-by", req->split_by,
                  "kernel logs: boot (a new part where the uptime goes back) or gap=S (where records are more than S "
                  "seconds apart); each part's samples get variant boot=N or part=N");
  cmd->add_option("--format", req->format, "text, md, csv or json")->capture_default_str();
  cmd->callback([req] { engine::ingest(*req); });
}

}  // namespace kvmbench::cli
