#include "suites/engine/ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "hostlib/os/interrupt.h"
#include "kvmbench_version.h"
#include "suites/engine/ingest_input.h"
#include "suites/engine/ingest_labels.h"
#include "suites/engine/ingest_store.h"
#include "suites/engine/render_tables.h"
#include "suites/engine/run_report.h"
#include "suites/framework/errors.h"

namespace kvmbench::engine {

namespace fs = std::filesystem;

namespace {

// Ctrl-C before a run directory exists: nothing is stored. (After, the
// samples written so far are kept and the run says "interrupted":
// ingest_store.h.)
void stop_if_interrupted() {
  if (host::interrupted()) throw ExitError(kExitInterrupted, "interrupted; nothing stored");
}

IngestLabelRules label_rules(const IngestRequest& req) {
  IngestLabelRules rules;
  rules.variant_per_file = req.variant_per_file;
  if (!req.split_by.empty()) {
    rules.split = parsers::parse_split_rule(req.split_by);
    if (!rules.split) usage_error(fmt::format("--split-by {}: not boot or gap=SECONDS", req.split_by));
  }
  return rules;
}

// A plain file name for raw/, unique within the run.
std::string raw_name_for(const fs::path& p, std::set<std::string>& used) {
  std::string base = p == "-" ? std::string("stdin") : p.filename().string();
  if (base.empty() || base[0] == '.') base = "_" + base;
  std::string name = base;
  for (int i = 2; used.count(name); ++i) name = fmt::format("{}-{}", i, base);
  used.insert(name);
  return name;
}

// Every file read and parsed, each with its name under raw/: any bad input
// ends the command here (exit 2), before anything is stored.
std::vector<IngestInput> read_inputs(const std::vector<std::string>& files) {
  // Sized once: an input never moves (a kernel log's records point into
  // its own text).
  std::vector<IngestInput> inputs(files.size());
  std::set<std::string> used;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    stop_if_interrupted();
    read_ingest_input(files[k], inputs[k]);
    inputs[k].raw_name = raw_name_for(files[k], used);
  }
  return inputs;
}

// What each input holds that its tables will not show, on stderr as
// FILE:LINE: the tests that failed in it, its parser's warnings (and the
// labels' hints) and notes.
void say_what_inputs_hold(const std::vector<IngestInput>& inputs) {
  for (const IngestInput& in : inputs) {
    const std::string file = in.path.string();
    for (const auto& f : in.parsed.result.failures)
      fmt::print(stderr, "kvmbench: warning: {}:{}: {} failed: {}; {}\n", file, f.line,
                 f.program.empty() ? "the test" : f.program, f.reason,
                 f.samples ? fmt::format("the {} figure{} it printed before are stored marked failed", f.samples,
                                         f.samples == 1 ? "" : "s")
                           : "it printed no figure");
    for (const auto& w : in.parsed.result.warnings)  // "line N: ..." as "FILE:N: ..."
      fmt::print(stderr, "kvmbench: warning: {}:{}\n", file, w.starts_with("line ") ? w.substr(4) : " " + w);
    for (const auto& n : in.parsed.result.notes) fmt::print(stderr, "kvmbench: note: {}:{}\n", file, n.substr(4));
  }
}

// "memslot_perf_test failed: TIMEOUT 120 seconds (memslot.tap:28)", and
// how many more failed.
std::string failure_summary(const nlohmann::json& failures) {
  const auto& f = failures.front();
  const std::string program = f["program"].get<std::string>();
  std::string s = fmt::format("{} failed: {} ({}:{})", program.empty() ? "a test" : program,
                              f["reason"].get<std::string>(), f["file"].get<std::string>(), f["line"].get<std::size_t>());
  if (failures.size() > 1) s += fmt::format(", and {} more", failures.size() - 1);
  return s;
}

// meta.json of the run of `suite` ("": no suite owns the metrics).
nlohmann::json run_meta(const std::string& suite, const IngestMeta& m) {
  nlohmann::json meta = {{"suite", suite.empty() ? "ingest" : suite},
                         {"source", "replay"},
                         {"preset", "ingest"},
                         {"tool_version", KVMBENCH_VERSION},
                         {"inputs", m.inputs}};
  if (!m.aggregates.empty()) meta["gbench_aggregates"] = m.aggregates;
  if (!m.contexts.empty()) meta["gbench_context"] = m.contexts;
  if (!m.not_measured.empty()) meta["not_measured"] = m.not_measured;
  if (!m.failures.empty()) {
    meta["failures"] = m.failures;
    meta["error"] = failure_summary(m.failures);
  }
  if (!m.roles.derived.empty() || !m.roles.repetition.empty()) meta["metric_roles"] = m.roles.to_json();
  return meta;
}

// The run of one suite's share of `all` (every input's samples, pooled),
// and in `slices` where each input's samples are in it. The only share
// takes `all` as it is; several take their samples out of it, each sample
// moved into one of them, not copied (a long log's samples twice over
// would double the peak memory).
Run run_of_share(const SuiteShare& share, bool only_share, std::vector<Sample>& all,
                 const std::vector<IngestInput>& inputs, nlohmann::json meta, std::vector<InputSlice>& slices) {
  slices.assign(inputs.size(), {});
  std::vector<Sample> samples;
  if (only_share) {
    samples = std::move(all);
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      slices[k].begin = inputs[k].first_sample;
      slices[k].end = k + 1 < inputs.size() ? inputs[k + 1].first_sample : samples.size();
    }
    return Run{{}, std::move(meta), std::move(samples)};
  }
  std::vector<std::size_t> firsts;  // where each input's samples start in `all`
  for (const auto& in : inputs) firsts.push_back(in.first_sample);
  samples.reserve(share.samples.size());
  for (std::size_t g : share.samples) {
    const auto k = static_cast<std::size_t>(std::upper_bound(firsts.begin(), firsts.end(), g) - firsts.begin()) - 1;
    slices[k].local.push_back(g - firsts[k]);
    samples.push_back(std::move(all[g]));
  }
  for (std::size_t k = 0, at = 0; k < inputs.size(); ++k) {
    slices[k].begin = at;
    slices[k].end = at += slices[k].local.size();
  }
  return Run{{}, std::move(meta), std::move(samples)};
}

// The stored runs on stdout: their tables (json: one object per run, with
// where it is), and on stderr where each is.
void print_runs(const std::vector<StoredRun>& done, Format f, const nlohmann::json& failures, std::size_t files) {
  if (f == Format::json) {
    nlohmann::json runs = nlohmann::json::array();
    for (const StoredRun& d : done) {
      nlohmann::json out = {{"run", d.dir.string()}, {"suite", d.suite}, {"source", "replay"},
                            {"status", failures.empty() ? "complete" : "failed"}, {"samples", d.samples},
                            {"tables", tables_json(d.tables)}};
      if (!failures.empty()) out["failures"] = failures;
      runs.push_back(std::move(out));
    }
    // One run: its object, as always; a run per suite: all of them.
    const nlohmann::json out = runs.size() == 1 ? runs[0] : nlohmann::json{{"runs", runs}};
    fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  for (std::size_t r = 0; r < done.size(); ++r) {
    const StoredRun& d = done[r];
    fmt::print(stderr, "kvmbench: stored {} samples{} from {} file(s) in {}\n", d.samples,
               done.size() > 1 ? fmt::format(" of suite {}", d.suite) : "", files, d.dir.string());
    if (f == Format::text)
      fmt::print("{}run: {}\nsuite: {}  source: replay{}\n\n", r ? "\n" : "", d.dir.string(), d.suite,
                 failures.empty() ? "" : "  status: failed");
    fmt::print("{}", render_tables(d.tables, f));
  }
}

}  // namespace

void ingest(const IngestRequest& req) {
  const Format f = parse_table_format(req.format);
  const IngestLabelRules rules = label_rules(req);
  if (req.files.empty()) usage_error("ingest: name the files to ingest");
  host::install_interrupt_handlers();

  std::vector<IngestInput> inputs = read_inputs(req.files);
  const IngestMeta meta = label_inputs(inputs, rules);
  say_what_inputs_hold(inputs);
  std::vector<Sample> all = pool_samples(inputs);

  // A run per suite whose metrics the files hold (one, unless they hold
  // two suites' output, e.g. make_shared's lines and an RMPOPT sweep).
  const std::vector<SuiteShare> shares = shares_by_suite(all, req.suite);
  const bool failed = !meta.failures.empty();
  std::vector<StoredRun> done;
  for (const SuiteShare& share : shares) {
    std::vector<InputSlice> slices;
    Run run = run_of_share(share, shares.size() == 1, all, inputs, run_meta(share.suite, meta), slices);
    stop_if_interrupted();
    done.push_back(store_ingested_run(run, inputs, slices, req.out_root, f, failed, done));
  }
  print_runs(done, f, meta.failures, req.files.size());

  // A failed test's output is stored, marked, and is no good run: exit 1.
  if (failed)
    throw ExitError(kExitGateFailed, fmt::format("stored as a failed run ({}); compare and gate do not read its "
                                                 "marked figures as a good run",
                                                 failure_summary(meta.failures)));
}

}  // namespace kvmbench::engine
