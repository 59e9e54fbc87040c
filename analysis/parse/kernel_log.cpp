#include "analysis/parse/kernel_log.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include "analysis/parse/kernel_log_prefix.h"
#include "analysis/model/sample_jsonl.h"
#include "analysis/model/units.h"

namespace kvmbench::parsers {

namespace {

constexpr std::array<std::string_view, 3> kAnchors = {"SEV-SNP: RMPOPT", "guest_memfd to_shared:",
                                                      "SEV-SNP: RMP optimizations"};

// Position of the first record anchor in `s`, or npos. The two "SEV-SNP:
// RMP..." anchors are found with one search for their common start: each
// line of a log is searched, and a search is a pass over it.
std::size_t find_anchor(std::string_view s) {
  constexpr std::string_view rmp = "SEV-SNP: RMP";
  static_assert(kAnchors[0].starts_with(rmp) && kAnchors[2].starts_with(rmp));
  const std::size_t to_shared = s.find(kAnchors[1]);
  for (std::size_t p = s.find(rmp); p < to_shared; p = s.find(rmp, p + 1))
    if (s.substr(p).starts_with(kAnchors[0]) || s.substr(p).starts_with(kAnchors[2])) return p;
  return to_shared;
}

// Outcome of reading one record from text that starts at an anchor.
// `source`: the anchor is in a print's own source (a patch quoted in a
// mail: pr_err("guest_memfd to_shared: nr_pages=%lu, ..."), whose values
// are printf conversions): not a record. `status`: one of the RMPOPT
// series' status lines (kRmpoptNotEnabled, kRmpoptEnabled).
// `earlier`: a debug print of the RMPOPT series' earlier forms
// (kRmpoptEarlierForms), not read.
enum class Match { ok, incomplete, unknown, source, status, earlier };

// A cursor over the (possibly joined) record text.
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
    if (!t.empty() && t.front() == '%') return Match::source;
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
  Match hex(std::string_view what, std::uint64_t& v, std::string_view& text) {
    std::string_view t = token();
    if (t.find('%') != std::string_view::npos) return Match::source;
    if (at_end()) return Match::incomplete;
    if (t.size() < 3 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
      throw ParseError(line, fmt::format("{} is not a 0x address: '{}'", what, t));
    auto [p, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), v, 16);
    if (ec != std::errc() || p != t.data() + t.size())
      throw ParseError(line, fmt::format("{} is not a 64-bit 0x address: '{}'", what, t));
    text = t;
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
  for (int k = 0; k < 3; ++k) {
    const std::string_view name = names[k];
    const std::string_view stat = name.substr(7, name.size() - 14);
    if (sc.literal(stat) != Match::ok) continue;
    KVMB_TRY(sc.literal(" cycles "));
    std::uint64_t v = 0;
    KVMB_TRY(sc.count(name, v, true));
    r.kind = KernelRecordKind::rmpopt_cycles;
    r.stat = static_cast<CycleStat>(k);
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
    r.cpus = sc.s.substr(0, c + 4);
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
  constexpr std::string_view prefix = "SEV-SNP: ";
  for (std::string_view status : {kRmpoptNotEnabled, kRmpoptEnabled})
    if (text.substr(prefix.size(), status.size()) == status && text.starts_with(prefix)) return Match::status;
  if (text.starts_with("SEV-SNP: RMP optimizations")) return Match::unknown;
  if (text.substr(0, rmpopt.size()) == rmpopt) {
    sc.s.remove_prefix(rmpopt.size());
    for (std::string_view earlier : kRmpoptEarlierForms)
      if (sc.s.starts_with(earlier.substr(7))) return Match::earlier;
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
  // as searching line by line; the search ends at the first anchor found
  // (find_anchor would read a long log to its end for the others).
  return std::any_of(kAnchors.begin(), kAnchors.end(),
                     [&](std::string_view a) { return text.find(a) != std::string_view::npos; });
}

namespace {

// The line of `text` that starts at `from` (without its '\n') and where the
// next one starts; a last line without a '\n' is a line too.
std::pair<std::string_view, std::size_t> line_at(std::string_view text, std::size_t from) {
  const std::size_t nl = text.find('\n', from);
  const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
  return {text.substr(from, end - from), end + 1};
}

// Room for the records of all of a text, once `records` holds its first
// kSampleRecords, read from its first `read` of `total` bytes: as many as
// that part suggests, and at most one per 128 bytes (so that a log whose
// records crowd its start reserves no more than about its own size). A long
// log's records are a large vector, which growing by doubling would touch,
// and copy, about twice over.
constexpr std::size_t kSampleRecords = 4096;
void reserve_records(std::vector<KernelRecord>& records, std::size_t read, std::size_t total) {
  const double expected = static_cast<double>(records.size()) * static_cast<double>(total) / static_cast<double>(read);
  records.reserve(std::min(static_cast<std::size_t>(expected * 1.05), total / 128));
}

// Reading records line by line, with what carries from one line to the
// next (the group, the line number), so that a text read in pieces
// (KernelLogStream) gives what the whole text gives.
struct RecordReader {
  RecordReader(BadRecords b, KernelLogParse& o) : bad(b), out(o) {}

  BadRecords bad;
  KernelLogParse& out;
  int group = 0;
  bool broken = true;  // a blank or unrelated line since the last record
  std::optional<KernelRecordKind> last_kind;
  unsigned stats_in_group = 0;  // bit per cycle stat (largest, smallest, average)
  std::size_t line_no = 0;      // lines consumed so far
  bool mentions_record = false;  // some line holds an anchor
  std::size_t size_hint = 0;     // bytes of the whole text, for reserve_records (0: unknown)
  std::size_t bytes_before = 0;  // bytes of the text before the piece being read

  // Reads the records of the lines of `text` that start before `stop` into
  // out.records (groups numbered from 1) and out.result's counts,
  // warnings and notes; a wrapped record may take lines after `stop`.
  // Returns where the next line starts.
  std::size_t read(std::string_view text, std::size_t stop);
};

std::size_t RecordReader::read(std::string_view text, std::size_t stop) {
  ParseResult& res = out.result;
  std::size_t pos = 0;
  while (pos < stop) {
    const auto [line, after] = line_at(text, pos);
    ++line_no;
    pos = after;
    // Most lines of a log are no record: without an anchor anywhere in
    // them, their capture prefixes are read only where the line may be
    // nothing else (blank), which is not counted as ignored.
    if (find_anchor(line) == std::string_view::npos) {
      if (!may_be_bare_prefix(line) || !strip_capture_prefix(line).message.empty()) ++res.lines_ignored;
      broken = true;
      continue;
    }
    mentions_record = true;
    const KernelLogLine ll = strip_capture_prefix(line);
    const std::size_t a = find_anchor(ll.message);
    if (a == std::string_view::npos) {
      // An anchor inside a capture prefix is no record either.
      ++res.lines_ignored;
      broken = true;
      continue;
    }
    KernelRecord r;
    r.line = line_no;
    r.uptime_s = ll.uptime_s;
    r.wallclock = ll.wallclock;
    // Nearly every record is whole on its line; one that a mail client
    // wrapped is read from a copy joined with its following lines.
    const std::string_view first = ll.message.substr(a);
    std::string joined;
    std::size_t used = 1;
    std::size_t next_pos = pos;
    Match m = Match::unknown;
    try {
      m = match_record(first, r.line, r);
      if (m == Match::incomplete) joined = std::string(first);
      while (m == Match::incomplete && used <= 3 && next_pos < text.size()) {
        const auto [next_line, next_after] = line_at(text, next_pos);
        const std::string_view cont = strip_quote_markers(next_line);
        if (cont.empty() || has_capture_timestamp(next_line) || find_anchor(cont) != std::string_view::npos) break;
        joined += ' ';
        joined += cont;
        ++used;
        next_pos = next_after;
        m = match_record(joined, r.line, r);
      }
    } catch (const ParseError& e) {
      if (bad == BadRecords::fail) throw;
      res.warnings.push_back(fmt::format("line {}: inconsistent record skipped: {}", e.line, e.what()));
      res.lines_ignored += used;
      line_no += used - 1;
      broken = true;
      pos = next_pos;
      continue;
    }
    if (m == Match::source || m == Match::status) {
      res.notes.push_back(m == Match::status
                              ? fmt::format("line {}: RMPOPT status: {}", r.line, first)
                              : fmt::format("line {}: not a record, the source of its print: {}", r.line,
                                            std::string(ll.message.substr(0, 100))));
      res.lines_ignored += used;
      line_no += used - 1;
      broken = true;
      pos = next_pos;
      continue;
    }
    if (m == Match::earlier) {
      // Said, not guessed: what these counted is not what the later
      // prints do (cycles, not ns, per range; max./min. of what).
      res.warnings.push_back(fmt::format(
          "line {}: not read: an earlier form of the RMPOPT series' debug print ({}); kvmbench reads the later "
          "\"RMPOPT largest|smallest|average cycles N\" and \"RMPOPT execution time N ns for physical address "
          "range ...\"",
          r.line, std::string(first.substr(0, 60))));
      ++res.lines_ignored;
      broken = true;
      continue;
    }
    if (m != Match::ok) {
      // Only the line itself is given up: the lines after it are read again.
      res.warnings.push_back(
          fmt::format("line {}: incomplete or unknown record: {}", r.line, std::string(first.substr(0, 80))));
      ++res.lines_ignored;
      broken = true;
      continue;
    }
    if (used > 1) {
      // Its views point into `joined`: keep the text where it never moves
      // and read the record from there.
      out.joined.push_back(std::move(joined));
      match_record(out.joined.back(), r.line, r);
    }
    r.line_count = used;
    line_no += used - 1;
    pos = next_pos;
    const unsigned stat_bit = r.kind != KernelRecordKind::rmpopt_cycles ? 0u : 1u << static_cast<unsigned>(r.stat);
    if (broken || !last_kind || *last_kind != r.kind || (stats_in_group & stat_bit)) {
      ++group;
      stats_in_group = 0;
    }
    stats_in_group |= stat_bit;
    r.group = group;
    last_kind = r.kind;
    broken = false;
    out.records.push_back(r);
    if (out.records.size() == kSampleRecords && size_hint)
      reserve_records(out.records, bytes_before + pos, size_hint);
    ++res.records;
  }
  res.lines_read = line_no;
  return pos;
}

// The cycle stats' metrics, in CycleStat order: constants, not a string
// built and freed per sample.
constexpr std::string_view kCycleMetrics[] = {"rmpopt_cycles_largest", "rmpopt_cycles_smallest",
                                              "rmpopt_cycles_average"};

// The samples of the records, in order, and the record of each; iterations
// count records of the same case and kind in file order, from 0.
void build_samples(const std::vector<KernelRecord>& records, std::vector<Sample>& out,
                   std::vector<std::uint32_t>& record_of) {
  std::map<std::uint64_t, int> sweeps_seen;       // by range size
  std::map<std::uint64_t, int> conversions_seen;  // by nr_pages
  out.reserve(records.size() * 3);
  record_of.reserve(records.size() * 3);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const KernelRecord& r = records[i];
    auto add = [&](const std::string& case_name, std::string_view metric, std::string_view unit, double value,
                   int iteration) -> Sample& {
      record_of.push_back(static_cast<std::uint32_t>(i));
      Sample& s = out.emplace_back();
      s.case_name = case_name;
      s.metric = metric;
      s.unit = unit;
      s.value = value;
      s.iteration = iteration;
      return s;
    };
    switch (r.kind) {
      case KernelRecordKind::rmpopt_cycles:
        // Iteration 0 always: a group holds each stat at most once (a
        // repeated stat starts the next group).
        add("group=" + std::to_string(r.group), kCycleMetrics[static_cast<int>(r.stat)], "cycles", r.cycles, 0);
        break;
      case KernelRecordKind::rmpopt_sweep: {
        const std::uint64_t size = r.range_end >= r.range_start ? r.range_end - r.range_start : 0;
        Sample& s = add("range=" + format_bytes(size), "sweep_time", "ns", r.ns, sweeps_seen[size]++);
        // The range is part of what was measured (the report derives the
        // number of regions from it), not provenance: always in extra.
        s.extra["range_start"] = r.range_start_text;
        s.extra["range_end"] = r.range_end_text;
        s.extra["cpus"] = r.cpus;
        break;
      }
      case KernelRecordKind::to_shared: {
        const std::string case_name = "nr_pages=" + std::to_string(r.nr_pages);
        const int it = conversions_seen[r.nr_pages]++;
        add(case_name, "make_shared_cycles", "cycles", r.make_shared, it);
        add(case_name, "total_cycles", "cycles", r.total, it);
        if (r.total > 0) add(case_name, "make_shared_pct", "%", 100.0 * r.make_shared / r.total, it);
        break;
      }
    }
  }
}

// The samples of out.records, with their provenance where it goes.
void add_samples(KernelLogParse& out, Provenance provenance) {
  build_samples(out.records, out.result.samples, out.sample_record);
  if (provenance == Provenance::in_extra)
    for (std::size_t i = 0; i < out.result.samples.size(); ++i) {
      const nlohmann::ordered_json members = record_provenance(out.records[out.sample_record[i]]);
      for (const auto& [k, v] : members.items()) out.result.samples[i].extra[k] = v;
    }
}

}  // namespace

KernelLogParse parse_kernel_log_records(std::string_view text, Provenance provenance, BadRecords bad) {
  KernelLogParse out;
  out.result.format = "kernel-log";
  RecordReader reader(bad, out);
  reader.size_hint = text.size();
  reader.read(text, text.size());
  add_samples(out, provenance);
  return out;
}

ParseResult parse_kernel_log(std::string_view text, BadRecords bad) {
  return parse_kernel_log_records(text, Provenance::in_extra, bad).result;
}

namespace {

// Where the lines that start before it have three whole lines after them
// (all a wrapped record may take): after the fifth '\n' from the end; 0
// when there are fewer.
std::size_t lines_with_continuations(std::string_view text) {
  std::size_t at = text.size();
  for (int k = 0; k < 5; ++k) {
    if (at == 0) return 0;
    at = text.rfind('\n', at - 1);
    if (at == std::string_view::npos) return 0;
  }
  return at + 2;
}

}  // namespace

struct KernelLogStream::State {
  Provenance provenance;
  KernelLogParse out;
  RecordReader reader;
  std::string carry;             // the lines not read yet
  std::string* block = nullptr;  // the block of `out.joined` that record texts are copied into

  State(Provenance p, BadRecords bad, std::size_t size_hint) : provenance(p), reader(bad, out) {
    out.result.format = "kernel-log";
    reader.size_hint = size_hint;
  }

  // A copy of `s` that never moves (in blocks of out.joined).
  std::string_view keep(std::string_view s) {
    if (s.empty()) return {};
    if (!block || block->capacity() - block->size() < s.size()) {
      block = &out.joined.emplace_back();
      block->reserve(std::max<std::size_t>(64 * 1024, s.size()));
    }
    const std::size_t at = block->size();
    block->append(s);
    return std::string_view(*block).substr(at, s.size());
  }

  // Reads the lines of `text` that start before `stop`; the records read
  // get copies of their texts, which point into `text`. Returns where the
  // next line starts.
  std::size_t read(std::string_view text, std::size_t stop) {
    const std::size_t first = out.records.size();
    const std::size_t next = reader.read(text, stop);
    for (std::size_t i = first; i < out.records.size(); ++i) {
      KernelRecord& r = out.records[i];
      r.wallclock = keep(r.wallclock);
      r.range_start_text = keep(r.range_start_text);
      r.range_end_text = keep(r.range_end_text);
      r.cpus = keep(r.cpus);
    }
    reader.bytes_before += next;
    return next;
  }
};

KernelLogStream::KernelLogStream(Provenance provenance, BadRecords bad, std::size_t size_hint)
    : state_(std::make_unique<State>(provenance, bad, size_hint)) {}
KernelLogStream::KernelLogStream(KernelLogStream&&) noexcept = default;
KernelLogStream& KernelLogStream::operator=(KernelLogStream&&) noexcept = default;
KernelLogStream::~KernelLogStream() = default;

void KernelLogStream::feed(std::string_view piece) {
  State& st = *state_;
  std::size_t from = 0;  // where in `piece` the lines not read yet start
  if (!st.carry.empty()) {
    // The carried lines are read with as much of the piece as they may
    // take (up to its fourth line end), copied after them; the rest of
    // the piece is read where it is.
    std::size_t head = 0;
    for (int k = 0; k < 4; ++k) {
      head = piece.find('\n', head);
      if (head == std::string_view::npos) {
        st.carry.append(piece);
        return;
      }
      ++head;
    }
    const std::size_t carried = st.carry.size();
    st.carry.append(piece.substr(0, head));
    from = st.read(st.carry, carried) - carried;
    st.carry.clear();
  }
  const std::string_view rest = piece.substr(from);
  const std::size_t next = st.read(rest, lines_with_continuations(rest));
  st.carry.assign(rest.substr(std::min(next, rest.size())));
}

bool KernelLogStream::mentions_record() const { return state_->reader.mentions_record; }

KernelLogParse KernelLogStream::finish() {
  State& st = *state_;
  st.read(st.carry, st.carry.size());
  st.carry.clear();
  add_samples(st.out, st.provenance);
  return std::move(st.out);
}

std::string_view name_of(CycleStat s) {
  switch (s) {
    case CycleStat::largest: return "largest";
    case CycleStat::smallest: return "smallest";
    case CycleStat::average: return "average";
  }
  return "?";
}

// The key a record's case name shows ("nr_pages=N", "group=G"); none for a
// sweep, whose range is in extra already.
static std::optional<std::pair<std::string_view, std::int64_t>> record_key(const KernelRecord& r) {
  switch (r.kind) {
    case KernelRecordKind::rmpopt_cycles: return std::pair{std::string_view("group"), std::int64_t{r.group}};
    case KernelRecordKind::to_shared:
      return std::pair{std::string_view("nr_pages"), static_cast<std::int64_t>(r.nr_pages)};
    case KernelRecordKind::rmpopt_sweep: return std::nullopt;
  }
  return std::nullopt;
}

nlohmann::ordered_json record_provenance(const KernelRecord& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (auto key = record_key(r)) j["keys"] = {{std::string(key->first), key->second}};
  j["line"] = r.line;
  j["group"] = r.group;
  if (r.line_count > 1) j["lines"] = r.line_count;
  if (r.uptime_s) j["uptime_s"] = *r.uptime_s;
  if (!r.wallclock.empty()) j["wallclock"] = r.wallclock;
  return j;
}

void append_record_provenance(std::string& out, const KernelRecord& r) {
  // {"nr_pages":N} as nlohmann writes it (the key names need no escaping),
  // without building an object per record.
  if (auto key = record_key(r))
    fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"keys\":{{\"{}\":{}}}"), key->first, key->second);
  append_json_member(out, "line", static_cast<std::int64_t>(r.line));
  append_json_member(out, "group", std::int64_t{r.group});
  if (r.line_count > 1) append_json_member(out, "lines", static_cast<std::int64_t>(r.line_count));
  if (r.uptime_s) append_json_member(out, "uptime_s", *r.uptime_s);
  if (!r.wallclock.empty()) append_json_member(out, "wallclock", r.wallclock);
}

}  // namespace kvmbench::parsers
