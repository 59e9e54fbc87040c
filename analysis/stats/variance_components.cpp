#include "analysis/stats/variance_components.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "analysis/stats/t_power.h"

namespace kvmbench::stats {

namespace {

// The pilot's values, boot by boot and repetition by repetition, in order
// of first appearance.
using Repetition = std::vector<double>;
using Boot = std::vector<Repetition>;

std::vector<Boot> nest_values(std::span<const Observation> pilot) {
  std::map<int, std::size_t> boot_index;
  std::vector<std::map<int, std::size_t>> repetition_index;
  std::vector<Boot> boots;
  for (const Observation& o : pilot) {
    auto [b, new_boot] = boot_index.try_emplace(o.invocation, boots.size());
    if (new_boot) {
      boots.emplace_back();
      repetition_index.emplace_back();
    }
    auto [r, new_rep] = repetition_index[b->second].try_emplace(o.repetition, boots[b->second].size());
    if (new_rep) boots[b->second].emplace_back();
    boots[b->second][r->second].push_back(o.value);
  }
  return boots;
}

double average(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// A negative moment estimate is clamped to 0, with a note that says so.
double clamped(double estimate, const char* level, std::vector<std::string>& notes) {
  if (estimate >= 0) return estimate;
  notes.push_back(
      fmt::format("{}: the estimate is negative ({:.3g}), taken as 0: no spread beyond the levels "
                  "below it is seen",
                  level, estimate));
  return 0;
}

}  // namespace

VarianceComponents variance_components(std::span<const Observation> pilot) {
  VarianceComponents c;
  const std::vector<Boot> boots = nest_values(pilot);
  c.boots = boots.size();
  for (const Boot& b : boots)
    for (const Repetition& r : b) {
      ++c.repetitions;
      c.values += r.size();
      for (double y : r)
        if (!std::isfinite(y)) {
          c.notes.push_back("a value is not finite: no components");
          return c;
        }
    }
  if (c.boots < 2) {
    c.notes.push_back("one boot: the spread between boots cannot be seen");
    return c;
  }
  c.mean_repetitions = static_cast<double>(c.repetitions) / static_cast<double>(c.boots);
  c.mean_sub_units = static_cast<double>(c.values) / static_cast<double>(c.repetitions);

  // Within a repetition: pooled over repetitions with two or more values.
  double ss1 = 0, df1 = 0;
  for (const Boot& b : boots)
    for (const Repetition& r : b) {
      const double m = average(r);
      for (double y : r) ss1 += (y - m) * (y - m);
      df1 += static_cast<double>(r.size()) - 1;
    }
  const double s1 = df1 > 0 ? ss1 / df1 : 0;
  if (df1 == 0) c.notes.push_back("one value per repetition: no spread within a repetition is measured");
  c.within_repetition = s1;

  // Between repetitions of a boot: pooled over boots with two or more.
  double ss2 = 0, df2 = 0, c2_num = 0;
  std::vector<double> boot_means;
  double mean_inverse_r = 0, mean_inverse_nr2 = 0;
  for (const Boot& b : boots) {
    std::vector<double> rep_means;
    double inverse_n = 0;
    for (const Repetition& r : b) {
      rep_means.push_back(average(r));
      inverse_n += 1.0 / static_cast<double>(r.size());
    }
    const double rb = static_cast<double>(b.size());
    const double m = average(rep_means);
    for (double y : rep_means) ss2 += (y - m) * (y - m);
    df2 += rb - 1;
    c2_num += (1 - 1 / rb) * inverse_n;
    boot_means.push_back(m);
    mean_inverse_r += 1 / rb;
    mean_inverse_nr2 += inverse_n / (rb * rb);
  }
  const double k = static_cast<double>(c.boots);
  mean_inverse_r /= k;
  mean_inverse_nr2 /= k;
  if (df2 > 0) {
    c.between_repetitions = clamped(ss2 / df2 - c2_num / df2 * s1, "between repetitions", c.notes);
  } else {
    c.notes.push_back("one repetition per boot: repetitions and boots cannot be told apart (all is between boots)");
  }

  // Between boots: the boot means' variance less what the levels below
  // contribute to it.
  const double grand = average(boot_means);
  double ss3 = 0;
  for (double y : boot_means) ss3 += (y - grand) * (y - grand);
  const double s3 = ss3 / (k - 1);
  c.between_boots =
      clamped(s3 - c.between_repetitions * mean_inverse_r - s1 * mean_inverse_nr2, "between boots", c.notes);
  c.known = true;
  return c;
}

double unit_variance(const VarianceComponents& c, double repetitions, double sub_units) {
  return c.between_boots + c.between_repetitions / repetitions + c.within_repetition / (repetitions * sub_units);
}

namespace {

void check_request(const PlanRequest& r) {
  if (!r.components.known) throw std::invalid_argument("plan: the pilot's variance components are unknown");
  if (!(r.target_shift > 0)) throw std::invalid_argument("plan: the regression to find must be above 0");
  if (!(r.boot_s > 0 && r.repetition_s > 0))
    throw std::invalid_argument("plan: the cost of a boot and of a repetition must be above 0");
  if (!(r.one_sided_error > 0 && r.power > r.one_sided_error && r.power < 1))
    throw std::invalid_argument("plan: the power must lie between the test's error and 1");
  if (!(r.sub_units >= 1)) throw std::invalid_argument("plan: at least one value per repetition");
}

double sd_at(const PlanRequest& r, std::size_t reps) {
  return std::sqrt(unit_variance(r.components, static_cast<double>(reps), r.sub_units));
}

double shift_at(const PlanRequest& r, double sd, std::size_t boots) {
  return detectable_shift(TwoSampleDesign{boots, boots, sd, sd}, r.power, r.one_sided_error);
}

std::optional<std::size_t> boots_unchecked(const PlanRequest& r, std::size_t reps) {
  const double sd = sd_at(r, reps);
  // The detectable shift falls as boots are added: the fewest that reach
  // the target, by bisection.
  if (r.most_boots < 2 || shift_at(r, sd, r.most_boots) > r.target_shift) return std::nullopt;
  std::size_t lo = 1, hi = r.most_boots;  // shift(hi) <= target; lo is below 2 units a side
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (shift_at(r, sd, mid) <= r.target_shift ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

std::optional<std::size_t> fewest_boots(const PlanRequest& r, std::size_t repetitions) {
  check_request(r);
  if (repetitions < 1) throw std::invalid_argument("plan: at least one repetition per boot");
  return boots_unchecked(r, repetitions);
}

std::optional<Plan> cheapest_plan(const PlanRequest& r) {
  check_request(r);
  std::optional<Plan> best;
  for (std::size_t reps = 1; reps <= r.most_repetitions; ++reps) {
    const auto boots = boots_unchecked(r, reps);
    if (!boots) continue;
    const double sd = sd_at(r, reps);
    const double seconds = 2 * static_cast<double>(*boots) * (r.boot_s + static_cast<double>(reps) * r.repetition_s);
    if (!best || seconds < best->seconds) best = Plan{*boots, reps, sd, shift_at(r, sd, *boots), seconds};
  }
  return best;
}

}  // namespace kvmbench::stats
