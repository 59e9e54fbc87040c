// The RMPOPT sweep cost model (suites/rmpopt/model.h) on small cases
// computed by hand, and its calibration (suites/rmpopt/model_calibration.h) on
// synthetic figures and on the published ones.
#include <gtest/gtest.h>

#include <cmath>

#include "suites/rmpopt/model_calibration.h"
#include "suites/rmpopt/model.h"

namespace {

using namespace kvmbench::rmpopt;

constexpr std::uint64_t GiB = 1ULL << 30;

// Round numbers for hand arithmetic: TSC 1 GHz, so 1 cycle = 1 ns.
//   F = 100 cycles -> cyc(F) = 100 ns
//   c = 0.5 cycles/entry -> one CPU alone scans a region (E = 262144
//       entries) in 131072 ns
//   a = 1000 ns, b = 10 ns/CPU -> call(k) = 1000 + 10 k
//   B = 64e9 bytes/s -> 16 bytes/entry = 0.25 ns per entry per scanning CPU:
//       scan(k, E) = max(131072, k * 65536) ns: one or two CPUs are bound by
//       c, four CPUs by B (262144 ns).
CostParams hand_params() {
  CostParams p;
  p.fast_path_cycles = 100;
  p.scan_cycles_per_entry = 0.5;
  p.call_base_ns = 1000;
  p.call_per_cpu_ns = 10;
  p.bandwidth_bytes_per_s = 64e9;
  return p;
}

Machine machine(std::uint64_t regions, unsigned cpus, unsigned smt) {
  return Machine{regions * GiB, cpus, smt, 1e9};
}

Layout last_page() {
  Layout l;
  l.placement = Placement::last;
  return l;
}

TEST(RmpoptModel, OneCpuTwoEmptyRegionsAllCpus) {
  // Per region: call(1) = 1010, cyc(F) = 100, scan(1, E) = 131072
  // -> 132182 ns; two regions: 264364 ns.
  SweepResult r = model_sweep(machine(2, 1, 1), Layout{}, Strategy::all, hand_params());
  EXPECT_DOUBLE_EQ(r.wall_ns, 264364);
  EXPECT_DOUBLE_EQ(r.scan_ns, 262144);
  EXPECT_DOUBLE_EQ(r.call_ns, 2020);
  EXPECT_DOUBLE_EQ(r.fast_ns, 200);
  // Each of the two calls scans a whole region: 100 + 131072 cycles.
  EXPECT_EQ(r.rmpopt_calls, 2u);
  EXPECT_DOUBLE_EQ(r.min_call_cycles, 131172);
  EXPECT_DOUBLE_EQ(r.max_call_cycles, 131172);
  EXPECT_DOUBLE_EQ(r.mean_call_cycles, 131172);
  // The only CPU is the caller: busy for the whole sweep.
  EXPECT_EQ(r.mask_cpus, 1u);
  EXPECT_DOUBLE_EQ(r.caller_busy_ns, r.wall_ns);
  EXPECT_DOUBLE_EQ(r.total_cpu_ns, r.wall_ns);
}

TEST(RmpoptModel, FourCpusLastPageAllCpusIsBandwidthBound) {
  // k = 4 CPUs each scan all E entries of every region (an occupied region
  // is never optimised): scan(4, E) = max(131072, 4 * 65536) = 262144.
  // Per region: call(4) = 1040 + 100 + 262144 = 263284; two: 526568.
  SweepResult r = model_sweep(machine(2, 4, 1), last_page(), Strategy::all, hand_params());
  EXPECT_DOUBLE_EQ(r.wall_ns, 526568);
  EXPECT_DOUBLE_EQ(r.scan_ns, 524288);
  EXPECT_DOUBLE_EQ(r.call_ns, 2080);
  // 8 calls of 100 + 262144 cycles each.
  EXPECT_EQ(r.rmpopt_calls, 8u);
  EXPECT_DOUBLE_EQ(r.mean_call_cycles, 262244);
  // Each CPU: 2 x 262244 = 524488 ns; total = wall (caller) + 3 others.
  EXPECT_DOUBLE_EQ(r.mask_cpu_busy_ns, 524488);
  EXPECT_DOUBLE_EQ(r.total_cpu_ns, 526568 + 3 * 524488.0);
}

TEST(RmpoptModel, PrimaryThreadsLastPage) {
  // 4 CPUs, SMT 2 -> 2 primary threads, mask = the other one (k = 1), two
  // secondary threads idle. Per region: leader 100 + 131072, broadcast
  // call(1) = 1010 + 100 + scan(1, E) = 131072 -> 263354; two: 526708.
  SweepResult r = model_sweep(machine(2, 4, 2), last_page(), Strategy::primary, hand_params());
  EXPECT_EQ(r.mask_cpus, 1u);
  EXPECT_EQ(r.idle_cpus, 2u);
  EXPECT_DOUBLE_EQ(r.wall_ns, 526708);
  EXPECT_DOUBLE_EQ(r.scan_ns, 524288);
  EXPECT_DOUBLE_EQ(r.call_ns, 2020);
  EXPECT_DOUBLE_EQ(r.fast_ns, 400);
  // The mask CPU: 2 x (100 + 131072) = 262344; total 526708 + 262344.
  EXPECT_DOUBLE_EQ(r.mask_cpu_busy_ns, 262344);
  EXPECT_DOUBLE_EQ(r.total_cpu_ns, 789052);
  EXPECT_EQ(r.rmpopt_calls, 4u);
  EXPECT_DOUBLE_EQ(r.max_call_cycles, 131172);
}

TEST(RmpoptModel, OneDirtyOneCleanRegionAllCpus) {
  // 2 CPUs; region 1 clean: call(2) = 1020 + 100 = 1120; region 2 free and
  // dirty: 1020 + 100 + 131072 (one CPU scans for both) = 132192.
  Layout l;
  l.dirty_regions = 1;
  SweepResult r = model_sweep(machine(2, 2, 1), l, Strategy::all, hand_params());
  EXPECT_DOUBLE_EQ(r.wall_ns, 133312);
  // Calls: 2 fast (clean) + 1 scan (131172) + 1 fast = 4; mean
  // (3 * 100 + 131172) / 4 = 32868.
  EXPECT_EQ(r.rmpopt_calls, 4u);
  EXPECT_DOUBLE_EQ(r.min_call_cycles, 100);
  EXPECT_DOUBLE_EQ(r.max_call_cycles, 131172);
  EXPECT_DOUBLE_EQ(r.mean_call_cycles, 32868);
  // Per CPU: 100 (clean) + 100 + 131072 / 2 (the scan, shared out) = 65736.
  EXPECT_DOUBLE_EQ(r.mask_cpu_busy_ns, 65736);
  EXPECT_DOUBLE_EQ(r.total_cpu_ns, 133312 + 65736);
}

TEST(RmpoptModel, BitmapVisitsOnlyDirtyRegions) {
  // 4 regions, one dirty, 4 CPUs SMT 2 (k = 1). Dirty region: leader
  // 100 + 131072, then 1010 + 100 -> 132282. Primary also visits the 3 clean
  // ones: 100 + 1010 + 100 = 1210 each -> 132282 + 3630 = 135912.
  Layout l;
  l.dirty_regions = 1;
  SweepResult bitmap = model_sweep(machine(4, 4, 2), l, Strategy::bitmap, hand_params());
  SweepResult primary = model_sweep(machine(4, 4, 2), l, Strategy::primary, hand_params());
  EXPECT_EQ(bitmap.regions_visited, 1u);
  EXPECT_DOUBLE_EQ(bitmap.wall_ns, 132282);
  EXPECT_EQ(primary.regions_visited, 4u);
  EXPECT_DOUBLE_EQ(primary.wall_ns, 135912);
}

TEST(RmpoptModel, LeaderAloneMakesNoCall) {
  // 1 CPU: the leader has nobody to call. First page: scan(1, 1) = 0.5, so
  // each region costs 100 + 0.5; two regions 201.
  Layout l;
  l.placement = Placement::first;
  SweepResult r = model_sweep(machine(2, 1, 1), l, Strategy::leader, hand_params());
  EXPECT_EQ(r.mask_cpus, 0u);
  EXPECT_DOUBLE_EQ(r.call_ns, 0);
  EXPECT_DOUBLE_EQ(r.wall_ns, 201);
}

TEST(RmpoptModel, LayoutResolution) {
  Machine m = machine(10, 4, 2);
  // Random K pages: expected first assigned entry (E - K) / (K + 1), plus one
  // for the entry itself. K = 1: 262143 / 2 + 1 = 131072.5.
  auto r1 = parse_layout("random:1");
  ASSERT_TRUE(r1);
  EXPECT_DOUBLE_EQ(resolve_layout(m, *r1).entries_to_first_assigned, 131072.5);
  // K = E: every page assigned, the first entry stops it.
  auto all = parse_layout("random:262144");
  ASSERT_TRUE(all);
  EXPECT_DOUBLE_EQ(resolve_layout(m, *all).entries_to_first_assigned, 1);
  // 3 occupied regions, 5 dirty: 5 of the 7 free ones are dirty, 2 clean.
  Layout l = last_page();
  l.occupied_regions = 3;
  l.dirty_regions = 5;
  RegionMix mix = resolve_layout(m, l);
  EXPECT_EQ(mix.regions, 10u);
  EXPECT_EQ(mix.free_dirty, 5u);
  EXPECT_EQ(mix.occupied_dirty, 0u);
  EXPECT_EQ(mix.clean, 2u);
  // Dirty beyond the free ones spills into the occupied ones.
  l.dirty_regions = 9;
  mix = resolve_layout(m, l);
  EXPECT_EQ(mix.free_dirty, 7u);
  EXPECT_EQ(mix.occupied_dirty, 2u);
  EXPECT_EQ(mix.clean, 0u);
  // Memory rounds up to whole regions.
  EXPECT_EQ(resolve_layout(Machine{GiB + 1, 1, 1, 1e9}, Layout{}).regions, 2u);
}

TEST(RmpoptModel, RejectsImpossibleInput) {
  EXPECT_THROW(resolve_layout(machine(2, 3, 2), Layout{}), std::invalid_argument);
  EXPECT_THROW(resolve_layout(machine(2, 0, 1), Layout{}), std::invalid_argument);
  Layout l;
  l.dirty_regions = 3;
  EXPECT_THROW(resolve_layout(machine(2, 1, 1), l), std::invalid_argument);
  l = Layout{};
  l.occupied_regions = 1;  // with placement none
  EXPECT_THROW(resolve_layout(machine(2, 1, 1), l), std::invalid_argument);
  CostParams p = hand_params();
  p.bandwidth_bytes_per_s = 0;
  EXPECT_THROW(model_sweep(machine(2, 1, 1), Layout{}, Strategy::all, p), std::invalid_argument);
  EXPECT_FALSE(parse_layout("random:0"));
  EXPECT_FALSE(parse_layout("random:x"));
  EXPECT_FALSE(parse_layout("random:262145"));
  EXPECT_FALSE(parse_layout("middle"));
  EXPECT_FALSE(parse_strategy("fastest"));
  EXPECT_EQ(parse_strategy("primary"), Strategy::primary);
}

// ---- calibration ----

CostParams true_params() {
  CostParams p;
  p.fast_path_cycles = 60;
  p.scan_cycles_per_entry = 1.1;
  p.call_base_ns = 4000;
  p.call_per_cpu_ns = 150;
  p.bandwidth_bytes_per_s = assumed_bandwidth_bytes_per_s();
  return p;
}

// The published scenarios with values the model gives for true_params(),
// each scaled by (1 + noise[i]).
std::vector<PublishedFigure> synthetic(const Machine& m, const std::vector<double>& noise) {
  auto figs = published_figures();
  for (std::size_t i = 0; i < figs.size(); ++i)
    figs[i].value = model_value(m, figs[i], true_params()) * (1 + noise[i % noise.size()]);
  return figs;
}

TEST(RmpoptCalibration, RecoversParametersFromExactSyntheticData) {
  Machine m = posted_machine_assumption();
  Calibration cal = calibrate(m, assumed_bandwidth_bytes_per_s(), synthetic(m, {0.0}));
  EXPECT_TRUE(cal.converged);
  EXPECT_NEAR(cal.params.fast_path_cycles, 60, 60 * 1e-6);
  EXPECT_NEAR(cal.params.scan_cycles_per_entry, 1.1, 1.1 * 1e-6);
  EXPECT_NEAR(cal.params.call_base_ns, 4000, 4000 * 1e-5);
  EXPECT_NEAR(cal.params.call_per_cpu_ns, 150, 150 * 1e-6);
  EXPECT_LT(cal.rms_rel_error, 1e-8);
}

TEST(RmpoptCalibration, RecoversParametersFromNoisySyntheticData) {
  // Fixed +-1% perturbations (no random generator: the test must not
  // depend on a library's distribution algorithm).
  const std::vector<double> noise = {0.004, -0.007, 0.01, -0.003, 0.006, -0.01,
                                     0.008, -0.005, 0.002, -0.009, 0.007, -0.001};
  Machine m = posted_machine_assumption();
  Calibration cal = calibrate(m, assumed_bandwidth_bytes_per_s(), synthetic(m, noise));
  EXPECT_TRUE(cal.converged);
  const CostParams t = true_params();
  const double truth[] = {t.fast_path_cycles, t.scan_cycles_per_entry, t.call_base_ns,
                          t.call_per_cpu_ns};
  ASSERT_GE(cal.estimates.size(), 4u);
  for (int j = 0; j < 4; ++j) {
    const auto& e = cal.estimates[j];
    SCOPED_TRACE(e.name);
    ASSERT_TRUE(std::isfinite(e.stderr_));
    EXPECT_GT(e.stderr_, 0);
    // Within 4 standard errors of the truth, and the fit error is the
    // noise's size, not more.
    EXPECT_LT(std::abs(e.value - truth[j]), 4 * e.stderr_ + 1e-9 * truth[j]);
  }
  EXPECT_LT(cal.rms_rel_error, 0.01);
  EXPECT_GT(cal.rms_rel_error, 0.0);
}

TEST(RmpoptCalibration, PublishedFitReportsItsOwnResiduals) {
  Machine m = posted_machine_assumption();
  const auto figs = published_figures();
  Calibration cal = calibrate(m, assumed_bandwidth_bytes_per_s(), figs);
  ASSERT_TRUE(cal.converged);
  ASSERT_EQ(cal.figures.size(), figs.size());
  // Every printed error is the model's value at the fitted parameters.
  double ss = 0;
  std::size_t n = 0;
  for (const auto& f : cal.figures) {
    double v = model_value(m, f.figure, cal.params);
    EXPECT_DOUBLE_EQ(f.model, v) << f.figure.label;
    EXPECT_DOUBLE_EQ(f.rel_error, (v - f.figure.value) / f.figure.value) << f.figure.label;
    if (f.figure.fitted) {
      ss += f.rel_error * f.rel_error;
      ++n;
    }
  }
  EXPECT_EQ(n, cal.fitted_figures);
  EXPECT_NEAR(cal.rms_rel_error, std::sqrt(ss / n), 1e-12);
  EXPECT_DOUBLE_EQ(cal.dof, static_cast<double>(n) - 4);
  // It is a least-squares minimum: moving any parameter that is not on its
  // bound, either way, does not lower the sum of squares.
  auto cost = [&](const CostParams& p) {
    double s = 0;
    for (const auto& f : figs)
      if (f.fitted) {
        double r = (model_value(m, f, p) - f.value) / f.value;
        s += r * r;
      }
    return s;
  };
  const double best = cost(cal.params);
  double* fields[] = {nullptr, nullptr, nullptr, nullptr};
  for (int j = 0; j < 4; ++j) {
    for (double dir : {-1.0, 1.0}) {
      CostParams p = cal.params;
      fields[0] = &p.fast_path_cycles;
      fields[1] = &p.scan_cycles_per_entry;
      fields[2] = &p.call_base_ns;
      fields[3] = &p.call_per_cpu_ns;
      double step = 1e-3 * std::max(std::abs(*fields[j]), j == 2 ? 100.0 : 1e-3);
      if (*fields[j] + dir * step < 0) continue;  // the bound
      *fields[j] += dir * step;
      EXPECT_GE(cost(p), best * (1 - 1e-9)) << "parameter " << j << " dir " << dir;
    }
  }
  // Nothing published involves CPUs scanning at once: B is undetermined.
  ASSERT_EQ(cal.estimates.size(), 5u);
  EXPECT_EQ(cal.estimates[4].symbol, "B");
  EXPECT_FALSE(cal.estimates[4].determined);
  // The smallest-cycle figures (60 and 60) pin F.
  EXPECT_NEAR(cal.params.fast_path_cycles, 60, 0.5);
}

TEST(RmpoptCalibration, WallFiguresCannotTellCpuCountOrTscRateApart) {
  // What the sensitivity table claims: the fit error is the same whatever
  // the posted machine's CPU count and TSC rate are assumed to be.
  auto cals = sensitivity({128, 512}, {2.0e9, 2.7e9}, 2, assumed_bandwidth_bytes_per_s(),
                          published_figures());
  ASSERT_EQ(cals.size(), 4u);
  for (const auto& c : cals) EXPECT_NEAR(c.rms_rel_error, cals[0].rms_rel_error, 1e-3);
  // c is in TSC cycles: it scales with the TSC rate.
  EXPECT_NEAR(cals[1].params.scan_cycles_per_entry / cals[0].params.scan_cycles_per_entry, 2.7 / 2.0,
              1e-3);
}

TEST(RmpoptCalibration, PredictionMatchesModelAndCarriesTheFitError) {
  Machine m = posted_machine_assumption();
  Calibration cal = calibrate(m, assumed_bandwidth_bytes_per_s(), published_figures());
  Prediction p = predict(cal, m, last_page(), Strategy::primary);
  EXPECT_DOUBLE_EQ(p.sweep.wall_ns, model_sweep(m, last_page(), Strategy::primary, cal.params).wall_ns);
  ASSERT_TRUE(std::isfinite(p.wall_se_ns));
  EXPECT_GT(p.wall_se_ns, 0);
  EXPECT_LT(p.wall_ci95_low_ns, p.sweep.wall_ns);
  EXPECT_GT(p.wall_ci95_high_ns, p.sweep.wall_ns);
}

TEST(RmpoptCalibration, TooFewFiguresIsAnError) {
  auto figs = published_figures();
  for (auto& f : figs) f.fitted = false;
  figs[0].fitted = true;
  EXPECT_THROW(calibrate(posted_machine_assumption(), 1e12, figs), std::invalid_argument);
}

}  // namespace
