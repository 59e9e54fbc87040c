// Samples chosen /proc/meminfo fields in a background thread at a fixed
// rate, with monotonic timestamps: how the directmap suite watches the host
// allocate guest memory (FileHugePages, AnonHugePages, MemFree, ...). The
// text is parsed by analysis/parse/meminfo.h; rates come from analysis/stats/rate_fit.h.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kvmbench::host {

struct MeminfoSamplerOptions {
  std::vector<std::string> fields = {"FileHugePages", "AnonHugePages", "MemFree"};
  std::chrono::microseconds period{100000};  // 10 Hz
  std::string path = "/proc/meminfo";         // a node's meminfo or a test file also work
};

struct MeminfoPoint {
  std::int64_t monotonic_ns = 0;  // CLOCK_MONOTONIC (comparable with kernel log timestamps)
  double t_s = 0;                 // seconds since the sampler started
  // One value per field, in the order of options.fields (bytes for kB
  // fields, counts for HugePages_*); nullopt when the field was missing.
  std::vector<std::optional<std::uint64_t>> values;
};

class MeminfoSampler {
 public:
  explicit MeminfoSampler(MeminfoSamplerOptions options = {});
  ~MeminfoSampler();  // stops the thread
  MeminfoSampler(const MeminfoSampler&) = delete;
  MeminfoSampler& operator=(const MeminfoSampler&) = delete;

  // Takes one sample at once, then one per period. Throws std::runtime_error
  // when the file cannot be read or the period is not positive.
  void start();
  // Stops promptly (does not wait out the period). Idempotent.
  void stop();
  // Takes one sample in the calling thread (also allowed while running).
  void sample_now();

  const MeminfoSamplerOptions& options() const { return opt_; }
  std::vector<MeminfoPoint> points() const;
  // (t_s, value) of one field, samples where it was missing left out; the
  // shape analysis/stats/rate_fit.h takes. Throws std::invalid_argument for a
  // field that was not sampled.
  void series(const std::string& field, std::vector<double>& t_s, std::vector<double>& value) const;
  // Periods where the thread woke up later than one whole period after its
  // due time (a loaded machine): those samples are late, not lost.
  std::size_t late_samples() const { return late_.load(); }
  std::size_t read_errors() const { return errors_.load(); }

 private:
  void loop();
  bool take_sample();

  MeminfoSamplerOptions opt_;
  int fd_ = -1;
  std::int64_t t0_ns_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<MeminfoPoint> points_;
  std::atomic<std::size_t> late_{0}, errors_{0};
};

}  // namespace kvmbench::host
