#include "analysis/parse/format_recognizer.h"

#include <fmt/format.h>

#include <cstdlib>

#include "analysis/parse/guest_output.h"
#include "analysis/parse/kernel_log.h"
#include "analysis/parse/kvm_selftests.h"
#include "analysis/parse/kvm_unit_tests.h"
#include "analysis/parse/plain_numbers.h"

namespace kvmbench::parsers {

std::string_view to_string(InputFormat f) {
  switch (f) {
    case InputFormat::empty: return "empty";
    case InputFormat::gbench_json: return "gbench-json";
    case InputFormat::guest_output: return "guest-output";
    case InputFormat::kernel_log: return "kernel-log";
    case InputFormat::kvm_selftest: return "kvm-selftest";
    case InputFormat::kvm_unit_tests_vmexit: return "kvm-unit-tests-vmexit";
    case InputFormat::plain_numbers: return "plain-numbers";
    case InputFormat::unrecognised: return "unrecognised";
  }
  return "unrecognised";
}

bool is_one_invocation(InputFormat f) {
  return f == InputFormat::gbench_json || f == InputFormat::guest_output || f == InputFormat::kvm_selftest ||
         f == InputFormat::kvm_unit_tests_vmexit;
}

// Whether a guest console's BEGIN or RESULT line is anywhere in the text.
static bool mentions_guest_output(std::string_view text) {
  return text.find(kGuestResultPrefix) != std::string_view::npos ||
         text.find(kGuestBeginPrefix) != std::string_view::npos;
}

Recognition recognise_format(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {InputFormat::empty, "empty file"};
  // Only '{': Google Benchmark output is an object, and a dmesg capture
  // starts with '['.
  if (text[first] == '{') {
    if (looks_like_gbench_json(text)) return {InputFormat::gbench_json, ""};
    return {InputFormat::unrecognised, "JSON without a \"benchmarks\" key (not Google Benchmark output)"};
  }
  // Kernel records first: that search ends at the first record, while the
  // guest markers' search reads the whole of a long log that has none. A
  // guest console never carries the host's records (RMPOPT, to_shared).
  if (mentions_kernel_record(text)) return {InputFormat::kernel_log, ""};
  if (mentions_guest_output(text)) return {InputFormat::guest_output, ""};
  if (looks_like_kvm_selftest(text)) return {InputFormat::kvm_selftest, ""};
  if (looks_like_vmexit_output(text)) return {InputFormat::kvm_unit_tests_vmexit, ""};
  try {
    if (!parse_plain_numbers(text).values.empty()) return {InputFormat::plain_numbers, ""};
    return {InputFormat::unrecognised, "only comments, no data"};
  } catch (const PlainNumbersError& e) {
    return {InputFormat::unrecognised,
            fmt::format("no known kernel log record, not Google Benchmark JSON, no KVM selftest or vmexit "
                        "output, and not numbers one per line (line {}: {})",
                        e.line, e.what())};
  }
}

// Line of the first non-blank character, for "empty"/"unrecognised" errors.
static std::size_t first_content_line(std::string_view text) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return 1;
  std::size_t line = 1;
  for (std::size_t i = 0; i < first; ++i)
    if (text[i] == '\n') ++line;
  return line;
}

ParsedInput parsed_kernel_log(KernelLogParse k) {
  ParsedInput out;
  out.format = InputFormat::kernel_log;
  out.result = std::move(k.result);
  out.kernel_records = std::move(k.records);
  out.kernel_joined = std::move(k.joined);
  out.kernel_sample_record = std::move(k.sample_record);
  if (out.result.samples.empty()) {
    std::size_t line = 1;
    if (!out.result.warnings.empty()) {
      const std::string& w = out.result.warnings.front();  // "line N: ..."
      line = std::strtoul(w.c_str() + 5, nullptr, 10);
    }
    const bool earlier = !out.result.warnings.empty() &&
                         out.result.warnings.front().find(": not read: an earlier form") != std::string::npos;
    throw ParseError(line, std::string(earlier ? "no kernel log record kvmbench reads, nothing to ingest"
                                               : "kernel log record incomplete, nothing to ingest") +
                               (out.result.warnings.empty() ? "" : " (" + out.result.warnings.front() + ")"));
  }
  return out;
}

ParsedInput parse_any(std::string_view text, Provenance kernel_provenance) {
  const Recognition rec = recognise_format(text);
  ParsedInput out;
  out.format = rec.format;
  switch (rec.format) {
    case InputFormat::empty:
      throw ParseError(1, "empty file (nothing to ingest)");
    case InputFormat::unrecognised:
      throw ParseError(first_content_line(text), "unrecognised content: " + rec.reason);
    case InputFormat::gbench_json: {
      GbenchParse g = parse_gbench_json(text);
      out.result = std::move(g.result);
      out.aggregates = std::move(g.aggregates);
      out.not_measured = std::move(g.not_measured);
      out.context = std::move(g.context);
      if (out.result.samples.empty()) {
        std::string held;  // what the aggregates are, when none is a mean: "BM_x (cv)"
        bool mean = false;
        for (const auto& a : out.aggregates) {
          mean = mean || a.aggregate_name == "mean";
          const std::string what = fmt::format("{} ({})", a.case_name, a.aggregate_name);
          if (held.find(what) == std::string::npos) held += (held.empty() ? "" : ", ") + what;
        }
        if (out.aggregates.empty())
          throw ParseError(1, "Google Benchmark JSON without any iteration row (nothing to ingest)" +
                                  (out.result.notes.empty() ? std::string() : " (" + out.result.notes.front() + ")"));
        throw ParseError(1, mean ? "Google Benchmark JSON with aggregates only (--benchmark_report_aggregates_only): "
                                   "ingest keeps repetitions; `kvmbench compare` reads such a file as it is"
                                 : "Google Benchmark JSON whose only rows are aggregates, none a mean: " + held +
                                       "; ingest keeps repetitions; `kvmbench compare` shows each value and its "
                                       "change");
      }
      break;
    }
    case InputFormat::kvm_selftest: {
      SelftestParse p = parse_kvm_selftest(text);
      out.result = std::move(p.result);
      out.roles = std::move(p.roles);
      break;
    }
    case InputFormat::kvm_unit_tests_vmexit:
      out.result = parse_vmexit_output(text);
      out.roles.repetition = "one boot of kvm-unit-tests' vmexit";
      break;
    case InputFormat::guest_output: {
      GuestOutput g = parse_guest_output(text);
      out.result = std::move(g.result);
      // A workload run natively (guests/bin/kvmbench-faultin > f.log)
      // prints its results without the BEGIN and END a guest's init adds:
      // no guest run to call unclean, no result "before BEGIN".
      const bool native = !g.began && !g.ended && g.errors.empty() && g.malformed.empty() && !g.kernel_panic &&
                          !out.result.samples.empty();
      if (native) {
        std::erase_if(out.result.warnings,
                      [](const std::string& w) { return w.ends_with(": result before KVMBENCH-BEGIN"); });
        out.result.notes.push_back("line 1: read as a workload's own output (KVMBENCH-RESULT lines, no guest's "
                                   "KVMBENCH-BEGIN and END around them)");
      }
      for (auto& m : g.malformed) out.result.warnings.push_back(m);
      for (auto& e : g.errors) out.result.warnings.push_back(e);
      if (!g.ok() && !native) out.result.warnings.push_back("line 0: guest run not clean: " + g.failure());
      if (out.result.samples.empty())
        throw ParseError(first_content_line(text), "guest output without any KVMBENCH-RESULT sample" +
                                                       (g.ok() ? std::string() : " (" + g.failure() + ")"));
      break;
    }
    case InputFormat::kernel_log:
      return parsed_kernel_log(parse_kernel_log_records(text, kernel_provenance));
    case InputFormat::plain_numbers: {
      PlainNumbers p = parse_plain_numbers(text);
      out.result.format = "plain-numbers";
      out.result.records = p.values.size();
      for (std::size_t i = 0; i < p.values.size(); ++i) {
        Sample s;
        s.case_name = "values";
        s.metric = "value";
        s.value = p.values[i];
        s.iteration = static_cast<int>(i);
        s.extra = {{"line", p.lines[i]}};
        out.result.samples.push_back(std::move(s));
      }
      std::size_t n_lines = 0;
      for (char c : text) n_lines += c == '\n';
      if (!text.empty() && text.back() != '\n') ++n_lines;
      out.result.lines_read = n_lines;
      break;
    }
  }
  return out;
}

}  // namespace kvmbench::parsers
