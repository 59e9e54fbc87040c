// A suite's metrics across kernels, from the results database: one series
// per machine, preset, parameters and case/variant/metric, one point per
// complete run (the mean of its repetitions: the run is the unit, so the
// points' spread is the between-run noise), in start-time order or in
// kernel release order; change points over all the series at once
// (change_points.h: E-divisive means, permutation test, Holm over every
// series scanned, a minimum segment and a magnitude floor).
//
// Runs whose source is emulated or model are left out (they are not
// performance figures), and so are runs that did not complete.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/model/series_key.h"
#include "analysis/stats/change_points.h"
#include "analysis/store/db/results_db.h"

namespace kvmbench {

enum class KernelOrder { time, release };

struct HistoryOptions {
  std::string suite;
  std::vector<std::string> metrics;  // metric names (the suite's primary ones when the user names none)
  // A fingerprint, a prefix of one (4+ characters) or a host name; empty:
  // every machine, each its own series.
  std::string machine;
  std::string preset;  // empty: any (each its own series)
  KernelOrder order = KernelOrder::time;
  changepoint::Options detect;
};

struct HistoryPoint {
  std::int64_t run_id = 0;
  std::string dir_name, kernel_release, start_time;
  double value = 0;     // mean of the run's non-warm-up samples of the series
  std::size_t n = 0;    // how many
};

struct HistorySeries {
  std::string machine, hostname, preset, parameters;
  SeriesKey key;
  std::vector<HistoryPoint> points;
  changepoint::SeriesResult result;
  std::string label() const;  // "thp/1-thread faultin_rate"
};

struct History {
  HistoryOptions options;
  std::vector<HistorySeries> series;  // by machine, preset, parameters, then first-seen order
  std::size_t runs = 0;               // runs the series were built from
  std::size_t left_out = 0;           // runs of the suite left out (emulated, model, not complete)
  std::size_t non_finite = 0;         // samples left out for a NaN or infinite value
  std::size_t change_points() const;
};

// Throws std::invalid_argument for a machine the database does not know
// (naming the ones it does) or a prefix that names several, and when there
// is no run of the suite (saying what the database has).
History build_history(db::ResultsDb& rdb, const HistoryOptions& opt);

}  // namespace kvmbench
