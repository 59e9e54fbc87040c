#include "analysis/parse/kselftest_outcome.h"

#include <fmt/format.h>

#include "analysis/model/text_lines.h"

#include <cctype>

namespace kvmbench::parsers {

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Removes a leading run of digits and the blanks after it; false when there is none.
bool eat_number(std::string_view& t) {
  std::size_t i = 0;
  while (i < t.size() && is_digit(t[i])) ++i;
  if (i == 0) return false;
  t = trimmed(t.substr(i));
  return true;
}

// "selftests: kvm: NAME" -> NAME, "" for anything else.
std::string_view runner_test(std::string_view t) {
  constexpr std::string_view kPrefix = "selftests: ";
  if (!t.starts_with(kPrefix)) return {};
  t.remove_prefix(kPrefix.size());
  const std::size_t colon = t.find(": ");
  if (colon == std::string_view::npos || colon == 0 || t.substr(0, colon).find(' ') != std::string_view::npos)
    return {};
  const std::string_view name = trimmed(t.substr(colon + 2));
  return name.empty() || name.find(' ') != std::string_view::npos ? std::string_view() : name;
}

// A TAP directive that is not a failure even after "not ok".
bool excusing_directive(std::string_view d) {
  for (std::string_view w : {"SKIP", "skip", "TODO", "todo", "XFAIL"})
    if (d.starts_with(w)) return true;
  return false;
}

}  // namespace

std::string_view test_basename(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

TestOutcome kselftest_outcome(std::string_view line) {
  const std::string_view l = trimmed(line);
  TestOutcome out;
  if (const std::string_view name = runner_test(l); !name.empty()) {
    out.kind = OutcomeKind::test_start;
    out.test = std::string(test_basename(name));
    return out;
  }
  // "ok N ..." / "not ok N ...": the runner's when it names "selftests: ...".
  const bool not_ok = l.starts_with("not ok ");
  if (not_ok || l.starts_with("ok ")) {
    std::string_view rest = l.substr(not_ok ? 7 : 3);
    if (!eat_number(rest)) return out;
    std::string_view directive;
    if (const std::size_t hash = rest.find(" # "); hash != std::string_view::npos) {
      directive = trimmed(rest.substr(hash + 3));
      rest = trimmed(rest.substr(0, hash));
    } else if (rest.ends_with(" #")) {
      rest = trimmed(rest.substr(0, rest.size() - 2));
    }
    const std::string_view name = runner_test(rest);
    const bool failed = not_ok && !excusing_directive(directive);
    if (!name.empty()) {
      out.kind = failed ? OutcomeKind::test_failed : OutcomeKind::test_passed;
      out.test = std::string(test_basename(name));
      if (failed) out.reason = directive.empty() ? "not ok" : std::string(directive);
      return out;
    }
    if (failed) {  // a case of the running test's own TAP
      out.kind = OutcomeKind::test_failed;
      out.reason = std::string(l);
    }
    return out;
  }
  auto failure = [&] {
    out.kind = OutcomeKind::test_failed;
    out.reason = std::string(l);
    return out;
  };
  if (l.starts_with("Bail out!")) return failure();
  if (l.starts_with("FAILED: ")) return failure();  // kselftest_harness: "FAILED: 0 / 1 tests passed."
  if (l.starts_with("FAIL ") && l.size() > 5 && !trimmed(l.substr(5)).empty() &&
      trimmed(l.substr(5)).find(' ') == std::string_view::npos)
    return failure();  // kselftest_harness: "FAIL  global.name"
  if (l.starts_with("Totals: ")) {  // "Totals: pass:4 fail:1 xfail:0 ..."
    const std::size_t at = l.find(" fail:");
    if (at != std::string_view::npos) {
      std::string_view n = l.substr(at + 6);
      if (!n.empty() && is_digit(n.front()) && n.front() != '0') return failure();
    }
  }
  return out;
}

bool AssertionBlock::starts(std::string_view line) { return trimmed(line) == "==== Test Assertion Failure ===="; }

void AssertionBlock::begin() {
  open_ = true;
  step_ = 0;
  where_.clear();
  message_.clear();
}

bool AssertionBlock::take(std::string_view line) {
  if (!open_) return false;
  const std::string_view l = trimmed(line);
  // Whatever kselftest prints next (the runner's "not ok") ends the block.
  if (kselftest_outcome(l).kind != OutcomeKind::none) {
    open_ = false;
    return false;
  }
  switch (step_) {
    case 0:
      where_ = std::string(l);
      step_ = 1;
      return true;
    case 1:
      step_ = 2;
      if (l.starts_with("pid=")) return true;
      [[fallthrough]];
    case 2: {
      // "1  0x0000000000402f7c: addr_gpa2hva at kvm_util.c:1411", "2   (inlined by) ...",
      // "(stack trace empty)"
      std::string_view rest = l;
      if (l == "(stack trace empty)" ||
          (eat_number(rest) && (rest.starts_with("0x") || rest.starts_with("(inlined by)") || rest.starts_with("??"))))
        return true;
      if (l.empty()) {
        open_ = false;
        return false;
      }
      message_ = std::string(l);
      step_ = 3;
      return true;
    }
    default:
      open_ = false;
      return false;
  }
}

std::string AssertionBlock::reason() const {
  std::string r = where_.empty() ? "Test Assertion Failure" : "Test Assertion Failure at " + where_;
  if (!message_.empty()) r += " (" + message_ + ")";
  return r;
}

}  // namespace kvmbench::parsers
