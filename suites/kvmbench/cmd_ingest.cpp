// kvmbench ingest FILE... [--out DIR] [--suite NAME] [--variant-per-file]
//                         [--split-by boot|gap=S] [--format F]
// Recognises each file (kernel log lines, Google Benchmark JSON, KVM
// selftest or vmexit output, plain numbers), parses it, stores everything
// as one run (source: replay, the raw text under raw/) and prints the run's
// tables. Several files of one program's output (Google Benchmark, a
// selftest) are several invocations of it: each sample says which
// (extra "invocation"). A kernel log's records of different experiments
// (boots, loops run apart) are told apart with --split-by, and said
// otherwise.
// Every file is read and parsed before the run directory is created, so a
// rejected input leaves nothing behind. A file is read as it is parsed, a
// piece at a time (ingest_input.h): a kernel log of any size is held in
// memory only as its samples.
// Output of a test that failed (a selftest's "not ok", an assertion) is
// stored with status "failed", meta.json "failures" naming each test and
// its reason, its figures marked (extra "failed"); ingest then exits 1.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "analysis/parse/format_recognizer.h"
#include "analysis/parse/kernel_log_split.h"
#include "analysis/store/run_store.h"
#include "analysis/model/sample_jsonl.h"
#include "hostlib/os/interrupt.h"
#include "kvmbench_version.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"
#include "suites/kvmbench/ingest_input.h"
#include "suites/engine/render_tables.h"
#include "suites/engine/incomplete_run.h"
#include "suites/engine/run_report.h"

namespace kvmbench::cli {

namespace fs = std::filesystem;

namespace {

// A plain file name for raw/, unique within the run.
std::string raw_name_for(const fs::path& p, std::set<std::string>& used) {
  std::string base = p.filename().string();
  if (base.empty() || base[0] == '.') base = "_" + base;
  std::string name = base;
  for (int i = 2; used.count(name); ++i) name = fmt::format("{}-{}", i, base);
  used.insert(name);
  return name;
}

// Writes an input's samples as samples.jsonl lines, each with its
// provenance after its other members: for a kernel log record its line,
// group and timestamps (from the record), then the raw file. A few MB per
// write, not a write per sample; false when Ctrl-C stopped it between two
// writes.
bool append_samples(RunWriter& w, const IngestInput& in, std::span<const Sample> samples,
                    std::span<const std::size_t> local = {}) {
  constexpr std::size_t kChunk = 4u << 20;
  const auto& records = in.parsed.kernel_records;
  const auto& record_of = in.parsed.kernel_sample_record;
  std::string chunk;
  std::size_t pending = 0;
  std::string provenance;
  std::string file;  // its member, the same for every sample: written once
  append_json_member(file, "file", in.raw_name);
  // local[j]: sample j's index among the input's own (its record); none:
  // the samples are the input's, in order.
  auto index = [&](std::size_t j) { return local.empty() ? j : local[j]; };
  for (std::size_t j = 0; j < samples.size(); ++j) {
    const std::size_t i = index(j);
    // A record's samples (a conversion's three) share its provenance; the
    // samples of other formats share the file.
    if (j == 0 || (i < record_of.size() && (index(j - 1) >= record_of.size() || record_of[i] != record_of[index(j - 1)]))) {
      provenance.clear();
      if (i < record_of.size()) parsers::append_record_provenance(provenance, records[record_of[i]]);
      provenance += file;
    }
    append_sample_line(chunk, samples[j], provenance);
    if (++pending, chunk.size() >= kChunk) {
      w.append_lines(chunk, pending);
      chunk.clear();
      pending = 0;
      if (host::interrupted()) return false;
    }
  }
  if (pending) w.append_lines(chunk, pending);
  return true;
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

}  // namespace

void add_ingest_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> files;
    std::string out = "results/runs", suite, format = "text", split_by;
    bool variant_per_file = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "ingest", "Recognise raw output (kernel log lines, Google Benchmark JSON, KVM selftests output, plain "
                "numbers), store it as a run (source: replay) and print its tables; exit 1 when a test in it failed "
                "(stored as a failed run)");
  cmd->add_option("FILE", o->files, "raw output files")->required();
  cmd->add_option("--out", o->out, "directory the run directory is created in")->capture_default_str();
  cmd->add_option("--suite", o->suite, "suite of the run (default: inferred from the metrics)");
  cmd->add_flag("--variant-per-file", o->variant_per_file,
                "use each file's name (without extension) as the variant of its samples that have none");
  cmd->add_option("--split-by", o->split_by,
                  "kernel logs: boot (a new part where the uptime goes back) or gap=S (where records are more than S "
                  "seconds apart); each part's samples get variant boot=N or part=N");
  cmd->add_option("--format", o->format, "text, md, csv or json")->capture_default_str();
  cmd->callback([o] {
    const Format f = engine::parse_table_format(o->format);
    std::optional<parsers::SplitRule> split;
    if (!o->split_by.empty()) {
      split = parsers::parse_split_rule(o->split_by);
      if (!split) usage_error(fmt::format("--split-by {}: not boot or gap=SECONDS", o->split_by));
    }

    // 1. Read and parse everything; any bad input ends here (exit 2).
    std::vector<IngestInput> inputs(o->files.size());  // sized once: an input never moves
    std::set<std::string> used;
    // Ctrl-C: before the run directory exists, nothing is stored; after,
    // the samples written so far are kept and the run says "interrupted".
    host::install_interrupt_handlers();
    auto stop_if_interrupted = [] {
      if (host::interrupted()) throw ExitError(kExitInterrupted, "interrupted; nothing stored");
    };
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      stop_if_interrupted();
      read_ingest_input(o->files[k], inputs[k]);
      inputs[k].raw_name = raw_name_for(o->files[k], used);
    }

    // 2. Label the samples and keep iterations distinct across files.
    std::map<std::string, int> next_iteration;  // series key -> first free iteration
    nlohmann::json inputs_meta = nlohmann::json::array();
    nlohmann::json aggregates = nlohmann::json::array();
    nlohmann::json contexts = nlohmann::json::object();
    nlohmann::json not_measured = nlohmann::json::array();
    nlohmann::json failures = nlohmann::json::array();
    MetricRoles roles;
    int next_invocation = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      IngestInput& in = inputs[k];
      auto& res = in.parsed.result;
      const std::string stem = in.path.stem().string();
      // Each file of one program's output is an invocation of it, and so is
      // each run a file holds several of (the parser's extra "invocation").
      int invocations = 1;
      for (auto& s : res.samples)
        if (s.extra.is_object() && s.extra.contains("invocation"))
          invocations = std::max(invocations, s.extra["invocation"].get<int>() + 1);
      const bool invocation = (inputs.size() > 1 || invocations > 1) && parsers::is_one_invocation(in.parsed.format);
      for (auto& s : res.samples) {
        if (in.parsed.format == parsers::InputFormat::plain_numbers) s.case_name = stem;
        if (o->variant_per_file && s.variant.empty()) s.variant = stem;
        if (s.extra.is_object()) s.extra.erase("file");  // written from raw_name below
        if (invocation) s.extra["invocation"] = next_invocation + s.extra.value("invocation", 0);
      }
      if (invocation) next_invocation += invocations;
      for (auto& f : res.failures) {
        failures.push_back({{"file", in.raw_name}, {"program", f.program}, {"reason", f.reason}, {"line", f.line},
                            {"samples", f.samples}});
        fmt::print(stderr, "kvmbench: warning: {}:{}: {} failed: {}; {}\n", in.path.string(), f.line,
                   f.program.empty() ? "the test" : f.program, f.reason,
                   f.samples ? fmt::format("the {} figure{} it printed before are stored marked failed", f.samples,
                                           f.samples == 1 ? "" : "s")
                             : "it printed no figure");
      }
      roles = merge_roles(roles, in.parsed.roles);
      for (auto& n : in.parsed.not_measured)
        not_measured.push_back({{"file", in.raw_name}, {"case", n.case_name}, {"message", n.message}});
      if (in.parsed.format == parsers::InputFormat::kernel_log) {
        // Records of one part per case: the case of each record's first sample.
        const auto& records = in.parsed.kernel_records;
        const auto& record_of = in.parsed.kernel_sample_record;
        if (split) {
          const std::vector<int> part = parsers::split_parts(records, *split);
          for (std::size_t i = 0; i < res.samples.size() && i < record_of.size(); ++i) {
            Sample& s = res.samples[i];
            const std::string label = split->label(part[record_of[i]]);
            s.variant = s.variant.empty() ? label : s.variant + "/" + label;
          }
        } else {
          std::vector<std::string> case_of(records.size());
          for (std::size_t i = 0; i < res.samples.size() && i < record_of.size(); ++i)
            if (case_of[record_of[i]].empty()) case_of[record_of[i]] = res.samples[i].case_name;
          for (auto& h : parsers::pooling_hints(records, case_of)) res.warnings.push_back(h);
        }
      }
      // A series that continues from an earlier file continues its
      // iterations. One file (the usual case, and a long log's) needs no
      // bookkeeping: its iterations stand as parsed.
      if (inputs.size() > 1) {
        std::vector<std::string> keys;
        keys.reserve(res.samples.size());
        for (auto& s : res.samples) keys.push_back(s.series_key());
        std::unordered_map<std::string, int> offset, top;
        for (auto& k : keys) offset.try_emplace(k, next_iteration[k]);
        for (std::size_t i = 0; i < res.samples.size(); ++i) {
          Sample& s = res.samples[i];
          s.iteration += offset[keys[i]];
          int& t = top[keys[i]];
          t = std::max(t, s.iteration + 1);
        }
        for (auto& [k, v] : top) next_iteration[k] = v;
      }
      for (auto& a : in.parsed.aggregates) {
        auto j = parsers::to_json(a);
        j["file"] = in.raw_name;
        aggregates.push_back(j);
      }
      if (!in.parsed.context.is_null()) contexts[in.raw_name] = in.parsed.context;
      inputs_meta.push_back({{"file", in.path.string()},
                             {"raw", "raw/" + in.raw_name},
                             {"raw_bytes", in.bytes},
                             {"format", res.format},
                             {"lines_read", res.lines_read},
                             {"records", res.records},
                             {"lines_ignored", res.lines_ignored},
                             {"samples", res.samples.size()},
                             {"warnings", res.warnings},
                             {"notes", res.notes}});
      for (auto& w : res.warnings)  // "line N: ..." as "FILE:N: ..."
        fmt::print(stderr, "kvmbench: warning: {}:{}\n", in.path.string(), w.starts_with("line ") ? w.substr(4) : " " + w);
      for (auto& n : res.notes) fmt::print(stderr, "kvmbench: note: {}:{}\n", in.path.string(), n.substr(4));
    }
    std::vector<Sample> all = std::move(inputs[0].parsed.result.samples);  // every input's samples, in input order
    for (std::size_t k = 1; k < inputs.size(); ++k) {
      auto& samples = inputs[k].parsed.result.samples;
      inputs[k].first_sample = all.size();
      std::move(samples.begin(), samples.end(), std::back_inserter(all));
      samples = {};
    }
    // A run per suite whose metrics the files hold (one, unless they hold
    // two suites' output, e.g. make_shared's lines and an RMPOPT sweep).
    const std::vector<engine::SuiteShare> shares = engine::shares_by_suite(all, o->suite);
    std::vector<std::size_t> firsts;  // where each input's samples start in `all`
    for (const auto& in : inputs) firsts.push_back(in.first_sample);

    // 3. Store the runs.
    struct Stored {
      fs::path dir;
      std::string suite;
      std::size_t samples = 0;
      std::vector<Table> tables;
    };
    std::vector<Stored> done;
    for (const engine::SuiteShare& share : shares) {
      const std::string suite = share.suite.empty() ? "ingest" : share.suite;
      nlohmann::json meta = {{"suite", suite},     {"source", "replay"},        {"preset", "ingest"},
                             {"tool_version", KVMBENCH_VERSION}, {"inputs", inputs_meta}};
      if (!aggregates.empty()) meta["gbench_aggregates"] = aggregates;
      if (!contexts.empty()) meta["gbench_context"] = contexts;
      if (!not_measured.empty()) meta["not_measured"] = not_measured;
      if (!failures.empty()) {
        meta["failures"] = failures;
        meta["error"] = failure_summary(failures);
      }
      if (!roles.derived.empty() || !roles.repetition.empty()) meta["metric_roles"] = roles.to_json();
      // This run's samples, input by input: begin[k] is where input k's
      // start, local[k] their indices among the input's own (empty: all of
      // them, in order).
      std::vector<Sample> samples;
      std::vector<std::size_t> begin(inputs.size() + 1, 0);
      std::vector<std::vector<std::size_t>> local(inputs.size());
      if (shares.size() == 1) {
        samples = std::move(all);
        for (std::size_t k = 0; k < inputs.size(); ++k) begin[k] = firsts[k];
        begin[inputs.size()] = samples.size();
      } else {
        samples.reserve(share.samples.size());
        for (std::size_t g : share.samples) {
          const std::size_t k = static_cast<std::size_t>(std::upper_bound(firsts.begin(), firsts.end(), g) - firsts.begin()) - 1;
          local[k].push_back(g - firsts[k]);
          // Each sample is in one share: moved, not copied (a long log's
          // samples twice over would double the peak memory).
          samples.push_back(std::move(all[g]));
        }
        for (std::size_t k = 0; k < inputs.size(); ++k) begin[k + 1] = begin[k] + local[k].size();
      }
      Run run{{}, meta, std::move(samples)};
      stop_if_interrupted();
      // The tables come from the samples in memory (`kvmbench report`
      // computes the same from disk: the stored lines add only provenance,
      // which no table reads), on a second thread while this one stores the
      // run (into `dir`, not run.dir): neither writes what the other reads.
      const bool data = f == Format::csv || f == Format::json;
      std::future<std::vector<Table>> tables_ahead = std::async(std::launch::async, [&run, data] {
        return engine::report_tables(run, data ? engine::ReportDetail::data : engine::ReportDetail::brief);
      });
      bool stopped = false;
      std::size_t stored = 0;
      fs::path dir;
      std::vector<Table> tables;
      // What an error says about the runs stored before this one.
      auto kept = [&] {
        if (done.empty()) return std::string();
        std::string dirs;
        for (const auto& d : done) dirs += (dirs.empty() ? "" : ", ") + d.dir.string();
        return fmt::format(" (the run{} before it stay{}: {})", done.size() == 1 ? "" : "s",
                           done.size() == 1 ? "s" : "", dirs);
      };
      try {
        RunWriter w = RunWriter::create_in(o->out, meta);
        dir = w.dir();
        // The raw copies are not forced to the disk: a lab's logs run to
        // hundreds of MB, and the original is still where it was read. Their
        // sizes are in meta.json, so `report` tells a copy cut short by a
        // crash; samples.jsonl and meta.json are synced as always.
        // ... and on a thread of their own while the samples are written
        // (write_raw touches only raw/).
        std::future<void> raw = std::async(std::launch::async, [&w, &inputs] {
          for (auto& in : inputs) in.store_raw(w);
        });
        for (std::size_t k = 0; k < inputs.size() && !stopped; ++k)
          stopped = !append_samples(w, inputs[k], {run.samples.data() + begin[k], begin[k + 1] - begin[k]}, local[k]);
        raw.get();
        // A Ctrl-C after the last bulk of samples (or while the raw copy was
        // still being written) is honoured too: the samples are whole, the
        // run says it was interrupted.
        stopped = stopped || host::interrupted();
        stored = w.samples_written();
        // Samples the tables refuse (one metric in two time units) are bad
        // input: the run is not finished, so nothing of it is left.
        if (!stopped) try {
            tables = tables_ahead.get();
            if (!failures.empty()) {  // the tables say so, as `report` will
              run.meta["status"] = "failed";
              engine::mark_run_notes(tables, run);
            }
          } catch (const std::exception& e) {
            std::error_code ec;
            fs::remove_all(dir, ec);
            const auto* exit = dynamic_cast<const ExitError*>(&e);
            throw ExitError(exit ? exit->code : kExitUsage, fmt::format("{}; nothing stored{}", e.what(), kept()));
          }
        w.finish(stopped ? "interrupted" : failures.empty() ? "complete" : "failed");
      } catch (const ExitError&) {
        throw;
      } catch (const std::exception& e) {
        // A run cut short by a full disk or an I/O error is no result: its
        // directory (meta.json still "running", part of the samples) goes.
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
        usage_error(fmt::format("cannot store the run under {}: {}; nothing stored{}", o->out, e.what(), kept()));
      }
      if (stopped)
        throw ExitError(kExitInterrupted, fmt::format("interrupted; {} of {} samples kept in {} (status: interrupted){}",
                                                      stored, run.samples.size(), dir.string(), kept()));
      done.push_back({dir, suite, run.samples.size(), std::move(tables)});
    }

    // A failed test's output is stored, marked, and is no good run: exit 1.
    auto end_failed = [&] {
      if (!failures.empty())
        throw ExitError(kExitGateFailed, fmt::format("stored as a failed run ({}); compare and gate do not read "
                                                     "its marked figures as a good run",
                                                     failure_summary(failures)));
    };
    if (f == Format::json) {
      nlohmann::json runs = nlohmann::json::array();
      for (const Stored& d : done) {
        nlohmann::json out = {{"run", d.dir.string()}, {"suite", d.suite}, {"source", "replay"},
                              {"status", failures.empty() ? "complete" : "failed"}, {"samples", d.samples},
                              {"tables", engine::tables_json(d.tables)}};
        if (!failures.empty()) out["failures"] = failures;
        runs.push_back(std::move(out));
      }
      // One run: its object, as always; a run per suite: all of them.
      const nlohmann::json out = runs.size() == 1 ? runs[0] : nlohmann::json{{"runs", runs}};
      fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
      end_failed();
      return;
    }
    for (std::size_t r = 0; r < done.size(); ++r) {
      const Stored& d = done[r];
      fmt::print(stderr, "kvmbench: stored {} samples{} from {} file(s) in {}\n", d.samples,
                 done.size() > 1 ? fmt::format(" of suite {}", d.suite) : "", o->files.size(), d.dir.string());
      if (f == Format::text)
        fmt::print("{}run: {}\nsuite: {}  source: replay{}\n\n", r ? "\n" : "", d.dir.string(), d.suite,
                   failures.empty() ? "" : "  status: failed");
      fmt::print("{}", engine::render_tables(d.tables, f));
    }
    end_failed();
  });
}

}  // namespace kvmbench::cli
