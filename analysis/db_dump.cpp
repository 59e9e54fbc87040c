#include "analysis/db_dump.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "analysis/printable.h"

namespace kvmbench::db {

namespace {

constexpr const char* kFormat = "kvmbench-results-db";
constexpr int kFormatVersion = 1;

// Samples text of the stored lines, as samples.jsonl would hold it.
std::string samples_text(const std::vector<std::string>& lines) {
  std::string t;
  for (const auto& l : lines) t += l + "\n";
  return t;
}

}  // namespace

std::size_t write_dump(ResultsDb& from, std::ostream& out) {
  const auto counts = from.counts();
  out << nlohmann::json{{"format", kFormat},
                        {"version", kFormatVersion},
                        {"schema_version", kSchemaVersion},
                        {"runs", counts.runs}}
             .dump()
      << '\n';
  std::size_t n = 0;
  from.for_each_record([&](const RunRecord& r) {
    nlohmann::json lines = nlohmann::json::array();
    for (const auto& s : r.samples) lines.push_back(s.line);
    out << nlohmann::json{{"run_key", r.run_key},
                          {"dir_name", r.dir_name},
                          {"content_sha256", r.content_sha256},
                          {"imported_from", r.imported_from},
                          {"imported_at", r.imported_at},
                          {"meta", r.meta_text},
                          {"samples", lines}}
               .dump()
        << '\n';
    ++n;
  });
  out.flush();
  if (!out) throw std::runtime_error("cannot write the dump (disk full? closed pipe?)");
  return n;
}

LoadSummary load_dump(std::istream& in, ResultsDb& into, const std::string& where) {
  LoadSummary sum;
  std::string line;
  std::size_t line_no = 0;
  auto fail = [&](const std::string& why) -> std::runtime_error {
    return std::runtime_error(fmt::format("{}:{}: {}", where, line_no, why));
  };
  if (!std::getline(in, line)) throw std::runtime_error(fmt::format("{}: empty (not a kvmbench database dump)", where));
  ++line_no;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    throw fail("not a kvmbench database dump (its first line is not the dump's header)");
  }
  if (!header.is_object() || header.value("format", std::string()) != kFormat)
    throw fail("not a kvmbench database dump (its first line is not the dump's header)");
  if (header.value("version", 0) != kFormatVersion)
    throw fail(fmt::format("dump format version {} (this kvmbench reads version {})", header.value("version", 0),
                           kFormatVersion));
  std::size_t runs = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw fail(fmt::format("damaged line: {}", printable(e.what())));
    }
    if (!j.is_object() || !j.contains("meta") || !j["meta"].is_string() || !j.contains("samples") ||
        !j["samples"].is_array() || !j.contains("dir_name") || !j["dir_name"].is_string())
      throw fail("damaged line: a run needs dir_name, meta and samples");
    std::vector<std::string> lines;
    for (auto& s : j["samples"]) {
      if (!s.is_string()) throw fail("damaged line: a sample is not a string");
      lines.push_back(s.get<std::string>());
    }
    RunRecord r;
    try {
      r = run_record_from_text(j["dir_name"].get<std::string>(), j["meta"].get<std::string>(), samples_text(lines),
                               j["dir_name"].get<std::string>());
    } catch (const std::exception& e) {
      throw fail(e.what());
    }
    if (j.value("content_sha256", std::string()) != r.content_sha256)
      throw fail(fmt::format("run {}: its content does not match its hash (the dump was changed or damaged)",
                             r.dir_name));
    if (j.value("run_key", std::string()) != r.run_key)
      throw fail(fmt::format("run {}: its key {} is not the one its meta.json gives ({})", r.dir_name,
                             j.value("run_key", std::string()), r.run_key));
    r.imported_from = j.value("imported_from", std::string());
    r.imported_at = j.value("imported_at", std::string());
    const ImportResult res = into.import_run(r);
    if (res.outcome == ImportResult::Outcome::added) ++sum.added;
    else if (res.outcome == ImportResult::Outcome::already_present) ++sum.already_present;
    else sum.conflicts.push_back(res.message);
    ++runs;
  }
  if (header.contains("runs") && header["runs"].is_number_integer() &&
      header["runs"].get<std::size_t>() != runs)
    throw std::runtime_error(fmt::format("{}: {} runs, but its header says {} (cut short?); the {} read were loaded",
                                         where, runs, header["runs"].get<std::size_t>(), runs));
  return sum;
}

}  // namespace kvmbench::db
