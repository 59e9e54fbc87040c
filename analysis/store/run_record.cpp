#include "analysis/store/run_record.h"

#include <fmt/format.h>

#include <stdexcept>

#include "analysis/model/case_families.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/model/json_input.h"
#include "analysis/model/printable.h"
#include "analysis/store/run_meta_check.h"
#include "analysis/store/run_store.h"
#include "analysis/model/sample_jsonl.h"
#include "analysis/model/sha256.h"

namespace kvmbench::db {

namespace fs = std::filesystem;

namespace {

std::string text_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* p = &j;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return "";
    p = &(*p)[k];
  }
  return p->is_string() ? p->get<std::string>() : "";
}

}  // namespace

std::string content_hash(const std::string& meta_text, const std::vector<SampleRecord>& samples) {
  Sha256 h;
  h.update(meta_text);
  h.update(std::string_view("\0samples\0", 9));
  for (const auto& s : samples) {
    h.update(s.line);
    h.update("\n");
  }
  return h.hex();
}

RunRecord run_record_from_text(std::string dir_name, std::string meta_text, std::string_view samples_text,
                               const fs::path& where) {
  const fs::path meta_path = where / "meta.json", samples_path = where / "samples.jsonl";
  nlohmann::json meta;
  try {
    meta = parse_json_input(meta_text);
  } catch (const JsonInputError& e) {
    throw std::runtime_error(json_input_message(e, meta_path.string()));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed JSON: {}", meta_path.string(), printable(e.what())));
  }
  // What report and the other readers refuse, then what the database needs.
  if (const auto problem = run_meta_problem(meta))
    throw std::runtime_error(fmt::format("{}: {}", meta_path.string(), *problem));
  if (!meta.contains("suite") || !meta["suite"].is_string() || meta["suite"].get<std::string>().empty())
    throw std::runtime_error(fmt::format("{}: no 'suite' (not a kvmbench run?)", meta_path.string()));

  RunRecord r;
  r.dir_name = std::move(dir_name);
  r.suite = meta["suite"].get<std::string>();
  r.preset = text_at(meta, {"preset"});
  r.source = meta["source"].get<std::string>();
  r.status = text_at(meta, {"status"});
  r.start_time = text_at(meta, {"start_time"});
  r.end_time = text_at(meta, {"end_time"});
  r.hostname = text_at(meta, {"hostname"});
  if (r.hostname.empty()) r.hostname = text_at(meta, {"host", "hostname"});
  r.kernel_release = text_at(meta, {"host", "kernel", "release"});
  if (r.kernel_release.empty()) r.kernel_release = text_at(meta, {"host", "kernel_release"});
  r.tool_version = text_at(meta, {"tool_version"});
  r.parameters = meta.contains("parameters") && meta["parameters"].is_object() ? meta["parameters"].dump() : "{}";
  const MachineIdentity id = machine_identity(meta);
  if (id.known()) {
    r.machine = id.fingerprint;
    for (auto& f : id.fields) r.machine_identity += f.name + "=" + f.value + "\n";
  } else {
    r.machine = "unknown:" + r.hostname;
  }
  r.run_key = r.machine + "/" + r.dir_name;
  r.meta_text = std::move(meta_text);

  std::size_t pos = 0, line_no = 0;
  while (pos < samples_text.size()) {
    ++line_no;
    const std::size_t nl = samples_text.find('\n', pos);
    if (nl == std::string_view::npos)
      throw std::runtime_error(fmt::format("{}:{}: truncated last line (run killed while writing?)",
                                           samples_path.string(), line_no));
    const std::string_view line = samples_text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    // Both databases keep text as UTF-8 (PostgreSQL refuses anything else).
    if (const auto bad = first_invalid_utf8(line); bad != std::string_view::npos)
      throw std::runtime_error(fmt::format("{}:{}: byte {} is not UTF-8", samples_path.string(), line_no, bad + 1));
    try {
      r.samples.push_back({parse_sample_line(line), std::string(line)});
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: {}", samples_path.string(), line_no, printable(e.what())));
    }
  }
  // What report refuses of the samples, the database does not hold either.
  std::vector<const Sample*> samples;
  samples.reserve(r.samples.size());
  for (const auto& s : r.samples) samples.push_back(&s.sample);
  if (const auto problem = mixed_units_problem(samples))
    throw std::runtime_error(fmt::format("{}: {}", samples_path.string(), *problem));
  if (meta.contains("n_samples") && meta["n_samples"].is_number_unsigned() &&
      meta["n_samples"].get<std::size_t>() != r.samples.size())
    throw std::runtime_error(fmt::format("{}: {} samples, but meta.json says {} were stored (cut short or emptied?)",
                                         samples_path.string(), r.samples.size(),
                                         meta["n_samples"].get<std::size_t>()));
  r.content_sha256 = content_hash(r.meta_text, r.samples);
  return r;
}

bool is_run_directory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::is_regular_file(dir / "meta.json", ec);
}

RunRecord read_run_record(const fs::path& dir) {
  if (!is_run_directory(dir))
    throw std::runtime_error(fmt::format("{}: not a run directory (no meta.json)", dir.string()));
  std::string meta = read_file(dir / "meta.json");
  std::string samples;
  std::error_code ec;
  if (fs::exists(dir / "samples.jsonl", ec)) samples = read_file(dir / "samples.jsonl");
  fs::path name = dir.filename().empty() ? dir.parent_path().filename() : dir.filename();
  RunRecord r = run_record_from_text(name.string(), std::move(meta), samples, dir);
  fs::path abs = fs::absolute(dir).lexically_normal();
  if (abs.filename().empty()) abs = abs.parent_path();  // "runs/x/"
  r.imported_from = abs.string();
  return r;
}

}  // namespace kvmbench::db
