#include "analysis/parsers/kernel_log.h"

#include <fmt/format.h>

#include <array>
#include <unordered_map>
#include <cctype>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <exception>
#include <iterator>
#include <future>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "analysis/huge_pages.h"
#include "analysis/parsers/kernel_log_prefix.h"
#include "analysis/parsers/multi_find.h"
#include "analysis/sample_jsonl.h"
#include "analysis/units.h"

namespace kvmbench::parsers {

namespace {

constexpr std::array<std::string_view, 3> kAnchors = {"SEV-SNP: RMPOPT", "guest_memfd to_shared:",
                                                      "SEV-SNP: RMP optimizations"};

// Position of the first record anchor in `s`, or npos.
const MultiFinder& anchor_finder() {
  static const MultiFinder finder(kAnchors);
  return finder;
}
std::size_t find_anchor(std::string_view s) { return anchor_finder().find(s).pos; }

// Outcome of reading one record from text that starts at an anchor.
// `source`: the anchor is in a print's own source (a patch quoted in a
// mail: pr_err("guest_memfd to_shared: nr_pages=%lu, ..."), whose values
// are printf conversions): not a record. `status`: one of the RMPOPT
// series' status lines (kRmpoptNotEnabled, kRmpoptEnabled).
enum class Match { ok, incomplete, unknown, source, status };

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
  return find_anchor(text) != std::string_view::npos;
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

// False when `t` (ending in ']') cannot end in a dmesg bracket prefix, so
// it has text after its prefixes: the last '[' before the end would have to
// open a plain uptime ("[  49.913402]") or a wall clock of at most 32
// characters with a ':' ("[Thu Mar  5 11:22:33 2026]"). Lines of a log that
// end in ']' for other reasons ("... range [0x... - 0x...]") are told
// unrelated without stripping their prefixes. True means: ask
// strip_capture_prefix.
bool may_end_in_bracket_prefix(std::string_view t) {
  std::size_t i = t.size() - 1;  // the ']'
  while (i > 0 && ((t[i - 1] >= '0' && t[i - 1] <= '9') || t[i - 1] == '.' || t[i - 1] == ' ' || t[i - 1] == '\t' ||
                   t[i - 1] == '\r'))
    --i;
  if (i > 0 && t[i - 1] == '[') return true;  // an uptime
  const std::size_t from = t.size() - 1 > 33 ? t.size() - 1 - 33 : 0;
  // The first '[' in reach: a ':' after the prefix's own '[' is after it.
  const std::size_t open = t.substr(from, t.size() - 1 - from).find('[');
  return open != std::string_view::npos && t.substr(from + open).find(':') != std::string_view::npos;
}

// A line without an anchor is blank or unrelated. Its message can only be
// empty when the line ends like a capture prefix (']', ';', "kernel:"), so
// only then is the (slower) prefix stripping needed to tell which.
bool is_blank_line(std::string_view line) {
  // Quick answer for nearly every line of a log: one that ends in a
  // character no blank line ends in (after blanks: ']' ';' ':' of a
  // prefix, '>' of a bare quote) has text.
  std::size_t end = line.size();
  while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r')) --end;
  if (end == 0) return true;
  const char last = line[end - 1];
  if (last != ']' && last != ';' && last != ':' && last != '>') return false;
  std::string_view t = strip_quote_markers(line);
  if (t.empty()) return true;
  if (t.back() == ']' && !may_end_in_bracket_prefix(t)) return false;
  return (t.back() == ']' || t.back() == ';' || t.back() == ':') && strip_capture_prefix(line).message.empty();
}

struct UnrelatedLines {
  std::size_t lines = 0, non_blank = 0;
};

// Whether a line ending in `c` might be blank (only capture prefixes or
// blanks): the last character of a prefix (']' ';' ':'), of a bare quote
// ('>'), a blank, or '\n' for an empty line.
bool may_end_blank_line(char c) {
  return c == ']' || c == ';' || c == ':' || c == '>' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

#if defined(__x86_64__)
// The newlines of span[i..] 32 bytes at a time, on CPUs with AVX2: they
// are counted (a popcount per block), and only those after a character a
// blank line may end in are handed to `maybe_blank` (a superset of
// may_end_blank_line: every byte up to ' ', ':' to '>', and ']'), so the
// loop has no branch per line. `prev_may_end`: whether span[i - 1] is such
// a character (true at the start, where an empty first line may be).
template <class MaybeBlank>
__attribute__((target("avx2,popcnt"))) std::size_t count_newlines_avx2(std::string_view span, std::size_t& i,
                                                                       bool prev_may_end, MaybeBlank&& maybe_blank) {
  const __m256i nl = _mm256_set1_epi8('\n'), space = _mm256_set1_epi8(' '), colon = _mm256_set1_epi8(':'),
                four = _mm256_set1_epi8(4), bracket = _mm256_set1_epi8(']');
  std::size_t lines = 0;
  std::uint64_t carry = prev_may_end ? 1 : 0;
  for (; i + 32 <= span.size(); i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(span.data() + i));
    const auto newlines = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl)));
    if (!newlines) {
      carry = static_cast<std::uint8_t>(span[i + 31]) <= ' ' || span[i + 31] == ']' ||
              (span[i + 31] >= ':' && span[i + 31] <= '>');
      continue;
    }
    const __m256i low = _mm256_cmpeq_epi8(_mm256_min_epu8(v, space), v);  // <= ' '
    const __m256i off = _mm256_sub_epi8(v, colon);
    const __m256i punct = _mm256_cmpeq_epi8(_mm256_min_epu8(off, four), off);  // ':' to '>'
    const auto ends = static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(low, punct), _mm256_cmpeq_epi8(v, bracket))));
    std::uint32_t candidates = newlines & static_cast<std::uint32_t>((std::uint64_t{ends} << 1) | carry);
    carry = ends >> 31;
    lines += static_cast<std::size_t>(__builtin_popcount(newlines));
    while (candidates) {
      maybe_blank(i + static_cast<std::size_t>(__builtin_ctz(candidates)));
      candidates &= candidates - 1;
    }
  }
  return lines;
}
#endif

// Counts the lines of a stretch without records, and those with text: most
// of a months-long log, so newlines are counted by the block where the CPU
// can (AVX2), and only a line that ends like a blank one might gets the
// full is_blank_line test.
UnrelatedLines count_unrelated_lines(std::string_view span) {
  UnrelatedLines u;
  std::size_t blank = 0;
  // The line that ends at `end` (a newline's position, or the span's end).
  auto check_line_ending_at = [&](std::size_t end) {
    const void* nl = end ? ::memrchr(span.data(), '\n', end) : nullptr;
    const std::size_t start = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - span.data()) + 1 : 0;
    if (is_blank_line(span.substr(start, end - start))) ++blank;
  };
  std::size_t i = 0;
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  if (avx2) u.lines += count_newlines_avx2(span, i, true, check_line_ending_at);
#endif
  const char* const base = span.data();
  while (i < span.size()) {
    const void* nl = std::memchr(base + i, '\n', span.size() - i);
    if (!nl) break;
    const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
    ++u.lines;
    if (at == 0 || may_end_blank_line(span[at - 1])) check_line_ending_at(at);
    i = at + 1;
  }
  if (!span.empty() && span.back() != '\n') {  // a last line without its newline
    ++u.lines;
    if (may_end_blank_line(span.back())) check_line_ending_at(span.size());
  }
  u.non_blank = u.lines - blank;
  return u;
}

}  // namespace

namespace {

// Parses the records of `text`, whose first line is line `first_line` of
// the file, into out.records (groups numbered from 1) and out.result's
// counts and warnings; no samples.
void parse_records_into(std::string_view text, std::size_t first_line, BadRecords bad, KernelLogParse& out) {
  ParseResult& res = out.result;
  int group = 0;
  bool broken = true;  // a blank or unrelated line since the last record
  std::optional<KernelRecordKind> last_kind;
  unsigned stats_in_group = 0;  // bit per cycle stat (largest, smallest, average)

  // Room for a dense log's records up front (one in ~500 bytes; a sparse
  // log leaves most of it untouched, so never faulted in): growing the
  // vector moved them over and over.
  out.records.reserve(out.records.size() + text.size() / 512 + 16);
  advise_huge_pages(out.records);
  LineCursor cur{text};
  std::size_t line_no = first_line - 1;  // lines consumed so far
  while (!cur.done()) {
    const std::size_t anchor = anchor_finder().find(text, cur.pos).pos;
    // Start of the line holding the next anchor (or the end of the text).
    std::size_t anchor_line = text.size();
    if (anchor != std::string_view::npos) {
      anchor_line = anchor;
      while (anchor_line > cur.pos && text[anchor_line - 1] != '\n') --anchor_line;
    }
    // The lines before it are blank or unrelated.
    if (cur.pos < anchor_line) {
      const UnrelatedLines u = count_unrelated_lines(text.substr(cur.pos, anchor_line - cur.pos));
      res.lines_ignored += u.non_blank;
      line_no += u.lines;
      broken = true;
      cur.pos = anchor_line;
    }
    if (cur.done()) break;

    auto [line, after] = cur.line_at(cur.pos);
    ++line_no;
    KernelLogLine ll = strip_capture_prefix(line);
    // The anchor found above, when it lies in the message (nearly always:
    // the first anchor of the line is the message's unless a capture prefix
    // held one); otherwise searched again.
    const std::size_t msg_at = static_cast<std::size_t>(ll.message.data() - text.data());
    std::size_t a = anchor >= msg_at && anchor < msg_at + ll.message.size() ? anchor - msg_at : find_anchor(ll.message);
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
    // Nearly every record is whole on its line: match the line itself, and
    // build a joined copy only for a record that a mail client wrapped.
    std::string joined;
    std::size_t used = 1;
    std::size_t next_pos = after;
    Match m = Match::unknown;
    try {
      m = match_record(ll.message.substr(a), r.line, r);
      if (m == Match::incomplete) joined = std::string(ll.message.substr(a));
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
    } catch (const ParseError& e) {
      if (bad == BadRecords::fail) throw;
      res.warnings.push_back(fmt::format("line {}: inconsistent record skipped: {}", e.line, e.what()));
      res.lines_ignored += used;
      line_no += used - 1;
      broken = true;
      cur.pos = next_pos;
      continue;
    }
    if (m == Match::source || m == Match::status) {
      res.notes.push_back(m == Match::status
                              ? fmt::format("line {}: RMPOPT status: {}", r.line, ll.message.substr(a))
                              : fmt::format("line {}: not a record, the source of its print: {}", r.line,
                                            std::string(ll.message.substr(0, 100))));
      res.lines_ignored += used;
      line_no += used - 1;
      broken = true;
      cur.pos = next_pos;
      continue;
    }
    if (m != Match::ok) {
      res.warnings.push_back(fmt::format("line {}: incomplete or unknown record: {}", r.line,
                                         std::string(ll.message.substr(a, 80))));
      ++res.lines_ignored;
      broken = true;
      cur.pos = after;
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
    cur.pos = next_pos;
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
    ++res.records;
  }
  res.lines_read = line_no - (first_line - 1);
}

// "line N: ..." as "line N+offset: ...".
std::string renumber_warning(const std::string& w, std::size_t offset) {
  constexpr std::string_view prefix = "line ";
  std::size_t n = 0;
  if (!std::string_view(w).starts_with(prefix)) return w;
  auto [p, ec] = std::from_chars(w.data() + prefix.size(), w.data() + w.size(), n);
  if (ec != std::errc()) return w;
  return fmt::format("line {}{}", n + offset, std::string_view(p, w.data() + w.size() - p));
}

// Where a long log can be cut in two and parsed on two cores with the same
// result as in one pass: at the start of a line that carries a capture
// timestamp and no record. Such a line is never the tail of a wrapped
// record, and (being unrelated) always ends a group, so nothing before it
// affects how the records after it are read. npos when there is none near
// the middle (e.g. a capture without timestamps): then one pass.
std::size_t split_point(std::string_view text) {
  std::size_t pos = text.find('\n', text.size() / 2);
  for (int tries = 0; tries < 10000 && pos != std::string_view::npos && pos + 1 < text.size(); ++tries) {
    const std::size_t start = pos + 1;
    pos = text.find('\n', start);
    const std::string_view line = text.substr(start, (pos == std::string_view::npos ? text.size() : pos) - start);
    if (has_capture_timestamp(line) && find_anchor(line) == std::string_view::npos) return start;
  }
  return std::string_view::npos;
}

}  // namespace

namespace {

// Samples from records, in order; iterations count records of the same case
// and kind, keyed by numbers rather than strings (this runs per record of a
// months-long log), and each case name is made once per key.
struct SampleBuilder {
  struct Next {
    int iteration = 0;
    Label case_name;
  };
  std::unordered_map<std::uint64_t, Next> sweep_next;      // range size
  std::unordered_map<std::uint64_t, Next> to_shared_next;  // nr_pages
  Label group_case;
  int group_case_of = 0;

  static std::uint64_t range_size(const KernelRecord& r) {
    return r.range_end >= r.range_start ? r.range_end - r.range_start : 0;
  }
  const Label& group_case_name(int group) {
    if (group_case_of != group) {
      group_case = Label("group=" + std::to_string(group));
      group_case_of = group;
    }
    return group_case;
  }

  // Samples of records[from..] appended to out, their record index to record_of.
  void add(const std::vector<KernelRecord>& records, std::size_t from, std::vector<Sample>& out,
           std::vector<std::uint32_t>& record_of) {
    static const Label cycle_metric[] = {"rmpopt_cycles_largest", "rmpopt_cycles_smallest", "rmpopt_cycles_average"};
    static const Label make_shared_cycles = "make_shared_cycles", total_cycles = "total_cycles",
                       make_shared_pct = "make_shared_pct", sweep_time = "sweep_time", cycles = "cycles", ns = "ns",
                       percent = "%";
    out.reserve(out.size() + (records.size() - from) * 3);
    advise_huge_pages(out);
    record_of.reserve(record_of.size() + (records.size() - from) * 3);
    for (std::size_t i = from; i < records.size(); ++i) {
      const KernelRecord& r = records[i];
      auto add_one = [&](const Label& case_name, const Label& metric, const Label& unit, double value,
                         int iteration) -> Sample& {
        Sample& s = out.emplace_back();
        s.case_name = case_name;
        s.metric = metric;
        s.unit = unit;
        s.value = value;
        s.iteration = iteration;
        record_of.push_back(static_cast<std::uint32_t>(i));
        return s;
      };
      switch (r.kind) {
        case KernelRecordKind::rmpopt_cycles:
          // Iteration 0 always: a group holds each stat at most once (a
          // repeated stat starts the next group), so each (group, stat)
          // series has one sample.
          add_one(group_case_name(r.group), cycle_metric[static_cast<int>(r.stat)], cycles, r.cycles, 0);
          break;
        case KernelRecordKind::rmpopt_sweep: {
          const std::uint64_t size = range_size(r);
          Next& n = sweep_next[size];
          if (n.case_name.empty()) n.case_name = Label("range=" + format_bytes(size));
          Sample& s = add_one(n.case_name, sweep_time, ns, r.ns, n.iteration++);
          // The range is part of what was measured (the report derives the
          // number of regions from it), not provenance: always in extra.
          s.extra["range_start"] = r.range_start_text;
          s.extra["range_end"] = r.range_end_text;
          s.extra["cpus"] = r.cpus;
          break;
        }
        case KernelRecordKind::to_shared: {
          Next& n = to_shared_next[r.nr_pages];
          if (n.case_name.empty()) n.case_name = Label("nr_pages=" + std::to_string(r.nr_pages));
          const int it = n.iteration++;
          add_one(n.case_name, make_shared_cycles, cycles, r.make_shared, it);
          add_one(n.case_name, total_cycles, cycles, r.total, it);
          if (r.total > 0) add_one(n.case_name, make_shared_pct, percent, 100.0 * r.make_shared / r.total, it);
          break;
        }
      }
    }
  }

  // How many records of r's key came before (its next iteration).
  int seen(const KernelRecord& r) const {
    const auto& m = r.kind == KernelRecordKind::rmpopt_sweep ? sweep_next : to_shared_next;
    const auto it = m.find(r.kind == KernelRecordKind::rmpopt_sweep ? range_size(r) : r.nr_pages);
    return it == m.end() ? 0 : it->second.iteration;
  }
};

// Puts each sample's provenance into its extra (Provenance::in_extra).
void provenance_into_extra(const std::vector<KernelRecord>& records, const std::vector<std::uint32_t>& record_of,
                           std::vector<Sample>& samples) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const KernelRecord& r = records[record_of[i]];
    nlohmann::json& extra = samples[i].extra;
    // Assigned key by key: nlohmann's initializer-list constructor is
    // several times slower.
    extra["line"] = r.line;
    extra["group"] = r.group;
    if (r.line_count > 1) extra["lines"] = r.line_count;
    if (r.uptime_s) extra["uptime_s"] = *r.uptime_s;
    if (!r.wallclock.empty()) extra["wallclock"] = r.wallclock;
  }
}

}  // namespace

KernelLogParse parse_kernel_log_records(std::string_view text, Provenance provenance, std::size_t two_threads_from,
                                        BadRecords bad) {
  KernelLogParse out;
  out.result.format = "kernel-log";
  std::vector<Sample>& samples = out.result.samples;
  const std::size_t cut = text.size() >= two_threads_from && std::thread::hardware_concurrency() > 1
                              ? split_point(text)
                              : std::string_view::npos;
  if (cut == std::string_view::npos) {
    parse_records_into(text, 1, bad, out);
    SampleBuilder().add(out.records, 0, samples, out.sample_record);
  } else {
    // Each half is parsed, and its samples built, on its own core. The
    // tail is read as if it began at line 1 with group 1 and no earlier
    // records. As soon as the head's records are read, the tail's thread
    // shifts its lines, groups and record numbers to follow them and
    // builds its samples (group case names right the first time); once
    // the head's samples are built, it continues the iterations of each
    // key from the head's count. The main thread then only appends.
    const std::string_view head = text.substr(0, cut), tail = text.substr(cut);
    struct HeadRead {
      std::size_t lines;
      int groups;
      std::uint32_t records;
    };
    std::promise<HeadRead> head_read;
    std::promise<void> head_built;
    auto head_read_later = head_read.get_future();
    auto head_built_later = head_built.get_future();
    KernelLogParse second;
    SampleBuilder head_builder;
    std::exception_ptr second_error;
    std::optional<ParseError> second_bad;
    std::thread worker([&] {
      try {
        parse_records_into(tail, 1, bad, second);
        const HeadRead h = head_read_later.get();  // throws when the head failed
        for (auto& r : second.records) {
          r.group += h.groups;  // the tail's first record always starts a new group: see split_point
          r.line += h.lines;
        }
        for (auto& w : second.result.warnings) w = renumber_warning(w, h.lines);
        for (auto& n : second.result.notes) n = renumber_warning(n, h.lines);
        SampleBuilder().add(second.records, 0, second.result.samples, second.sample_record);
        head_built_later.get();
        // Iterations continue from the head's count of the same key (a
        // log has a few keys: the last one asked answers most samples).
        std::unordered_map<std::uint64_t, int> sweep_offset, to_shared_offset;
        std::uint64_t last_pages = 0;
        int last_pages_offset = -1;
        for (std::size_t i = 0; i < second.result.samples.size(); ++i) {
          Sample& s = second.result.samples[i];
          const KernelRecord& r = second.records[second.sample_record[i]];
          second.sample_record[i] += h.records;
          if (r.kind == KernelRecordKind::rmpopt_sweep) {
            auto [it, fresh] = sweep_offset.try_emplace(SampleBuilder::range_size(r), 0);
            if (fresh) it->second = head_builder.seen(r);
            s.iteration += it->second;
          } else if (r.kind == KernelRecordKind::to_shared) {
            if (last_pages_offset < 0 || r.nr_pages != last_pages) {
              auto [it, fresh] = to_shared_offset.try_emplace(r.nr_pages, 0);
              if (fresh) it->second = head_builder.seen(r);
              last_pages = r.nr_pages;
              last_pages_offset = it->second;
            }
            s.iteration += last_pages_offset;
          }
        }
      } catch (const ParseError& e) {
        second_bad = e;
      } catch (...) {
        second_error = std::current_exception();
      }
    });
    try {
      parse_records_into(head, 1, bad, out);
      head_read.set_value({out.result.lines_read, out.records.empty() ? 0 : out.records.back().group,
                           static_cast<std::uint32_t>(out.records.size())});
      head_builder.add(out.records, 0, samples, out.sample_record);
      head_built.set_value();
    } catch (...) {
      // The tail's thread must not wait for a head that will not come.
      const auto e = std::current_exception();
      try { head_read.set_exception(e); } catch (const std::future_error&) {}
      try { head_built.set_exception(e); } catch (const std::future_error&) {}
      worker.join();
      throw;  // the first bad record of the file is in the head
    }
    worker.join();
    const std::size_t lines_before = out.result.lines_read;
    if (second_bad) throw ParseError(second_bad->line + lines_before, second_bad->what());
    if (second_error) std::rethrow_exception(second_error);
    // The records (the larger part) are appended on another core.
    std::thread records_mover([&] { append_advised(out.records, std::move(second.records)); });
    out.joined.splice(out.joined.end(), second.joined);
    append_advised(samples, std::move(second.result.samples));
    append_advised(out.sample_record, std::move(second.sample_record));
    records_mover.join();
    ParseResult& res = out.result;
    res.lines_read += second.result.lines_read;
    res.records += second.result.records;
    res.lines_ignored += second.result.lines_ignored;
    res.warnings.insert(res.warnings.end(), second.result.warnings.begin(), second.result.warnings.end());
    res.notes.insert(res.notes.end(), second.result.notes.begin(), second.result.notes.end());
  }
  if (provenance == Provenance::in_extra) {
    provenance_into_extra(out.records, out.sample_record, samples);
    out.sample_record = {};
  }
  return out;
}

ParseResult parse_kernel_log(std::string_view text, BadRecords bad) {
  return parse_kernel_log_records(text, Provenance::in_extra, kTwoThreadsFrom, bad).result;
}

std::string_view name_of(CycleStat s) {
  switch (s) {
    case CycleStat::largest: return "largest";
    case CycleStat::smallest: return "smallest";
    case CycleStat::average: return "average";
  }
  return "?";
}

void append_record_provenance(std::string& out, const KernelRecord& r) {
  // Written by pointer: this runs once per record of a months-long log.
  char buf[128];
  char* p = buf;
  auto text = [&p](std::string_view t) { p = std::copy_n(t.data(), t.size(), p); };
  auto count = [&p](std::size_t v) { p = std::to_chars(p, p + 20, v).ptr; };
  text("\"line\":");
  count(r.line);
  text(",\"group\":");
  p = std::to_chars(p, p + 12, r.group).ptr;
  if (r.line_count > 1) {
    text(",\"lines\":");
    count(r.line_count);
  }
  if (r.uptime_s) {
    text(",\"uptime_s\":");
    p = write_json_number(p, *r.uptime_s);
  }
  out.append(buf, p);
  if (!r.wallclock.empty()) {
    out += ",\"wallclock\":";
    append_json_string(out, r.wallclock);
  }
}

}  // namespace kvmbench::parsers
