#include "suites/rmpopt/model_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/report/numbers.h"
#include "analysis/model/units.h"

namespace kvmbench::suites::rmpopt {

namespace {

constexpr const char* kSource = "model";
constexpr std::size_t kWidth = 80;

// Splits a note into lines of at most 80 columns (continuations indented).
void add_note(Table& t, const std::string& text) {
  std::string line;
  std::size_t pos = 0;
  bool first = true;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(pos, end - pos);
    pos = end + 1;
    std::string candidate = line.empty() ? (first ? "" : "  ") + word : line + " " + word;
    if (!line.empty() && candidate.size() > kWidth) {
      t.notes.push_back(line);
      first = false;
      line = "  " + word;
    } else {
      line = candidate;
    }
  }
  if (!line.empty()) t.notes.push_back(line);
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  return format_fixed(v, digits);
}

std::string sig(double v) {
  if (!std::isfinite(v)) return "n/a";
  return fmt::format("{:.4g}", v);
}

// Milliseconds with about four significant digits: 4008.6, 46.45, 0.046.
std::string ms(double ns) {
  double v = ns / 1e6;
  return fixed(v, std::abs(v) >= 100 ? 1 : std::abs(v) >= 1 ? 2 : 3);
}

// The same as a cell that holds the time in ns (JSON, CSV).
Cell ms_cell(double ns) { return std::isfinite(ns) ? Cell::number(ns, "ns", ms(ns)) : Cell(ms(ns)); }

std::string ghz(double hz) { return fmt::format("{:g}", hz / 1e9); }

std::string machine_text(const model::Machine& m) {
  return fmt::format("{} ({} regions of 1GB), {} CPUs (SMT {}), TSC {} GHz",
                     format_bytes(m.memory_bytes),
                     (m.memory_bytes + model::kRegionBytes - 1) / model::kRegionBytes, m.cpus,
                     m.smt, ghz(m.tsc_hz));
}

std::string layout_text(const model::Machine& m, const model::Layout& l) {
  model::RegionMix mix = model::resolve_layout(m, l);
  std::string where;
  switch (l.placement) {
    case model::Placement::none: where = "no assigned page anywhere"; break;
    case model::Placement::first: where = "one assigned page, the first 4K"; break;
    case model::Placement::last: where = "one assigned page, the last 4K"; break;
    case model::Placement::random:
      where = fmt::format("{} assigned pages at random", l.random_pages);
      break;
  }
  std::string text = fmt::format("layout {}: {}", model::layout_name(l), where);
  if (mix.occupied) {
    const std::string entries = fixed(mix.entries_to_first_assigned, 0);
    text += fmt::format(" in {} of {} regions (RMPOPT reads {} entr{} of each)", mix.occupied, mix.regions, entries,
                        entries == "1" ? "y" : "ies");
  }
  text += fmt::format("; {} regions dirty (bits cleared since the last sweep: {} free, {} "
                      "occupied; the bitmap strategy visits only these), {} clean",
                      mix.free_dirty + mix.occupied_dirty, mix.free_dirty, mix.occupied_dirty,
                      mix.clean);
  return text;
}

std::string params_text(const model::CostParams& p) {
  return fmt::format("parameters: F={} cycles, c={} cycles/entry, a={} ns, b={} ns/CPU, "
                     "B={} GB/s (assumed, not fitted)",
                     sig(p.fast_path_cycles), sig(p.scan_cycles_per_entry), sig(p.call_base_ns),
                     sig(p.call_per_cpu_ns), sig(p.bandwidth_bytes_per_s / 1e9));
}

std::string calibration_text(const model::Calibration& cal) {
  return fmt::format("calibrated on document 000 and its thread: rms error {}% over {} "
                     "figures; posted machine assumed {} CPUs, SMT {}, TSC {} GHz (the posts "
                     "do not say)",
                     fixed(100 * cal.rms_rel_error, 1), cal.fitted_figures, cal.machine.cpus,
                     cal.machine.smt, ghz(cal.machine.tsc_hz));
}

void add_common_assumptions(Table& t, const model::Calibration& cal) {
  add_note(t, calibration_text(cal));
  add_note(t, params_text(cal.params));
  add_note(t, "assumed: when several CPUs run RMPOPT on a free unoptimised region at once, one "
              "scans it and the others take the fast path; a failed verification (an occupied "
              "region) is not shared, so every CPU scans up to the first assigned entry, and "
              "CPUs scanning at once share B");
}

}  // namespace

Table sweep_table(const model::Calibration& cal, const SweepRequest& req) {
  Table t;
  t.title = fmt::format("# RMPOPT sweep, predicted: {}, layout {}", format_bytes(req.target.memory_bytes),
                        model::layout_name(req.layout));
  t.source = kSource;
  t.columns = {{"strategy", Align::left}, {"mask"},   {"wall ms"}, {"95% CI ±ms"},
               {"per CPU ms"},            {"CPU s"},  {"scan %"},  {"call %"}};
  for (model::Strategy s : req.strategies) {
    model::Prediction p = model::predict(cal, req.target, req.layout, s);
    const auto& r = p.sweep;
    double half = (p.wall_ci95_high_ns - p.wall_ci95_low_ns) / 2;
    auto pct = [&](double part) {
      const double v = r.wall_ns ? 100 * part / r.wall_ns : 0;
      return Cell::number(v, "%", fixed(v, 1));
    };
    t.add_row({std::string(model::strategy_name(s)), std::to_string(r.mask_cpus), ms_cell(r.wall_ns), ms_cell(half),
               ms_cell(r.mask_cpu_busy_ns), Cell::number(r.total_cpu_ns, "ns", fixed(r.total_cpu_ns / 1e9, 2)),
               pct(r.scan_ns), pct(r.call_ns)});
  }
  add_note(t, "target: " + machine_text(req.target));
  add_note(t, layout_text(req.target, req.layout));
  for (model::Strategy s : req.strategies)
    add_note(t, fmt::format("{}: {}", model::strategy_name(s), model::strategy_description(s)));
  add_note(t, "mask: CPUs the loop sends each region to; per CPU ms: busy time of each of them "
              "(the CPU running the loop is busy for the whole wall time); CPU s: all CPUs "
              "together; scan/call %: share of the wall time scanning RMP entries / in "
              "on_each_cpu_mask, the rest is RMPOPT's fast path");
  add_note(t, "95% CI ±ms: half-width of the wall time's 95% CI, in ms (not a percentage), from "
              "the fit's error on F, c, a, b only, not on B, the CPU count or the TSC rate");
  add_common_assumptions(t, cal);
  if (req.target.memory_bytes > (2ULL << 40))
    add_note(t, "RMPOPT covers at most 2TB of memory: larger sizes are an extrapolation");
  return t;
}

Table bandwidth_table(const model::Calibration& cal, const SweepRequest& req) {
  Table t;
  t.title = fmt::format("# RMPOPT sweep vs memory bandwidth: {}, layout {}, {} CPUs",
                        format_bytes(req.target.memory_bytes), model::layout_name(req.layout),
                        req.target.cpus);
  t.source = kSource;
  t.columns = {{"B GB/s"}};
  for (model::Strategy s : req.strategies)
    t.columns.push_back({fmt::format("{} ms", model::strategy_name(s))});
  const double assumed = cal.params.bandwidth_bytes_per_s;
  for (double factor : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    model::CostParams p = cal.params;
    p.bandwidth_bytes_per_s = assumed * factor;
    std::vector<Cell> row{Cell::number(p.bandwidth_bytes_per_s, "B/s",
                                       fixed(p.bandwidth_bytes_per_s / 1e9, 0) + (factor == 1.0 ? "*" : ""))};
    for (model::Strategy s : req.strategies) {
      const double wall = model::model_sweep(req.target, req.layout, s, p).wall_ns;
      row.push_back(Cell::number(wall, "ns", fixed(wall / 1e6, 1)));
    }
    t.add_row(std::move(row));
  }
  add_note(t, "*: the assumed bandwidth. B only matters when several CPUs scan at once (occupied "
              "regions in a broadcast); no published figure had that, so the posts cannot pin "
              "it. CPUs that share a last-level cache may read the same RMP lines once, which "
              "acts like a larger B.");
  add_note(t, "target: " + machine_text(req.target));
  add_note(t, calibration_text(cal));
  return t;
}

bool depends_on_bandwidth(const model::Calibration& cal, const SweepRequest& req) {
  model::CostParams lo = cal.params, hi = cal.params;
  lo.bandwidth_bytes_per_s /= 4;
  hi.bandwidth_bytes_per_s *= 8;
  for (model::Strategy s : req.strategies) {
    double a = model::model_sweep(req.target, req.layout, s, lo).wall_ns;
    double b = model::model_sweep(req.target, req.layout, s, hi).wall_ns;
    if (std::abs(a - b) > 1e-3 * std::max(a, b)) return true;
  }
  return false;
}

Table fit_table(const model::Calibration& cal) {
  Table t;
  t.title = "# RMPOPT model fit to the published figures (2TB)";
  t.source = kSource;
  t.columns = {{"figure", Align::left}, {"published"}, {"model"}, {"error %"}, {"fitted", Align::left}};
  auto value = [](model::Quantity q, double v) {
    return q == model::Quantity::wall_ns ? fixed(v / 1e6, 1) + " ms" : fixed(v, 0) + " cyc";
  };
  for (auto& f : cal.figures)
    t.add_row({f.figure.label, value(f.figure.quantity, f.figure.value),
               value(f.figure.quantity, f.model), fmt::format("{:+.1f}", 100 * f.rel_error),
               f.figure.fitted ? "yes" : "no"});
  add_note(t, fmt::format("fit: least squares on the relative errors of the {} fitted figures, "
                          "{} degrees of freedom, rms error {}%{}",
                          cal.fitted_figures, cal.dof, fixed(100 * cal.rms_rel_error, 1),
                          cal.converged ? "" : " (NOT converged)"));
  add_note(t, "the posts' own run-to-run spread is 391.6 vs 457.9 ms and 317.0 vs 369.7 ms "
              "(about +-8% around each mean): no fit can be closer than that");
  add_note(t, "scenarios: the termination runs and the shutdown cycle statistics have the "
              "running 100GB guest in 100 regions (first entry assigned) and every other "
              "region free and in need of a scan; boot has every region free; the empty-RMP "
              "and first-4K runs use leader + primary threads");
  add_note(t, "not fitted: the largest cycle figures (1143020 at boot, 83680 after shutdown) "
              "are both one full region scan in the model yet differ 13.7x; the averages "
              "depend on how calls were counted, which the posts do not say");
  add_common_assumptions(t, cal);
  return t;
}

Table parameter_table(const model::Calibration& cal) {
  Table t;
  t.title = "# RMPOPT model parameters";
  t.source = kSource;
  t.columns = {{"sym", Align::left}, {"parameter", Align::left}, {"value"}, {"+-1 se"},
               {"unit", Align::left}, {"status", Align::left}};
  for (auto& e : cal.estimates) {
    std::string status = !e.fitted      ? (e.determined ? "assumed" : "assumed; not in data")
                         : !e.determined ? "not determined"
                         : e.at_bound    ? "fitted, at 0"
                                         : "fitted";
    double v = e.value, se = e.stderr_;
    std::string unit = e.unit;
    if (e.symbol == "B") {
      v /= 1e9;
      unit = "GB/s";
    }
    t.add_row({e.symbol, e.name, sig(v), sig(se), unit, status});
  }
  add_note(t, "not in data: halving or doubling it changes no fitted figure by 0.1%; "
              "at 0: the figures would want it negative, so it sits on its bound and its "
              "error is that of the unconstrained fit");
  add_note(t, "not given by the posts, so inputs: CPU count, SMT and TSC rate of the posted "
              "machine (see the sensitivity table), and B");
  add_note(t, calibration_text(cal));
  return t;
}

std::vector<unsigned> sensitivity_cpu_counts() { return {128, 192, 256, 384, 512}; }
std::vector<double> sensitivity_tsc_hz() { return {2.0e9, 2.4e9, 2.7e9}; }

Table sensitivity_table(const std::vector<model::Calibration>& cals) {
  Table t;
  t.title = "# RMPOPT model fit vs the posted machine's CPU count and TSC rate";
  t.source = kSource;
  t.columns = {{"CPUs"},   {"TSC GHz"}, {"c cyc/e"}, {"a us"}, {"b ns"},
               {"rms %"},  {"boot avg"}, {"worst ms"}};
  model::Layout last;
  last.placement = model::Placement::last;
  for (auto& cal : cals) {
    double boot_avg = NAN;
    for (auto& f : cal.figures)
      if (f.figure.quantity == model::Quantity::mean_call_cycles) {
        boot_avg = f.model;
        break;
      }
    double worst = model::model_sweep(cal.machine, last, model::Strategy::primary, cal.params).wall_ns;
    t.add_row({std::to_string(cal.machine.cpus), ghz(cal.machine.tsc_hz),
               fixed(cal.params.scan_cycles_per_entry, 3), fixed(cal.params.call_base_ns / 1e3, 1),
               fixed(cal.params.call_per_cpu_ns, 1), fixed(100 * cal.rms_rel_error, 1),
               fixed(boot_avg, 0), fixed(worst / 1e6, 0)});
  }
  if (!cals.empty()) {
    add_note(t, fmt::format("each row is a separate fit (SMT {}, B {} GB/s); c in TSC cycles "
                            "per RMP entry, a in us, b in ns per CPU in the mask",
                            cals.front().machine.smt,
                            sig(cals.front().params.bandwidth_bytes_per_s / 1e9)));
  }
  add_note(t, "the wall-time figures fit equally well at every CPU count and TSC rate: "
              "they cannot tell them apart. c scales with the TSC rate, a and b with the CPU "
              "count; the time per region does not change");
  add_note(t, "boot avg: the model's average cycles per RMPOPT at boot (published: 5226), the "
              "one figure that depends on the CPU count (it is not fitted)");
  add_note(t, "worst ms: the last 4K of every 1GB assigned, 2TB, leader + primary threads, at "
              "that CPU count: it grows with the CPU count because every primary thread "
              "scans each region and they share B");
  return t;
}

}  // namespace kvmbench::suites::rmpopt
