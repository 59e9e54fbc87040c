// Kernel log capture: reads /dev/kmsg from "now" (the records printed while
// a measurement runs), keeps the sequence numbers and reports records the
// kernel overwrote before we read them (EPIPE, or a gap in the sequence).
// The same reader replays a saved capture (a file in the /dev/kmsg record
// format, "pri,seq,ts,flags;msg" lines, " KEY=value" dictionary lines) so
// the tests and `ingest` see exactly what a live run sees.
//
// Feeding the parsers of analysis/parse/: every record's `message` is one
// kernel log line; pass it with its seq and timestamp, e.g.
//   reader.run([&](const KmsgRecord& r) { parser.feed(r.message, r.seq, r.timestamp_us); }, stop);
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analysis/parse/kmsg_record.h"

namespace kvmbench::host {

struct KmsgLoss {
  std::uint64_t after_seq = 0;   // last record seen before the loss (0 with unknown_start)
  std::uint64_t count = 0;       // records missing (0 when not known, e.g. EPIPE at start)
  bool unknown_start = false;    // lost before the first record we saw
};

class KmsgReader {
 public:
  // Live: opens /dev/kmsg (or `device`, for tests with a fifo/file) non-blocking;
  // from_now seeks to the end so only new records are read. Throws
  // std::system_error when it cannot be opened (needs root when
  // kernel.dmesg_restrict=1).
  static KmsgReader open_live(bool from_now = true, const std::string& device = "/dev/kmsg");
  // Replay of a saved capture. Throws std::runtime_error when unreadable.
  static KmsgReader open_replay(const std::string& path);
  // Replay from text in memory.
  static KmsgReader from_text(std::string text);

  KmsgReader(KmsgReader&&) noexcept;
  KmsgReader& operator=(KmsgReader&&) noexcept;
  ~KmsgReader();

  // The next record; waits up to timeout_ms for one in live mode (0: do not
  // wait). nullopt when none arrived (live), at the end (replay), or when a
  // signal interrupted the wait. Lines of a replay that are not records are
  // counted in malformed() and skipped.
  std::optional<KmsgRecord> next(int timeout_ms = 100);

  // Calls `on_record` for each record until `stop` becomes true, the process
  // is interrupted (hostlib/os/interrupt.h), or a replay ends. Returns the
  // number of records delivered.
  std::size_t run(const std::function<void(const KmsgRecord&)>& on_record,
                  const std::atomic<bool>& stop, int poll_ms = 100);

  bool live() const;
  bool at_end() const;  // replay exhausted
  const std::vector<KmsgLoss>& losses() const;
  std::uint64_t lost_records() const;  // sum of known counts
  bool lost_unknown() const;            // a loss whose size is not known
  std::size_t malformed() const;
  std::optional<std::uint64_t> last_seq() const;

 private:
  struct State;
  explicit KmsgReader(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// Captures the kernel log in a background thread between start() and
// stop(), keeping every record (and the raw text, to store beside a run's
// samples). A filter keeps only the records of interest when the log is busy.
class KmsgCapture {
 public:
  explicit KmsgCapture(std::function<bool(const KmsgRecord&)> keep = {});
  ~KmsgCapture();
  // Opens /dev/kmsg at its end and starts the thread; throws like open_live.
  void start(const std::string& device = "/dev/kmsg");
  // Reads what is left (up to drain_ms), stops the thread, returns the records.
  std::vector<KmsgRecord> stop(int drain_ms = 200);
  std::uint64_t lost_records() const;
  bool lost_unknown() const;
  // Copies of what was captured so far (thread-safe).
  std::vector<KmsgRecord> records() const;

 private:
  std::function<bool(const KmsgRecord&)> keep_;
  std::optional<KmsgReader> reader_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<KmsgRecord> records_;
  std::uint64_t lost_ = 0;
  bool lost_unknown_ = false;
};

// Writes `message` into the kernel log as one record (/dev/kmsg takes a
// write as a record of the user facility; root only): a mark that orders
// what kvmbench did among the kernel's own lines. "" when written, else
// why not.
std::string mark_kernel_log(const std::string& message, const std::string& device = "/dev/kmsg");

}  // namespace kvmbench::host
