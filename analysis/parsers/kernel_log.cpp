#include "analysis/parsers/kernel_log.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "analysis/parsers/kernel_log_prefix.h"
#include "analysis/units.h"

namespace kvmbench::parsers {

namespace {

constexpr std::array<std::string_view, 2> kAnchors = {"SEV-SNP: RMPOPT", "guest_memfd to_shared:"};

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

// Position of the first record anchor in `s`, or npos.
std::size_t find_anchor(std::string_view s) {
  std::size_t best = std::string_view::npos;
  for (auto a : kAnchors) best = std::min(best, s.find(a));
  return best;
}

// Tries to read one complete record from `text` (which starts at an anchor).
bool match_record(const std::string& text, KernelRecord& r) {
  static const std::regex cycles(R"(^SEV-SNP: RMPOPT (largest|smallest|average) cycles (\d+)\b)");
  static const std::regex sweep(
      R"(^SEV-SNP: RMPOPT execution time (\d+) ns for physical address range (0x[0-9a-fA-F]+) - (0x[0-9a-fA-F]+) on ([A-Za-z0-9_+ -]*?cpus)\b)");
  static const std::regex to_shared(
      R"(^guest_memfd to_shared: nr_pages=(\d+),\s*make_shared=(\d+) cycles,\s*total=(\d+) cycles\b)");
  std::smatch m;
  try {
    if (std::regex_search(text, m, cycles)) {
      r.kind = KernelRecordKind::rmpopt_cycles;
      r.stat = m[1].str();
      r.cycles = std::stod(m[2].str());
      return true;
    }
    if (std::regex_search(text, m, sweep)) {
      r.kind = KernelRecordKind::rmpopt_sweep;
      r.ns = std::stod(m[1].str());
      r.range_start_text = m[2].str();
      r.range_end_text = m[3].str();
      r.range_start = std::stoull(r.range_start_text, nullptr, 16);
      r.range_end = std::stoull(r.range_end_text, nullptr, 16);
      r.cpus = m[4].str();
      return true;
    }
    if (std::regex_search(text, m, to_shared)) {
      r.kind = KernelRecordKind::to_shared;
      r.nr_pages = std::stoull(m[1].str());
      r.make_shared = std::stod(m[2].str());
      r.total = std::stod(m[3].str());
      return true;
    }
  } catch (const std::out_of_range&) {
    return false;  // a number too large for 64 bits is not one of ours
  }
  return false;
}

}  // namespace

bool mentions_kernel_record(std::string_view text) {
  for (auto line : split_lines(text))
    if (find_anchor(line) != std::string_view::npos) return true;
  return false;
}

KernelLogParse parse_kernel_log_records(std::string_view text) {
  KernelLogParse out;
  ParseResult& res = out.result;
  res.format = "kernel-log";
  const auto lines = split_lines(text);
  res.lines_read = lines.size();

  int group = 0;
  bool broken = true;  // a blank or unrelated line since the last record
  std::optional<KernelRecordKind> last_kind;
  std::set<std::string> stats_in_group;

  for (std::size_t i = 0; i < lines.size();) {
    KernelLogLine ll = strip_capture_prefix(lines[i]);
    if (ll.message.empty()) {
      broken = true;
      ++i;
      continue;
    }
    std::size_t a = find_anchor(ll.message);
    if (a == std::string_view::npos) {
      ++res.lines_ignored;
      broken = true;
      ++i;
      continue;
    }
    KernelRecord r;
    r.line = i + 1;
    r.uptime_s = ll.uptime_s;
    r.wallclock = ll.wallclock;
    std::string joined(ll.message.substr(a));
    std::size_t used = 1;
    bool ok = match_record(joined, r);
    while (!ok && used <= 3 && i + used < lines.size()) {
      std::string_view next = lines[i + used];
      std::string_view cont = strip_quote_markers(next);
      if (cont.empty() || has_capture_timestamp(next) || find_anchor(cont) != std::string_view::npos) break;
      joined += ' ';
      joined += cont;
      ++used;
      ok = match_record(joined, r);
    }
    if (!ok) {
      res.warnings.push_back(fmt::format("line {}: incomplete or unknown record: {}", i + 1,
                                         std::string(ll.message.substr(a, 80))));
      ++res.lines_ignored;
      broken = true;
      ++i;
      continue;
    }
    r.line_count = used;
    const bool repeat_stat = r.kind == KernelRecordKind::rmpopt_cycles && stats_in_group.count(r.stat);
    if (broken || !last_kind || *last_kind != r.kind || repeat_stat) {
      ++group;
      stats_in_group.clear();
    }
    if (r.kind == KernelRecordKind::rmpopt_cycles) stats_in_group.insert(r.stat);
    r.group = group;
    last_kind = r.kind;
    broken = false;
    out.records.push_back(std::move(r));
    ++res.records;
    i += used;
  }
  res.samples = samples_from_records(out.records);
  return out;
}

ParseResult parse_kernel_log(std::string_view text) { return parse_kernel_log_records(text).result; }

std::vector<Sample> samples_from_records(const std::vector<KernelRecord>& records) {
  std::vector<Sample> out;
  std::map<std::pair<std::string, int>, int> next_iteration;  // (case, kind) -> count
  for (const auto& r : records) {
    nlohmann::json extra = {{"line", r.line}, {"group", r.group}};
    if (r.line_count > 1) extra["lines"] = r.line_count;
    if (r.uptime_s) extra["uptime_s"] = *r.uptime_s;
    if (!r.wallclock.empty()) extra["wallclock"] = r.wallclock;
    auto add = [&](const std::string& case_name, const std::string& metric, const std::string& unit,
                   double value, int iteration, const nlohmann::json& more) {
      Sample s;
      s.case_name = case_name;
      s.metric = metric;
      s.unit = unit;
      s.value = value;
      s.iteration = iteration;
      s.extra = extra;
      for (auto& [k, v] : more.items()) s.extra[k] = v;
      out.push_back(std::move(s));
    };
    switch (r.kind) {
      case KernelRecordKind::rmpopt_cycles: {
        std::string c = fmt::format("group={}", r.group);
        std::string metric = "rmpopt_cycles_" + r.stat;
        // One series per stat: iterate per (case, stat).
        int it = next_iteration[{c + "/" + metric, 0}]++;
        add(c, metric, "cycles", r.cycles, it, nlohmann::json::object());
        break;
      }
      case KernelRecordKind::rmpopt_sweep: {
        const std::uint64_t size = r.range_end >= r.range_start ? r.range_end - r.range_start : 0;
        std::string c = "range=" + format_bytes(size);
        int it = next_iteration[{c, 1}]++;
        add(c, "sweep_time", "ns", r.ns, it,
            {{"range_start", r.range_start_text}, {"range_end", r.range_end_text}, {"cpus", r.cpus}});
        break;
      }
      case KernelRecordKind::to_shared: {
        std::string c = fmt::format("nr_pages={}", r.nr_pages);
        int it = next_iteration[{c, 2}]++;
        add(c, "make_shared_cycles", "cycles", r.make_shared, it, nlohmann::json::object());
        add(c, "total_cycles", "cycles", r.total, it, nlohmann::json::object());
        if (r.total > 0) add(c, "make_shared_pct", "%", 100.0 * r.make_shared / r.total, it, nlohmann::json::object());
        break;
      }
    }
  }
  return out;
}

}  // namespace kvmbench::parsers
