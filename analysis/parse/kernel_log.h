// Kernel log records of the documents' instrumentation, from any capture
// (dmesg, dmesg -T, /dev/kmsg, journalctl -k, mail quotes, mail-wrapped):
//   SEV-SNP: RMPOPT largest|smallest|average cycles N
//   SEV-SNP: RMPOPT execution time N ns for physical address range 0xA - 0xB on all cpus
//   guest_memfd to_shared: nr_pages=N, make_shared=N cycles, total=N cycles
// Recognised and not read, with a warning that says so: the series'
// earlier debug prints (kRmpoptEarlierForms: "RMPOPT max. CPU cycles N",
// "min. CPU cycles N", "RMPOPT cycles taken for physical address range
// 0xA - 0xB on all cpus N cycles").
// Not records, and said so in ParseResult::notes: the RMPOPT series' own
// status lines (kRmpoptNotEnabled, kRmpoptEnabled after "SEV-SNP: "), and
// a record's print in source form, as a patch quoted in a mail has it
// (pr_err("guest_memfd to_shared: nr_pages=%lu, ..."): a value that is a
// printf conversion).
//
// Wrapped lines: when a line holds the start of a record but not all of it
// (a mail client broke it), the following lines are appended, joined by one
// space, until the record is complete (at most 3). A following line is never
// taken as a continuation when it is blank, carries its own capture
// timestamp, or starts another record.
//
// Groups (which print belongs with which, e.g. the boot-time vs the
// after-shutdown RMPOPT cycle stats): records on consecutive lines form one
// group; a blank line, any unrelated line, or a change of record kind starts
// a new group, and so does a cycle stat (largest/smallest/average) that the
// current group already has. Timestamps are kept but never used to group
// (the 1G conversions of one VM build are 7 s apart).
//
// Samples:
//   cycle stats  case "group=G" (extra keys.group: G), metric
//                "rmpopt_cycles_<stat>", unit "cycles"
//   sweep        case "range=<size>" (e.g. "range=2T"), metric "sweep_time",
//                unit "ns", extra range_start/range_end (hex, as printed), cpus
//   to_shared    case "nr_pages=N" (extra keys.nr_pages: N), metrics "make_shared_cycles",
//                "total_cycles" (unit "cycles") and "make_shared_pct" (unit "%")
// Every sample has extra "line" (first source line), "group", and "uptime_s"
// or "wallclock" when the capture had one; iteration counts records of the
// same case and kind in file order, from 0.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/parse/parse_result.h"

namespace kvmbench::parsers {

// What the RMPOPT series prints (after pr_fmt's "SEV-SNP: "), by revision
// (hostlib/facts/rmpopt_boot_state.h): v1-v3's refusal, v1-v2's and v3+'s range
// line of each sweep, v8+'s coverage limit.
inline constexpr std::string_view kRmpoptNotEnabled = "RMPOPT optimizations not enabled";
inline constexpr std::string_view kRmpoptEnabled = "RMP optimizations enabled on physical address range";
inline constexpr std::string_view kRmpoptAttempt = "Attempt RMP optimizations on physical address range";
inline constexpr std::string_view kRmpoptCoverage = "RMPOPT coverage limited to";
// The series' earlier debug prints: recognised and not read (a warning
// says so), since what they counted is not what the later prints count.
inline constexpr std::string_view kRmpoptEarlierForms[] = {
    "RMPOPT max. CPU cycles", "RMPOPT min. CPU cycles", "RMPOPT cycles taken for physical address range"};

enum class KernelRecordKind { rmpopt_cycles, rmpopt_sweep, to_shared };
enum class CycleStat { largest, smallest, average };
std::string_view name_of(CycleStat s);  // "largest", "smallest", "average"

// One record. Its texts are views into the parsed text, or into the joined
// text of a wrapped record (KernelLogParse::joined), valid while both live.
struct KernelRecord {
  KernelRecordKind kind = KernelRecordKind::to_shared;
  std::size_t line = 0;        // first physical line, 1-based
  std::size_t line_count = 1;  // physical lines it spans (>1 when wrapped)
  int group = 0;               // 1-based
  std::optional<double> uptime_s;
  std::string_view wallclock;
  // rmpopt_cycles
  CycleStat stat = CycleStat::largest;
  double cycles = 0;
  // rmpopt_sweep
  double ns = 0;
  std::uint64_t range_start = 0, range_end = 0;
  std::string_view range_start_text, range_end_text, cpus;
  // to_shared
  std::uint64_t nr_pages = 0;
  double make_shared = 0, total = 0;
};

// The joined lines of wrapped records, which their views point into; a list
// so that its strings never move.
using JoinedText = std::list<std::string>;

struct KernelLogParse {
  std::vector<KernelRecord> records;
  JoinedText joined;
  ParseResult result;  // format "kernel-log", samples built from records
  // The record of each sample (an index into records).
  std::vector<std::uint32_t> sample_record;
};

// Where a sample's keys (keys.nr_pages, keys.group: what its case name
// shows) and provenance (line, group, lines, uptime_s, wallclock) go: into
// Sample::extra, or nowhere (by_record: the caller takes them from the
// sample's record with record_provenance, as ingest does to write them
// after the sample's other members, without a JSON object per sample).
enum class Provenance { in_extra, by_record };

// Unrelated lines are counted in lines_ignored, incomplete or unknown
// records (e.g. another RMPOPT print) are reported in warnings. A record
// whose shape is complete but whose values are inconsistent throws
// ParseError naming its first line: a count that is negative, non-numeric,
// NaN/inf or beyond 64 bits, make_shared > total, total = 0, or an RMPOPT
// range whose end is below its start.
//
// With BadRecords::skip an inconsistent record is not an error but a
// warning, "line N: inconsistent record skipped: reason", and its lines count
// as ignored: a live run keeps going when the kernel under test prints one
// odd record (and says so), where ingest of a capture refuses it.
enum class BadRecords { fail, skip };
KernelLogParse parse_kernel_log_records(std::string_view text, Provenance provenance = Provenance::in_extra,
                                        BadRecords bad = BadRecords::fail);
ParseResult parse_kernel_log(std::string_view text, BadRecords bad = BadRecords::fail);

// The same for a text that comes in pieces (a log too large to hold, a
// pipe): feed() it in pieces of any size, in order, then finish(), which
// returns what parse_kernel_log_records gives for the whole text. Only
// what the parse keeps is held (the records and their texts, copied into
// `joined`), plus the lines not read yet: the last piece's unfinished line
// and the three lines before it, where a wrapped record may continue.
class KernelLogStream {
 public:
  // `size_hint`: the whole text's size where it is known (0: unknown), to
  // reserve room for the records once.
  explicit KernelLogStream(Provenance provenance = Provenance::in_extra, BadRecords bad = BadRecords::fail,
                           std::size_t size_hint = 0);
  KernelLogStream(KernelLogStream&&) noexcept;
  KernelLogStream& operator=(KernelLogStream&&) noexcept;
  ~KernelLogStream();

  // Throws ParseError as parse_kernel_log_records does, for the first
  // inconsistent record once its lines are there.
  void feed(std::string_view piece);
  // Whether a line read so far holds an anchor of a record (what
  // mentions_kernel_record says of the text so far, up to the lines not
  // read yet).
  bool mentions_record() const;
  KernelLogParse finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// True when some line holds the start of one of the records above.
bool mentions_kernel_record(std::string_view text);

// A record's keys and provenance, the members Provenance::in_extra puts
// into each of its samples' extra, in this order:
//   {["keys":{K:V},]"line":N,"group":G[,"lines":L][,"uptime_s":U][,"wallclock":"W"]}
nlohmann::ordered_json record_provenance(const KernelRecord& r);
// The same members as JSON text (append_sample_line's `more`), appended to
// `out`: what ingest writes after each of the record's samples.
void append_record_provenance(std::string& out, const KernelRecord& r);

}  // namespace kvmbench::parsers
