// kvmbench ingest FILE... [--out DIR] [--suite NAME] [--variant-per-file] [--format F]
// Recognises each file (kernel log lines, Google Benchmark JSON, plain
// numbers), parses it, stores everything as one run (source: replay, the
// raw text under raw/) and prints the run's tables, recomputed from disk.
// Every file is read and parsed before the run directory is created, so a
// rejected input leaves nothing behind.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "analysis/parsers/format_recognizer.h"
#include "analysis/run_store.h"
#include "kvmbench_version.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/exit.h"
#include "suites/kvmbench/render_tables.h"
#include "suites/run_report.h"

namespace kvmbench::cli {

namespace fs = std::filesystem;

namespace {

struct Input {
  fs::path path;
  std::string text;
  parsers::ParsedInput parsed;
  std::string raw_name;
};

Input read_and_parse(const fs::path& path) {
  Input in;
  in.path = path;
  std::error_code ec;
  if (!fs::exists(path, ec)) usage_error(fmt::format("{}: no such file", path.string()));
  if (fs::is_directory(path, ec)) usage_error(fmt::format("{}: is a directory, not a file", path.string()));
  try {
    in.text = read_file(path);
  } catch (const std::exception& e) {
    usage_error(e.what());
  }
  try {
    in.parsed = parsers::parse_any(in.text);
  } catch (const parsers::ParseError& e) {
    usage_error(fmt::format("{}:{}: {}", path.string(), e.line, e.what()));
  } catch (const std::exception& e) {
    usage_error(fmt::format("{}: {}", path.string(), e.what()));
  }
  return in;
}

// A plain file name for raw/, unique within the run.
std::string raw_name_for(const fs::path& p, std::set<std::string>& used) {
  std::string base = p.filename().string();
  if (base.empty() || base[0] == '.') base = "_" + base;
  std::string name = base;
  for (int i = 2; used.count(name); ++i) name = fmt::format("{}-{}", i, base);
  used.insert(name);
  return name;
}

}  // namespace

void add_ingest_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> files;
    std::string out = "results/runs", suite, format = "text";
    bool variant_per_file = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "ingest", "Recognise raw output (kernel log lines, Google Benchmark JSON, plain numbers), store it as a "
                "run (source: replay) and print its tables");
  cmd->add_option("FILE", o->files, "raw output files")->required();
  cmd->add_option("--out", o->out, "directory the run directory is created in")->capture_default_str();
  cmd->add_option("--suite", o->suite, "suite of the run (default: inferred from the metrics)");
  cmd->add_flag("--variant-per-file", o->variant_per_file,
                "use each file's name (without extension) as the variant of its samples that have none");
  cmd->add_option("--format", o->format, "text, md, csv or json")->capture_default_str();
  cmd->callback([o] {
    const Format f = parse_table_format(o->format);

    // 1. Read and parse everything; any bad input ends here (exit 2).
    std::vector<Input> inputs;
    std::set<std::string> used;
    for (auto& file : o->files) {
      inputs.push_back(read_and_parse(file));
      inputs.back().raw_name = raw_name_for(file, used);
    }

    // 2. Label the samples and keep iterations distinct across files.
    std::vector<Sample> all;
    std::map<std::string, int> next_iteration;  // series key -> first free iteration
    nlohmann::json inputs_meta = nlohmann::json::array();
    nlohmann::json aggregates = nlohmann::json::array();
    nlohmann::json contexts = nlohmann::json::object();
    for (auto& in : inputs) {
      auto& res = in.parsed.result;
      const std::string stem = in.path.stem().string();
      std::map<std::string, int> offset;
      for (auto& s : res.samples) {
        if (in.parsed.format == parsers::InputFormat::plain_numbers) s.case_name = stem;
        if (o->variant_per_file && s.variant.empty()) s.variant = stem;
        s.extra["file"] = in.raw_name;
        offset.try_emplace(s.series_key(), next_iteration[s.series_key()]);
      }
      std::map<std::string, int> top;
      for (auto& s : res.samples) {
        s.iteration += offset[s.series_key()];
        top[s.series_key()] = std::max(top[s.series_key()], s.iteration + 1);
        all.push_back(s);
      }
      for (auto& [k, v] : top) next_iteration[k] = v;
      for (auto& a : in.parsed.aggregates) {
        auto j = parsers::to_json(a);
        j["file"] = in.raw_name;
        aggregates.push_back(j);
      }
      if (!in.parsed.context.is_null()) contexts[in.raw_name] = in.parsed.context;
      inputs_meta.push_back({{"file", in.path.string()},
                             {"raw", "raw/" + in.raw_name},
                             {"format", res.format},
                             {"lines_read", res.lines_read},
                             {"records", res.records},
                             {"lines_ignored", res.lines_ignored},
                             {"samples", res.samples.size()},
                             {"warnings", res.warnings}});
      for (auto& w : res.warnings) fmt::print(stderr, "kvmbench: warning: {}:{}\n", in.path.string(), w.substr(4));
    }
    std::string suite = o->suite.empty() ? suites::infer_suite(all) : o->suite;
    if (suite.empty()) suite = "ingest";

    // 3. Store the run.
    nlohmann::json meta = {{"suite", suite},     {"source", "replay"},        {"preset", "ingest"},
                           {"tool_version", KVMBENCH_VERSION}, {"inputs", inputs_meta}};
    if (!aggregates.empty()) meta["gbench_aggregates"] = aggregates;
    if (!contexts.empty()) meta["gbench_context"] = contexts;
    fs::path dir;
    try {
      RunWriter w = RunWriter::create_in(o->out, meta);
      dir = w.dir();
      for (auto& in : inputs) w.write_raw(in.raw_name, in.text);
      for (auto& s : all) w.append(s);
      w.finish();
    } catch (const std::exception& e) {
      usage_error(fmt::format("cannot store the run under {}: {}", o->out, e.what()));
    }

    // 4. Print the tables, recomputed from what was stored.
    const Run run = load_run(dir);
    const auto tables = suites::report_tables(run);
    if (f == Format::json) {
      fmt::print("{}\n", nlohmann::json{{"run", dir.string()}, {"suite", suite}, {"source", "replay"},
                                        {"samples", all.size()}, {"tables", tables_json(tables)}}
                             .dump(2));
      return;
    }
    fmt::print(stderr, "kvmbench: stored {} samples from {} file(s) in {}\n", all.size(), inputs.size(), dir.string());
    if (f == Format::text) fmt::print("run: {}\nsuite: {}  source: replay\n\n", dir.string(), suite);
    fmt::print("{}", render_tables(tables, f));
  });
}

}  // namespace kvmbench::cli
