#include "analysis/parsers/kvm_selftests.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <optional>

#include "analysis/text_lines.h"

namespace kvmbench::parsers {

namespace {

constexpr std::string_view kDemandPaging = "demand_paging_test", kDirtyLog = "dirty_log_perf_test",
                           kMemslot = "memslot_perf_test", kAccessTracking = "access_tracking_perf_test";

// A line as the test printed it: without kselftest's "# " (nested runners
// add one each), the line end and the blanks around it.
std::string_view printed_line(std::string_view l) {
  while (l.starts_with("# ")) l.remove_prefix(2);
  if (l == "#") return {};
  while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
  while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
  return l;
}

std::string_view trimmed(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

// "0.787727423s" (the tests' "%ld.%.9lds"), the whole of `t`.
std::optional<double> seconds_text(std::string_view t) {
  if (t.size() < 2 || t.back() != 's') return std::nullopt;
  t.remove_suffix(1);
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t.front()))) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

// A leading unsigned number of `t` ("%f" or "%d"), and the rest after it.
std::optional<double> leading_number(std::string_view& t) {
  t = trimmed(t);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p == t.data() || !std::isfinite(v) || v < 0) return std::nullopt;
  t.remove_prefix(static_cast<std::size_t>(p - t.data()));
  return v;
}

// "populating_memory" for "Populating memory"
std::string metric_name(std::string_view description) {
  std::string out;
  for (char c : trimmed(description)) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// An access_tracking_perf_test phase line, "%-30s: %ld.%09lds": the
// description padded to 30 columns, so its colon is at 30 or later.
bool access_tracking_line(std::string_view l, std::string_view& description, std::string_view& value) {
  const std::size_t colon = l.find(": ");
  if (colon == std::string_view::npos || colon < 30) return false;
  description = trimmed(l.substr(0, colon));
  value = trimmed(l.substr(colon + 2));
  return !description.empty() && value.ends_with('s');
}

struct Parser {
  SelftestParse out;
  std::string variant, memslot_test;
  std::size_t line = 0;

  // Adds one sample; true, for `return add(...)` in take().
  bool add(std::string_view test, const std::string& metric, const std::string& unit, double v, int iteration = 0,
           nlohmann::json extra = nlohmann::json::object()) {
    if (out.test.empty()) out.test = std::string(test);
    Sample s;
    s.case_name = test == kMemslot && !memslot_test.empty() ? fmt::format("{}/{}", test, memslot_test) : std::string(test);
    s.variant = variant;
    s.metric = metric;
    s.unit = unit;
    s.value = v;
    s.iteration = iteration;
    extra["line"] = line;
    s.extra = std::move(extra);
    out.result.samples.push_back(std::move(s));
    ++out.result.records;
    return true;
  }
  double seconds(std::string_view what, std::string_view t) {
    if (auto v = seconds_text(trimmed(t))) return *v;
    throw ParseError(line, fmt::format("{}: '{}' is not a time in seconds (%ld.%.9lds)", what, trimmed(t)));
  }
  double number(std::string_view what, std::string_view t, std::string_view unit_text) {
    std::string_view rest = t;
    auto v = leading_number(rest);
    if (!v || trimmed(rest) != unit_text)
      throw ParseError(line, fmt::format("{}: '{}' is not a number of {}", what, trimmed(t), unit_text));
    return *v;
  }

  // One printed line; false when it is none of the test's lines.
  bool take(std::string_view l) {
    auto after = [&](std::string_view prefix, std::string_view& rest) {
      if (!l.starts_with(prefix)) return false;
      rest = l.substr(prefix.size());
      return true;
    };
    std::string_view r;
    if (after("Testing guest mode:", r)) {
      variant = std::string(trimmed(r));
      return true;
    }
    // demand_paging_test
    if (after("Total guest execution time:", r)) return add(kDemandPaging, "guest_execution_time", "s", seconds("guest execution time", r));
    if (after("Per-vcpu demand paging rate:", r))
      return add(kDemandPaging, "per_vcpu_demand_paging_rate", "pages/s", number("per-vCPU rate", r, "pgs/sec/vcpu"));
    if (after("Overall demand paging rate:", r))
      return add(kDemandPaging, "demand_paging_rate", "pages/s", number("overall rate", r, "pgs/sec"));
    if (after("vCPU ", r)) {
      std::string_view rest = r;
      auto vcpu = leading_number(rest);
      if (vcpu && trimmed(rest).starts_with("execution time:")) {
        add(kDemandPaging, "vcpu_execution_time", "s", seconds("vCPU execution time", trimmed(rest).substr(15)), 0,
            {{"vcpu", static_cast<long long>(*vcpu)}});
        return true;
      }
      return false;
    }
    // dirty_log_perf_test
    for (auto [prefix, metric] : {std::pair<std::string_view, const char*>{"Populate memory time:", "populate_memory_time"},
                                  {"Enabling dirty logging time:", "enable_dirty_logging_time"},
                                  {"Disabling dirty logging time:", "disable_dirty_logging_time"}})
      if (after(prefix, r)) return add(kDirtyLog, metric, "s", seconds(metric, r));
    if (after("Iteration ", r)) {
      std::string_view rest = r;
      auto it = leading_number(rest);
      rest = trimmed(rest);
      for (auto [what, metric] : {std::pair<std::string_view, const char*>{"dirty memory time:", "dirty_memory_time"},
                                  {"get dirty log time:", "get_dirty_log_time"},
                                  {"clear dirty log time:", "clear_dirty_log_time"}})
        if (it && *it >= 1 && rest.starts_with(what)) {
          add(kDirtyLog, metric, "s", seconds(metric, rest.substr(what.size())), static_cast<int>(*it) - 1);
          return true;
        }
      return false;
    }
    for (auto [prefix, metric] : {std::pair<std::string_view, std::string_view>{"Get dirty log over ", "get_dirty_log"},
                                  {"Clear dirty log over ", "clear_dirty_log"}})
      if (after(prefix, r)) {
        // "%lu iterations took %ld.%.9lds. (Avg %ld.%.9lds/iteration)"
        const std::size_t took = r.find(" took "), avg = r.find("(Avg "), slash = r.rfind("/iteration)");
        if (took == std::string_view::npos || avg == std::string_view::npos || slash == std::string_view::npos ||
            slash < avg)
          throw ParseError(line, fmt::format("'{}' lacks the \"took ...s. (Avg ...s/iteration)\" of its test", l));
        std::string_view total = trimmed(r.substr(took + 6, avg - took - 6));
        if (total.ends_with('.')) total.remove_suffix(1);
        add(kDirtyLog, std::string(metric) + "_total_time", "s", seconds("total", total));
        add(kDirtyLog, std::string(metric) + "_avg_time", "s", seconds("average", r.substr(avg + 5, slash - avg - 5)));
        return true;
      }
    // memslot_perf_test
    if (after("Testing ", r) && r.find(" performance with ") != std::string_view::npos) {
      memslot_test = metric_name(r.substr(0, r.find(" performance with ")));
      return true;
    }
    if (after("Best runtime result was ", r)) {
      // "%ld.%.9lds per iteration (with %lu iterations)"
      const std::size_t per = r.find(" per "), with = r.find(" (with ");
      if (per == std::string_view::npos || with == std::string_view::npos || with < per)
        throw ParseError(line, fmt::format("'{}' lacks the \"per ... (with N ...)\" of memslot_perf_test", l));
      std::string_view rest = r.substr(with + 7);
      auto n = leading_number(rest);
      nlohmann::json extra = nlohmann::json::object();
      if (n) extra["iterations"] = static_cast<long long>(*n);
      add(kMemslot, "best_runtime_per_" + metric_name(r.substr(per + 5, with - per - 5)), "s",
          seconds("best runtime", r.substr(0, per)), 0, std::move(extra));
      return true;
    }
    if (after("Best slot setup time for the whole test area was ", r))
      return add(kMemslot, "best_slot_setup_time", "s", seconds("best slot setup time", r));
    // access_tracking_perf_test
    std::string_view description, value;
    if (access_tracking_line(l, description, value) && seconds_text(value))
      return add(kAccessTracking, metric_name(description) + "_time", "s", *seconds_text(value));
    return false;
  }
};

}  // namespace

bool looks_like_kvm_selftest(std::string_view text) {
  static constexpr std::string_view kNaming[] = {
      "Total guest execution time:", "Overall demand paging rate:", "Populate memory time:",
      "Enabling dirty logging time:", "Best runtime result was ", "Best slot setup time for the whole test area",
      "Populating memory             :"};
  bool found = false;
  for_each_line(text, [&](std::size_t, std::string_view raw) {
    if (found) return;
    const std::string_view l = printed_line(raw);
    for (auto p : kNaming)
      if (l.starts_with(p)) found = true;
  });
  return found;
}

SelftestParse parse_kvm_selftest(std::string_view text) {
  Parser p;
  p.out.result.format = "kvm-selftest";
  for_each_line(text, [&](std::size_t n, std::string_view raw) {
    p.line = n;
    ++p.out.result.lines_read;
    const std::string_view l = printed_line(raw);
    if (l.empty()) return;
    if (!p.take(l)) ++p.out.result.lines_ignored;
  });
  if (p.out.result.samples.empty()) throw ParseError(1, "KVM selftest output without a performance line");
  auto& d = p.out.roles.derived;
  // The rates are vCPU 0's pages (times the vCPUs) over the same wall time.
  d["per_vcpu_demand_paging_rate"] = "guest_execution_time";
  d["demand_paging_rate"] = "guest_execution_time";
  // The totals and averages sum the per-iteration lines.
  d["get_dirty_log_total_time"] = d["get_dirty_log_avg_time"] = "get_dirty_log_time";
  d["clear_dirty_log_total_time"] = d["clear_dirty_log_avg_time"] = "clear_dirty_log_time";
  p.out.roles.repetition = "one run of the selftest, a fresh process and VM (its \"Iteration N\" lines are "
                           "repetitions inside it)";
  return p.out;
}

}  // namespace kvmbench::parsers
