#include "analysis/parsers/kernel_log.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <cctype>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <set>
#include <tuple>

#include "analysis/parsers/kernel_log_prefix.h"
#include "analysis/units.h"

namespace kvmbench::parsers {

namespace {

constexpr std::array<std::string_view, 2> kAnchors = {"SEV-SNP: RMPOPT", "guest_memfd to_shared:"};

std::size_t find_from(std::string_view text, std::string_view needle, std::size_t from);

// Position of the first record anchor in `s`, or npos.
std::size_t find_anchor(std::string_view s) {
  std::size_t best = std::string_view::npos;
  for (auto a : kAnchors) best = std::min(best, s.find(a));
  return best;
}

// Outcome of reading one record from text that starts at an anchor.
enum class Match { ok, incomplete, unknown };

// A cursor over the (possibly joined) record text. Hand-written instead of
// std::regex: ingest is a hot path (months of kernel logs) and regex per
// record line was the bulk of the parse time.
struct Scanner {
  std::string_view s;
  std::size_t line;  // for errors

  bool at_end() const { return s.empty(); }
  // Consumes `lit`. Returns ok, or incomplete when the text ends inside it,
  // or unknown when it differs.
  Match literal(std::string_view lit) {
    const std::size_t n = std::min(lit.size(), s.size());
    if (s.substr(0, n) != lit.substr(0, n)) return Match::unknown;
    if (n < lit.size()) return Match::incomplete;
    s.remove_prefix(n);
    return Match::ok;
  }
  // Consumes blanks (the joint of a wrapped line is one space).
  void blanks() {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  }
  // A token up to a blank or ','.
  std::string_view token() {
    std::size_t n = 0;
    while (n < s.size() && s[n] != ' ' && s[n] != '\t' && s[n] != ',' && s[n] != '\r') ++n;
    auto t = s.substr(0, n);
    s.remove_prefix(n);
    return t;
  }
  // A non-negative integer count named `what`. Unless it ends the record
  // (`last`), returns incomplete when the token runs to the end of the text
  // (a wrapped line may continue it). Throws ParseError for a value that is
  // there but is not a count.
  Match count(std::string_view what, std::uint64_t& v, bool last = false) {
    std::string_view t = token();
    if (at_end() && (!last || t.empty())) return Match::incomplete;
    if (t.empty()) throw ParseError(line, fmt::format("{} has no value", what));
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc() && p == t.data() + t.size()) return Match::ok;
    std::string lower;
    for (char c : t) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("nan") != std::string::npos || lower.find("inf") != std::string::npos)
      throw ParseError(line, fmt::format("{} is {}, not a count", what, t));
    if (ec == std::errc::result_out_of_range)
      throw ParseError(line, fmt::format("{} {} is too large for a 64-bit count", what, t));
    if (t.front() == '-') throw ParseError(line, fmt::format("{} is negative ({})", what, t));
    throw ParseError(line, fmt::format("{} is not a count: '{}'", what, t));
  }
  // A hexadecimal address "0x...".
  Match hex(std::string_view what, std::uint64_t& v, std::string& text) {
    std::string_view t = token();
    if (at_end()) return Match::incomplete;
    if (t.size() < 3 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
      throw ParseError(line, fmt::format("{} is not a 0x address: '{}'", what, t));
    auto [p, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), v, 16);
    if (ec != std::errc() || p != t.data() + t.size())
      throw ParseError(line, fmt::format("{} is not a 64-bit 0x address: '{}'", what, t));
    text = std::string(t);
    return Match::ok;
  }
};

#define KVMB_TRY(expr)                      \
  do {                                      \
    const Match m_ = (expr);                \
    if (m_ != Match::ok) return m_;         \
  } while (0)

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

Match match_cycles(Scanner& sc, KernelRecord& r) {
  static constexpr std::string_view names[] = {"RMPOPT largest cycles", "RMPOPT smallest cycles",
                                                "RMPOPT average cycles"};
  for (std::string_view name : names) {
    const std::string_view stat = name.substr(7, name.size() - 14);
    if (sc.literal(stat) != Match::ok) continue;
    KVMB_TRY(sc.literal(" cycles "));
    std::uint64_t v = 0;
    KVMB_TRY(sc.count(name, v, true));
    r.kind = KernelRecordKind::rmpopt_cycles;
    r.stat = std::string(stat);
    r.cycles = static_cast<double>(v);
    return Match::ok;
  }
  // A prefix of one of the stat names at the end of the text may be wrapped.
  for (std::string_view stat : {"largest", "smallest", "average"})
    if (sc.s.size() < stat.size() && stat.substr(0, sc.s.size()) == sc.s) return Match::incomplete;
  return Match::unknown;
}

Match match_sweep(Scanner& sc, KernelRecord& r) {
  std::uint64_t ns = 0;
  KVMB_TRY(sc.count("RMPOPT execution time", ns));
  KVMB_TRY(sc.literal(" ns for physical address range "));
  KVMB_TRY(sc.hex("range start", r.range_start, r.range_start_text));
  KVMB_TRY(sc.literal(" - "));
  KVMB_TRY(sc.hex("range end", r.range_end, r.range_end_text));
  KVMB_TRY(sc.literal(" on "));
  // "<words> cpus": letters, digits, '_', '+', '-', spaces, then "cpus".
  std::size_t n = 0;
  while (true) {
    std::size_t c = sc.s.find("cpus", n);
    if (c == std::string_view::npos) break;
    bool allowed = true;
    for (std::size_t i = 0; i < c; ++i) {
      char ch = sc.s[i];
      if (!(word_char(ch) || ch == '+' || ch == '-' || ch == ' ')) allowed = false;
    }
    if (!allowed) return Match::unknown;
    if (c + 4 < sc.s.size() && word_char(sc.s[c + 4])) {
      n = c + 4;
      continue;
    }
    r.cpus = std::string(sc.s.substr(0, c + 4));
    if (r.range_end < r.range_start)
      throw ParseError(sc.line, fmt::format("RMPOPT range end {} is below its start {}", r.range_end_text,
                                            r.range_start_text));
    r.kind = KernelRecordKind::rmpopt_sweep;
    r.ns = static_cast<double>(ns);
    return Match::ok;
  }
  return Match::incomplete;
}

Match match_to_shared(Scanner& sc, KernelRecord& r) {
  std::uint64_t pages = 0, ms = 0, total = 0;
  KVMB_TRY(sc.literal("nr_pages="));
  KVMB_TRY(sc.count("nr_pages", pages));
  KVMB_TRY(sc.literal(","));
  sc.blanks();
  if (sc.at_end()) return Match::incomplete;
  KVMB_TRY(sc.literal("make_shared="));
  KVMB_TRY(sc.count("make_shared", ms));
  KVMB_TRY(sc.literal(" cycles,"));
  sc.blanks();
  if (sc.at_end()) return Match::incomplete;
  KVMB_TRY(sc.literal("total="));
  KVMB_TRY(sc.count("total", total));
  // The count is followed by " cycles" (end of record); a word boundary after it.
  KVMB_TRY(sc.literal(" cycles"));
  if (!sc.at_end() && word_char(sc.s.front())) return Match::unknown;
  if (total == 0) throw ParseError(sc.line, "to_shared total is 0 cycles (a conversion cannot take no time)");
  if (ms > total)
    throw ParseError(sc.line,
                     fmt::format("to_shared make_shared={} cycles is larger than its total={} cycles", ms, total));
  r.kind = KernelRecordKind::to_shared;
  r.nr_pages = pages;
  r.make_shared = static_cast<double>(ms);
  r.total = static_cast<double>(total);
  return Match::ok;
}

// Reads one record from `text` (which starts at an anchor).
Match match_record(std::string_view text, std::size_t line, KernelRecord& r) {
  Scanner sc{text, line};
  constexpr std::string_view rmpopt = "SEV-SNP: RMPOPT ";
  constexpr std::string_view to_shared = "guest_memfd to_shared: ";
  if (text.substr(0, rmpopt.size()) == rmpopt) {
    sc.s.remove_prefix(rmpopt.size());
    constexpr std::string_view exec = "execution time ";
    const std::size_t n = std::min(exec.size(), sc.s.size());
    if (sc.s.substr(0, n) == exec.substr(0, n)) {
      if (n < exec.size()) return Match::incomplete;
      sc.s.remove_prefix(n);
      return match_sweep(sc, r);
    }
    return match_cycles(sc, r);
  }
  if (text.substr(0, to_shared.size()) == to_shared) {
    sc.s.remove_prefix(to_shared.size());
    return match_to_shared(sc, r);
  }
  // "SEV-SNP: RMPOPT" at the very end (wrapped) or "guest_memfd to_shared:" alone.
  return text.size() < std::max(rmpopt.size(), to_shared.size()) ? Match::incomplete : Match::unknown;
}

}  // namespace

bool mentions_kernel_record(std::string_view text) {
  // No anchor spans a line break, so searching the whole text is the same
  // as searching line by line.
  for (auto a : kAnchors)
    if (find_from(text, a, 0) != std::string_view::npos) return true;
  return false;
}

namespace {

// Lines of `text` from a position, without building a vector of them (a
// 200 MB log has millions of lines, nearly all unrelated).
struct LineCursor {
  std::string_view text;
  std::size_t pos = 0;
  bool done() const { return pos >= text.size(); }
  // The line at `from` (without its '\n') and where the next one starts.
  std::pair<std::string_view, std::size_t> line_at(std::size_t from) const {
    const void* nl = std::memchr(text.data() + from, '\n', text.size() - from);
    const std::size_t end = nl ? static_cast<const char*>(nl) - text.data() : text.size();
    return {text.substr(from, end - from), end + 1};
  }
};

// Next occurrence of `needle` at or after `from` (glibc's memmem is much
// faster than a per-line search for a needle whose first letter is common).
std::size_t find_from(std::string_view text, std::string_view needle, std::size_t from) {
  if (from >= text.size()) return std::string_view::npos;
  const void* p = ::memmem(text.data() + from, text.size() - from, needle.data(), needle.size());
  return p ? static_cast<const char*>(p) - text.data() : std::string_view::npos;
}

// A line without an anchor is blank or unrelated. Its message can only be
// empty when the line ends like a capture prefix (']', ';', "kernel:"), so
// only then is the (slower) prefix stripping needed to tell which.
bool is_blank_line(std::string_view line) {
  std::string_view t = strip_quote_markers(line);
  return t.empty() ||
         ((t.back() == ']' || t.back() == ';' || t.back() == ':') && strip_capture_prefix(line).message.empty());
}

}  // namespace

KernelLogParse parse_kernel_log_records(std::string_view text) {
  KernelLogParse out;
  ParseResult& res = out.result;
  res.format = "kernel-log";

  int group = 0;
  bool broken = true;  // a blank or unrelated line since the last record
  std::optional<KernelRecordKind> last_kind;
  std::set<std::string> stats_in_group;

  LineCursor cur{text};
  std::size_t line_no = 0;  // lines consumed so far
  std::array<std::size_t, kAnchors.size()> next{};
  for (std::size_t k = 0; k < kAnchors.size(); ++k) next[k] = find_from(text, kAnchors[k], 0);

  while (!cur.done()) {
    for (std::size_t k = 0; k < kAnchors.size(); ++k)
      if (next[k] != std::string_view::npos && next[k] < cur.pos) next[k] = find_from(text, kAnchors[k], cur.pos);
    const std::size_t anchor = *std::min_element(next.begin(), next.end());
    // Start of the line holding the next anchor (or the end of the text).
    std::size_t anchor_line = text.size();
    if (anchor != std::string_view::npos) {
      anchor_line = anchor;
      while (anchor_line > cur.pos && text[anchor_line - 1] != '\n') --anchor_line;
    }
    // The lines before it are blank or unrelated.
    while (cur.pos < anchor_line) {
      auto [line, after] = cur.line_at(cur.pos);
      if (!is_blank_line(line)) ++res.lines_ignored;
      broken = true;
      ++line_no;
      cur.pos = after;
    }
    if (cur.done()) break;

    auto [line, after] = cur.line_at(cur.pos);
    ++line_no;
    KernelLogLine ll = strip_capture_prefix(line);
    std::size_t a = find_anchor(ll.message);
    if (a == std::string_view::npos) {  // the anchor was inside a capture prefix
      ++res.lines_ignored;
      broken = true;
      cur.pos = after;
      continue;
    }
    KernelRecord r;
    r.line = line_no;
    r.uptime_s = ll.uptime_s;
    r.wallclock = ll.wallclock;
    std::string joined(ll.message.substr(a));
    std::size_t used = 1;
    std::size_t next_pos = after;
    Match m = match_record(joined, r.line, r);
    while (m == Match::incomplete && used <= 3 && next_pos < text.size()) {
      auto [next_line, next_after] = cur.line_at(next_pos);
      std::string_view cont = strip_quote_markers(next_line);
      if (cont.empty() || has_capture_timestamp(next_line) || find_anchor(cont) != std::string_view::npos) break;
      joined += ' ';
      joined += cont;
      ++used;
      next_pos = next_after;
      m = match_record(joined, r.line, r);
    }
    if (m != Match::ok) {
      res.warnings.push_back(fmt::format("line {}: incomplete or unknown record: {}", r.line,
                                         std::string(ll.message.substr(a, 80))));
      ++res.lines_ignored;
      broken = true;
      cur.pos = after;
      continue;
    }
    r.line_count = used;
    line_no += used - 1;
    cur.pos = next_pos;
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
  }
  res.lines_read = line_no;
  res.samples = samples_from_records(out.records);
  return out;
}

ParseResult parse_kernel_log(std::string_view text) { return parse_kernel_log_records(text).result; }

std::vector<Sample> samples_from_records(const std::vector<KernelRecord>& records) {
  std::vector<Sample> out;
  out.reserve(records.size() * 3);
  std::map<std::pair<std::string, int>, int> next_iteration;  // (case, kind) -> count
  for (const auto& r : records) {
    // Assigned key by key: nlohmann's initializer-list constructor is several
    // times slower, and this runs per record of a months-long log.
    nlohmann::json extra = nlohmann::json::object();
    extra["line"] = r.line;
    extra["group"] = r.group;
    if (r.line_count > 1) extra["lines"] = r.line_count;
    if (r.uptime_s) extra["uptime_s"] = *r.uptime_s;
    if (!r.wallclock.empty()) extra["wallclock"] = r.wallclock;
    // The record's last sample takes `extra` itself instead of a copy.
    auto add = [&](const std::string& case_name, const char* metric, const char* unit, double value, int iteration,
                   bool last) {
      Sample& s = out.emplace_back();
      s.case_name = case_name;
      s.metric = metric;
      s.unit = unit;
      s.value = value;
      s.iteration = iteration;
      if (last) s.extra = std::move(extra);
      else s.extra = extra;
    };
    switch (r.kind) {
      case KernelRecordKind::rmpopt_cycles: {
        std::string c = fmt::format("group={}", r.group);
        std::string metric = "rmpopt_cycles_" + r.stat;
        // One series per stat: iterate per (case, stat).
        int it = next_iteration[{c + "/" + metric, 0}]++;
        add(c, metric.c_str(), "cycles", r.cycles, it, true);
        break;
      }
      case KernelRecordKind::rmpopt_sweep: {
        const std::uint64_t size = r.range_end >= r.range_start ? r.range_end - r.range_start : 0;
        std::string c = "range=" + format_bytes(size);
        int it = next_iteration[{c, 1}]++;
        extra["range_start"] = r.range_start_text;
        extra["range_end"] = r.range_end_text;
        extra["cpus"] = r.cpus;
        add(c, "sweep_time", "ns", r.ns, it, true);
        break;
      }
      case KernelRecordKind::to_shared: {
        std::string c = fmt::format("nr_pages={}", r.nr_pages);
        int it = next_iteration[{c, 2}]++;
        add(c, "make_shared_cycles", "cycles", r.make_shared, it, false);
        add(c, "total_cycles", "cycles", r.total, it, r.total <= 0);
        if (r.total > 0) add(c, "make_shared_pct", "%", 100.0 * r.make_shared / r.total, it, true);
        break;
      }
    }
  }
  return out;
}

}  // namespace kvmbench::parsers
