#include "analysis/parse/kvm_selftests.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "analysis/parse/kernel_log_prefix.h"
#include "analysis/parse/kselftest_outcome.h"
#include "analysis/model/text_lines.h"

namespace kvmbench::parsers {

namespace {

constexpr std::string_view kDemandPaging = "demand_paging_test", kDirtyLog = "dirty_log_perf_test",
                           kMemslot = "memslot_perf_test", kAccessTracking = "access_tracking_perf_test",
                           kPageTable = "kvm_page_table_test";

// A line as the test printed it: without mail quotes ("> ", "> > ", as a
// kernel log's are read), kselftest's "# " (nested runners add one each),
// the line end and the blanks around it.
std::string_view printed_line(std::string_view l) {
  l = strip_quote_markers(l);
  while (l.starts_with("# ")) l.remove_prefix(2);
  if (l == "#") return {};
  return trimmed(l);
}

// The test a command line runs ("./dirty_log_perf_test -v 96", "$ sudo
// ./memslot_perf_test"), "" for any other line.
std::string_view command_test(std::string_view l) {
  bool prompt = false;
  for (std::string_view word : {"$ ", "sudo ", "time "})
    if (l.starts_with(word)) {
      l = trimmed(l.substr(word.size()));
      prompt = true;
    }
  const std::string_view program = test_basename(l.substr(0, l.find(' ')));
  // A test's bare name is a word of the prose; with a path, arguments or a
  // prompt it is a command.
  if (program == l && !prompt) return {};
  for (std::string_view t : {kDemandPaging, kDirtyLog, kMemslot, kAccessTracking, kPageTable})
    if (program == t) return t;
  return {};
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

// The text before a run that names it ("Without this series, TDP MMU:"
// -> "Without this series, TDP MMU"), short enough for a case name.
std::string run_label(std::string_view l) {
  l = trimmed(l);
  while (!l.empty() && (l.back() == ':' || l.back() == ' ')) l.remove_suffix(1);
  std::string out;
  for (char c : l) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c == '[' ? '(' : c == ']' ? ')' : c;
    }
  }
  if (out.size() > 60) out = out.substr(0, 57) + "...";
  return out;
}

// One run of one test: a process, from its command line, the runner's
// "selftests: kvm: NAME" or its first figure, to the next run's start.
struct Run {
  std::string test;          // "" until its first figure when nothing named it
  bool from_runner = false;  // begun by kselftest's runner: its lines belong to `test`
  std::string label;         // the text before it
  std::size_t line = 0, first = 0;  // its first line; its first sample
  std::optional<std::size_t> failure;  // into ParseResult::failures
  std::map<std::string, int> seen;     // its figures' keys, how often each
  std::set<std::string> modes, memslot_tests;
};

struct Parser {
  SelftestParse out;
  std::vector<Run> runs;
  bool open = false;  // runs.back() still takes lines
  std::string variant, memslot_test, label_text;
  std::size_t line = 0, variant_line = 0, memslot_line = 0, last_figure_line = 0;
  AssertionBlock assertion;
  std::size_t assertion_line = 0;

  Run* current() { return open ? &runs.back() : nullptr; }

  void forget_test_details() {
    variant.clear();
    memslot_test.clear();
  }

  // A new run begins at this line. What the lines since the last figure
  // set (a guest mode, memslot_perf_test's test) is the new run's; older
  // settings were the last run's.
  Run& begin_run(std::string test, bool from_runner) {
    if (variant_line <= last_figure_line) variant.clear();
    if (memslot_line <= last_figure_line) memslot_test.clear();
    Run r;
    r.test = std::move(test);
    r.from_runner = from_runner;
    r.label = run_label(label_text);
    r.line = line;
    r.first = out.result.samples.size();
    label_text.clear();
    runs.push_back(std::move(r));
    open = true;
    return runs.back();
  }

  void end_run() {
    open = false;
    forget_test_details();
  }

  // The run `r` failed; a second word on its failure (the runner's exit
  // status after an assertion) is added to the first.
  void fail(Run& r, const std::string& reason, std::size_t at, bool runner) {
    auto& failures = out.result.failures;
    if (r.failure) {
      if (runner && failures[*r.failure].reason.find(reason) == std::string::npos)
        failures[*r.failure].reason += "; " + reason;
      return;
    }
    r.failure = failures.size();
    failures.push_back({r.test, reason, at, 0});
  }

  // The run a figure of `test` belongs to, begun where the figure says a
  // new one began: another test's figure (outside a runner's section), or
  // a figure this run has already printed.
  Run& run_for(std::string_view test) {
    Run* r = current();
    if (!r || (!r->from_runner && !r->test.empty() && r->test != test)) r = &begin_run(std::string(test), false);
    if (r->test.empty()) r->test = std::string(test);
    return *r;
  }

  // Adds one sample; true, for `return add(...)` in take(). `whole_test`:
  // a figure of memslot_perf_test as a whole, not of its current test.
  bool add(std::string_view test, const std::string& metric, const std::string& unit, double v, int iteration = 0,
           nlohmann::json extra = nlohmann::json::object(), bool whole_test = false) {
    Run* r = &run_for(test);
    // Inside a runner's section the figures are its test's, whatever their
    // lines look like.
    auto case_of = [&](const Run& run) {
      const std::string base = run.from_runner ? run.test : std::string(test);
      return base == kMemslot && !memslot_test.empty() && !whole_test ? fmt::format("{}/{}", base, memslot_test)
                                                                      : base;
    };
    auto key_of = [&](const Run& run) {
      return fmt::format("{}\n{}\n{}\n{}\n{}", case_of(run), variant, metric, iteration, extra.dump());
    };
    // Access tracking marks memory idle twice in one run (before the
    // writes, before the reads).
    const int allowed = metric == "mark_memory_idle_time" ? 2 : 1;
    if (!r->from_runner && r->seen[key_of(*r)] >= allowed) r = &begin_run(std::string(test), false);
    ++r->seen[key_of(*r)];
    if (!variant.empty()) r->modes.insert(variant);
    if (test == kMemslot && !memslot_test.empty() && !whole_test) r->memslot_tests.insert(memslot_test);
    if (out.test.empty()) out.test = std::string(test);
    Sample s;
    s.case_name = case_of(*r);
    s.variant = variant;
    s.metric = metric;
    s.unit = unit;
    s.value = v;
    s.iteration = iteration;
    extra["line"] = line;
    s.extra = std::move(extra);
    out.result.samples.push_back(std::move(s));
    ++out.result.records;
    last_figure_line = line;
    label_text.clear();
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

  // A dirty-log summary the mail wrapped: its first part, held for the
  // line that completes it.
  std::string pending_summary;
  std::size_t pending_summary_line = 0;

  // "Get dirty log over %lu iterations took %ld.%.9lds. (Avg %ld.%.9lds/
  // iteration)" (or Clear), begun at line `at`; false, adding nothing,
  // when it does not read so.
  bool take_dirty_log_summary(std::string_view l, std::size_t at) {
    const std::string metric = l.starts_with("Get ") ? "get_dirty_log" : "clear_dirty_log";
    const std::string_view r = l.substr(l.find(" over ") + 6);
    const std::size_t took = r.find(" took "), avg = r.find("(Avg "), slash = r.rfind("/iteration)");
    if (took == std::string_view::npos || avg == std::string_view::npos || slash == std::string_view::npos ||
        slash < avg || avg < took)
      return false;
    std::string_view t = trimmed(r.substr(took + 6, avg - took - 6));
    if (t.ends_with('.')) t.remove_suffix(1);
    const auto total = seconds_text(trimmed(t)), average = seconds_text(trimmed(r.substr(avg + 5, slash - avg - 5)));
    if (!total || !average) return false;
    const std::size_t here = line;
    line = at;
    add(kDirtyLog, metric + "_total_time", "s", *total);
    add(kDirtyLog, metric + "_avg_time", "s", *average);
    line = here;
    return true;
  }

  // The summaries are derived from the "Iteration N" lines: one that does
  // not read is skipped with a warning, never the run lost.
  void skip_dirty_log_summary(std::string_view l, std::size_t at, std::string_view why) {
    out.result.warnings.push_back(fmt::format("line {}: '{}' skipped{}: not the \"took ...s. (Avg ...s/iteration)\" "
                                              "of dirty_log_perf_test; a summary of the \"Iteration N\" lines, which "
                                              "are kept",
                                              at, l, why));
  }

  // The line after a held summary: its rest when the two read as one
  // (true: the line is taken), else the summary is skipped with a warning.
  bool complete_summary(std::string_view l) {
    if (pending_summary.empty()) return false;
    const std::string first = std::move(pending_summary);
    pending_summary.clear();
    if (!l.empty() && !l.starts_with("Get dirty log over ") && !l.starts_with("Clear dirty log over ")) {
      const std::string joined = first + " " + std::string(l);
      if (take_dirty_log_summary(joined, pending_summary_line)) {
        out.result.notes.push_back(fmt::format("line {}: a dirty-log summary wrapped onto line {} (as mails wrap "
                                               "lines), read joined",
                                               pending_summary_line, line));
        return true;
      }
    }
    skip_dirty_log_summary(first, pending_summary_line, l.empty() ? "" : " (nor joined with the line after it)");
    return false;
  }

  // kselftest's lines about how a test ended, a command line, an
  // assertion; false when the line is none of them.
  bool take_status(std::string_view l) {
    if (assertion.open()) {
      if (assertion.take(l)) return true;
      end_assertion();
    }
    if (AssertionBlock::starts(l)) {
      assertion.begin();
      assertion_line = line;
      return true;
    }
    if (const std::string_view test = command_test(l); !test.empty()) {
      forget_test_details();
      begin_run(std::string(test), false);
      return true;
    }
    const TestOutcome o = kselftest_outcome(l);
    switch (o.kind) {
      case OutcomeKind::none: return false;
      case OutcomeKind::test_start:
        forget_test_details();
        begin_run(o.test, true);
        return true;
      case OutcomeKind::test_passed: end_run(); return true;
      case OutcomeKind::test_failed: break;
    }
    const bool runner = !o.test.empty();
    Run* r = current();
    if (runner && (!r || (!r->test.empty() && r->test != o.test))) {
      // The runner names a test whose lines were not seen here: it failed
      // without a figure.
      end_run();
      r = &begin_run(o.test, true);
    } else if (!r) {
      r = &begin_run("", false);
    }
    if (r->test.empty()) r->test = o.test;
    fail(*r, o.reason, line, runner);
    if (runner) end_run();
    return true;
  }

  void end_assertion() {
    Run* r = current();
    if (!r) r = &begin_run("", false);
    fail(*r, assertion.reason(), assertion_line, false);
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
      // The same mode again outside a runner's section: the test ran again.
      const std::string mode(trimmed(r));
      if (Run* run = current(); run && !run->from_runner && run->modes.count(mode)) begin_run("", false);
      variant = mode;
      variant_line = line;
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
        // Printed with %d: a whole number an int holds, or the line is not the test's.
        if (*vcpu != std::floor(*vcpu) || *vcpu > std::numeric_limits<int>::max())
          throw ParseError(line, fmt::format("vCPU {}: not a vCPU number (%d)", *vcpu));
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
          // Counted in an int from 1 by the test: anything else is not its line.
          if (*it != std::floor(*it) || *it > std::numeric_limits<int>::max())
            throw ParseError(line, fmt::format("Iteration {}: not an iteration number (%d from 1)", *it));
          add(kDirtyLog, metric, "s", seconds(metric, rest.substr(what.size())), static_cast<int>(*it) - 1);
          return true;
        }
      return false;
    }
    for (std::string_view prefix : {"Get dirty log over ", "Clear dirty log over "})
      if (l.starts_with(prefix)) {
        // A mail may have wrapped it: the rest of it is on the next line.
        if (l.find("/iteration)") == std::string_view::npos) {
          pending_summary = std::string(l);
          pending_summary_line = line;
          return true;
        }
        if (!take_dirty_log_summary(l, line)) skip_dirty_log_summary(l, line, "");
        return true;
      }
    // memslot_perf_test
    if (after("Testing ", r) && r.find(" performance with ") != std::string_view::npos) {
      const std::string test = metric_name(r.substr(0, r.find(" performance with ")));
      if (Run* run = current(); run && !run->from_runner && run->memslot_tests.count(test)) begin_run("", false);
      memslot_test = test;
      memslot_line = line;
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
      // %lu: whole, and within what the JSON keeps exactly (2^53); a double
      // beyond a long long would be undefined to cast.
      if (n && (*n != std::floor(*n) || *n > 9007199254740992.0))
        throw ParseError(line, fmt::format("'{}': {} is not a count of iterations (%lu)", l, *n));
      if (n) extra["iterations"] = static_cast<long long>(*n);
      add(kMemslot, "best_runtime_per_" + metric_name(r.substr(per + 5, with - per - 5)), "s",
          seconds("best runtime", r.substr(0, per)), 0, std::move(extra));
      return true;
    }
    // Printed once, after all of its tests: the best of them all.
    if (after("Best slot setup time for the whole test area was ", r))
      return add(kMemslot, "best_slot_setup_time", "s", seconds("best slot setup time", r), 0,
                 nlohmann::json::object(), /*whole_test=*/true);
    // kvm_page_table_test: "%s: total execution time: %ld.%.9lds" per stage
    for (auto [prefix, metric] :
         {std::pair<std::string_view, const char*>{"KVM_CREATE_MAPPINGS: total execution time:", "create_mappings_time"},
          {"KVM_UPDATE_MAPPINGS: total execution time:", "update_mappings_time"},
          {"KVM_ADJUST_MAPPINGS: total execution time:", "adjust_mappings_time"}})
      if (after(prefix, r)) return add(kPageTable, metric, "s", seconds(metric, r));
    // access_tracking_perf_test
    std::string_view description, value;
    if (access_tracking_line(l, description, value) && seconds_text(value))
      return add(kAccessTracking, metric_name(description) + "_time", "s", *seconds_text(value));
    return false;
  }

  // After the last line: each failure's figures marked, and the runs of
  // one test kept apart (their own case where the text before them names
  // them, their own invocation where it does not).
  void finish() {
    if (assertion.open()) end_assertion();
    auto& samples = out.result.samples;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const std::size_t end = k + 1 < runs.size() ? runs[k + 1].first : samples.size();
      if (!runs[k].failure) continue;
      ProgramFailure& f = out.result.failures[*runs[k].failure];
      if (f.program.empty()) f.program = runs[k].test;
      f.samples = end - runs[k].first;
      for (std::size_t i = runs[k].first; i < end; ++i) samples[i].extra["failed"] = f.reason;
    }
    std::map<std::string, std::vector<std::size_t>> by_test;  // runs with figures
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const std::size_t end = k + 1 < runs.size() ? runs[k + 1].first : samples.size();
      if (end > runs[k].first) by_test[runs[k].test].push_back(k);
    }
    for (auto& [test, ks] : by_test) {
      if (ks.size() < 2) continue;
      std::map<std::string, int> per_label;
      std::map<std::string, int> of_label;
      for (std::size_t k : ks) ++of_label[runs[k].label];
      std::string list;
      for (std::size_t k : ks) {
        const Run& run = runs[k];
        const std::size_t end = k + 1 < runs.size() ? runs[k + 1].first : samples.size();
        const int invocation = per_label[run.label]++;
        const bool several = of_label[run.label] > 1;
        for (std::size_t i = run.first; i < end; ++i) {
          if (!run.label.empty()) samples[i].case_name += " [" + run.label + "]";
          if (several) samples[i].extra["invocation"] = invocation;
        }
        std::string what = run.label.empty() ? "" : "'" + run.label + "'";
        if (several) what += fmt::format("{}invocation {}", what.empty() ? "" : " ", invocation + 1);
        list += fmt::format("{}{} (line {})", list.empty() ? "" : ", ", what, samples[run.first].extra.value("line", run.line));
      }
      out.result.notes.push_back(fmt::format(
          "line {}: {} runs of {} in one input, kept apart (never values of one repetition): {}{}",
          runs[ks.front()].line, ks.size(), test, list,
          of_label.size() == 1 && of_label.begin()->first.empty()
              ? "; no text before them names them, so they are repetitions of one thing, each its own invocation"
              : ""));
    }
  }
};

bool is_naming_line(std::string_view l) {
  static constexpr std::string_view kNaming[] = {
      "Total guest execution time:", "Overall demand paging rate:", "Populate memory time:",
      "Enabling dirty logging time:", "Best runtime result was ", "Best slot setup time for the whole test area",
      "Populating memory             :", "KVM_CREATE_MAPPINGS: total execution time:"};
  for (auto p : kNaming)
    if (l.starts_with(p)) return true;
  return false;
}

}  // namespace

bool looks_like_kvm_selftest(std::string_view text) {
  bool found = false;
  for_each_line(text, [&](std::size_t, std::string_view raw) {
    found = is_naming_line(printed_line(raw));
    return !found;
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
    if (p.complete_summary(l)) return;
    if (p.take_status(l)) return;
    if (l.empty()) return;
    if (!p.take(l)) {
      ++p.out.result.lines_ignored;
      if (l.ends_with(':')) p.label_text = std::string(l);
    }
  });
  p.complete_summary({});
  p.finish();
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
