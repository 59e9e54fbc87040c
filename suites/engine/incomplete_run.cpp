#include "suites/engine/incomplete_run.h"

#include <fmt/format.h>

#include <algorithm>

namespace kvmbench::engine {

std::string incomplete_note(const Run& run) {
  const nlohmann::json& m = run.meta;
  const int measured = m.value("measured_repetitions", 0);
  const std::string status = run.status();
  const std::string asked = m.contains("repetitions") && m["repetitions"].is_number_integer()
                                ? fmt::format(" of {}", m["repetitions"].get<int>())
                                : std::string();
  const char* plural = (asked.empty() ? measured : m["repetitions"].get<int>()) == 1 ? "" : "s";
  if (status == "interrupted") return fmt::format("INTERRUPTED: {}{} repetition{} measured", measured, asked, plural);
  if (status == "failed" && m.contains("failures") && m["failures"].is_array() && !m["failures"].empty()) {
    // Output of a test that failed (ingest): the tests, their reasons in
    // the notes (failure_notes).
    std::string tests;
    for (const auto& f : m["failures"]) {
      const std::string p = f.value("program", std::string());
      tests += (tests.empty() ? "" : ", ") + (p.empty() ? std::string("a test") : p);
    }
    return "FAILED: " + tests;
  }
  if (status == "failed") return fmt::format("FAILED after {}{} repetition{}", measured, asked, plural);
  if (status == "running") return "RUNNING (or killed): not finished";
  nlohmann::json skips = nlohmann::json::array();
  for (const auto& s : m.value("skipped_parts", nlohmann::json::array()))
    if (!s.value("not_offered", false)) skips.push_back(s);
  if (skips.empty()) return run.samples.empty() ? "NOTHING MEASURED" : "";
  // The count only: the names are in `report` and the run's messages, and
  // a title must stay short.
  const std::string parts = fmt::format("{} part{} skipped", skips.size(), skips.size() == 1 ? "" : "s");
  if (run.samples.empty()) return "NOTHING MEASURED: " + parts;
  return "PARTIAL: " + parts;
}

std::vector<std::string> not_offered_notes(const Run& run) {
  // Parts not offered for one reason are one note ("guest_memfd/threads=1,
  // guest_memfd/threads=2: not offered here (...)"): the reason said once.
  std::vector<std::pair<std::string, std::string>> by_reason;  // reason, its parts
  for (const auto& s : run.meta.value("skipped_parts", nlohmann::json::array()))
    if (s.value("not_offered", false)) {
      // The CPU's or the kernel's: the reason says which.
      const std::string reason = s.value("reason", std::string());
      const std::string part = s.value("part", std::string("?"));
      auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& e) { return e.first == reason; });
      if (it == by_reason.end())
        by_reason.emplace_back(reason, part);
      else
        it->second += ", " + part;
    }
  std::vector<std::string> notes;
  for (const auto& [reason, parts] : by_reason)
    notes.push_back(parts + ": not offered here" + (reason.empty() ? "" : " (" + reason + ")"));
  return notes;
}

std::vector<std::string> failure_notes(const Run& run) {
  std::vector<std::string> notes;
  for (const auto& f : run.meta.value("failures", nlohmann::json::array())) {
    if (!f.is_object()) continue;
    const std::string p = f.value("program", std::string());
    notes.push_back(fmt::format("{} failed ({}:{}): {}; the figures it printed before are marked failed: compare "
                                "does not test them, gate fails on them",
                                p.empty() ? "a test" : p, f.value("file", std::string("?")),
                                f.value("line", std::size_t{0}), f.value("reason", std::string())));
  }
  return notes;
}

void mark_run_notes(std::vector<Table>& tables, const Run& run) {
  mark_incomplete(tables, incomplete_note(run));
  auto notes = not_offered_notes(run);
  for (auto& n : failure_notes(run)) notes.push_back(std::move(n));
  for (auto& t : tables) t.notes.insert(t.notes.end(), notes.begin(), notes.end());
}

void mark_incomplete(std::vector<Table>& tables, const std::string& note) {
  if (note.empty()) return;
  for (auto& t : tables) {
    const std::size_t at = t.title.rfind("# ", 0) == 0 ? 2 : 0;
    t.title.insert(at, "[" + note + "] ");
    if (t.data_title) t.data_title->insert(0, "[" + note + "] ");
  }
}

}  // namespace kvmbench::engine
