#include "analysis/store/db/db_dump.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>

#include "analysis/model/json_input.h"
#include "analysis/model/printable.h"

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

// What a line of the dump holds, by name: a member missing or of another
// type is named (nlohmann's own type_error names neither line nor member).
enum class Member { string, integer };

const nlohmann::json* member_of(const nlohmann::json& line, const char* name, Member kind) {
  const auto it = line.find(name);
  if (it == line.end()) return nullptr;
  const bool right = kind == Member::string ? it->is_string() : it->is_number_integer();
  if (!right)
    throw std::invalid_argument(fmt::format("\"{}\" is {} where {} belongs", name, it->type_name(),
                                            kind == Member::string ? "a string" : "an integer"));
  return &*it;
}

std::string string_member(const nlohmann::json& line, const char* name) {
  const nlohmann::json* m = member_of(line, name, Member::string);
  if (!m) throw std::invalid_argument(fmt::format("no \"{}\"", name));
  return m->get<std::string>();
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

std::size_t write_dump_file(ResultsDb& from, const std::filesystem::path& file) {
  const std::filesystem::path partial = file.string() + ".partial";
  try {
    std::size_t n = 0;
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      if (!out) throw std::runtime_error(fmt::format("{}: cannot write: {}", partial.string(), std::strerror(errno)));
      n = write_dump(from, out);
      out.close();
      if (!out) throw std::runtime_error(fmt::format("{}: cannot write it whole (disk full?)", partial.string()));
    }
    std::filesystem::rename(partial, file);
    return n;
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(partial, ec);
    throw;
  }
}

namespace {

// Reads a dump line by line: its header, then each run as a record checked
// against its hash and key. `run` gets each record; a problem throws
// std::runtime_error naming the line.
void read_dump(std::istream& in, const std::string& where, const std::function<void(RunRecord&)>& run,
               const char* after_cut) {
  std::string line;
  std::size_t line_no = 0;
  auto fail = [&](const std::string& why) -> std::runtime_error {
    return std::runtime_error(fmt::format("{}:{}: {}", where, line_no, why));
  };
  if (!std::getline(in, line)) throw std::runtime_error(fmt::format("{}: empty (not a kvmbench database dump)", where));
  ++line_no;
  nlohmann::json header;
  try {
    header = parse_json_input(line);
  } catch (const std::exception&) {
    throw fail("not a kvmbench database dump (its first line is not the dump's header)");
  }
  try {
    const nlohmann::json* format = header.is_object() ? member_of(header, "format", Member::string) : nullptr;
    if (!format || *format != kFormat)
      throw fail("not a kvmbench database dump (its first line is not the dump's header)");
    const nlohmann::json* version = member_of(header, "version", Member::integer);
    if (!version || *version != kFormatVersion)
      throw fail(fmt::format("dump format version {} (this kvmbench reads version {})",
                             version ? version->dump() : "none", kFormatVersion));
  } catch (const std::invalid_argument& e) {
    throw fail(fmt::format("damaged header: {}", e.what()));
  }
  std::size_t runs = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = parse_json_input(line);
    } catch (const JsonInputError& e) {
      throw fail(fmt::format("damaged line: {}", e.reason));
    } catch (const nlohmann::json::exception& e) {
      throw fail(fmt::format("damaged line: {}", printable(e.what())));
    }
    if (!j.is_object()) throw fail(fmt::format("damaged line: a run is a JSON object, not {}", j.type_name()));
    // Every member a dump's line has: a line without one was not written by
    // `db dump`, and what it lacks is not made up here (an import time, an
    // origin the run never had).
    std::string dir_name, meta, content_sha256, run_key, imported_from, imported_at;
    std::vector<std::string> lines;
    try {
      dir_name = string_member(j, "dir_name");
      meta = string_member(j, "meta");
      content_sha256 = string_member(j, "content_sha256");
      run_key = string_member(j, "run_key");
      imported_from = string_member(j, "imported_from");
      imported_at = string_member(j, "imported_at");
      if (imported_at.empty()) throw std::invalid_argument("\"imported_at\" is empty");
      const auto samples = j.find("samples");
      if (samples == j.end()) throw std::invalid_argument("no \"samples\"");
      if (!samples->is_array())
        throw std::invalid_argument(fmt::format("\"samples\" is {} where an array belongs", samples->type_name()));
      for (const auto& s : *samples) {
        if (!s.is_string())
          throw std::invalid_argument(fmt::format("\"samples\"[{}] is {} where a string belongs", lines.size(),
                                                  s.type_name()));
        lines.push_back(s.get<std::string>());
      }
    } catch (const std::invalid_argument& e) {
      throw fail(fmt::format("damaged line: {}", e.what()));
    }
    RunRecord r;
    try {
      r = run_record_from_text(dir_name, meta, samples_text(lines), dir_name);
    } catch (const std::exception& e) {
      throw fail(e.what());
    }
    if (content_sha256 != r.content_sha256)
      throw fail(fmt::format("run {}: its content does not match its hash (the dump was changed or damaged)",
                             r.dir_name));
    if (run_key != r.run_key)
      throw fail(fmt::format("run {}: its key {} is not the one its meta.json gives ({})", r.dir_name, run_key,
                             r.run_key));
    r.imported_from = std::move(imported_from);
    r.imported_at = std::move(imported_at);
    run(r);
    ++runs;
  }
  if (header.contains("runs") && header["runs"].is_number_integer() &&
      header["runs"].get<std::size_t>() != runs)
    throw std::runtime_error(fmt::format("{}: {} runs, but its header says {} (cut short?){}", where, runs,
                                         header["runs"].get<std::size_t>(), after_cut));
}

}  // namespace

std::size_t check_dump(std::istream& in, const std::string& where) {
  std::size_t runs = 0;
  read_dump(in, where, [&](RunRecord&) { ++runs; }, "");
  return runs;
}

LoadSummary load_dump(std::istream& in, ResultsDb& into, const std::string& where) {
  LoadSummary sum;
  read_dump(
      in, where,
      [&](RunRecord& r) {
        const ImportResult res = into.import_run(r);
        if (res.outcome == ImportResult::Outcome::added) ++sum.added;
        else if (res.outcome == ImportResult::Outcome::already_present) ++sum.already_present;
        else sum.conflicts.push_back(res.message);
      },
      "; the runs read were loaded");
  return sum;
}

}  // namespace kvmbench::db
