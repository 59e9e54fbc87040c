// How an exception leaving a subcommand ends kvmbench: usage errors and bad
// input exit 2, bugs exit 70 and say they are bugs (suites/framework/errors.h).
#include "suites/framework/errors.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

namespace kvmbench {
namespace {

template <typename F>
ExitVerdict verdict_of(F&& throwing) {
  try {
    throwing();
  } catch (...) {
    return exit_verdict(std::current_exception(), kExitUsage);
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

TEST(ExitVerdict, ExitErrorKeepsItsCodeAndMessage) {
  const ExitVerdict v = verdict_of([] { cannot_run("no SVM here"); });
  EXPECT_EQ(v.code, kExitCannotRun);
  EXPECT_EQ(v.message, "no SVM here");
  EXPECT_EQ(verdict_of([] { throw ExitError(kExitInterrupted, ""); }).message, "");
}

TEST(ExitVerdict, ValuesAUserGaveAreUsageErrors) {
  // std::stoi's own exceptions: a word, and a number too large for an int.
  const ExitVerdict word = verdict_of([] { [[maybe_unused]] int n = std::stoi("many"); });
  EXPECT_EQ(word.code, kExitUsage);
  EXPECT_EQ(word.message.rfind("error: ", 0), 0u) << word.message;
  EXPECT_EQ(verdict_of([] { [[maybe_unused]] int n = std::stoi("99999999999999999999"); }).code, kExitUsage);
  EXPECT_EQ(verdict_of([] { throw std::invalid_argument("--set cpus=99: this host has 2 CPUs"); }).message,
            "error: --set cpus=99: this host has 2 CPUs");
}

TEST(ExitVerdict, FilesHostsAndDocumentsThatFailAreBadInput) {
  EXPECT_EQ(verdict_of([] { [[maybe_unused]] auto doc = nlohmann::json::parse("{\"truncated\": "); }).code, kExitUsage);
  EXPECT_EQ(verdict_of([] { [[maybe_unused]] auto size = std::filesystem::file_size("/nonexistent/kvmbench/run"); }).code,
            kExitUsage);
  EXPECT_EQ(verdict_of([] { throw std::runtime_error("cannot open /dev/kvm"); }).code, kExitUsage);
}

TEST(ExitVerdict, BrokenInvariantsAreBugsAndSaySo) {
  const ExitVerdict logic = verdict_of([] { throw std::logic_error("RunWriter::append after finish"); });
  EXPECT_EQ(logic.code, kExitInternalError);
  EXPECT_NE(logic.message.find("internal error (a bug in kvmbench"), std::string::npos) << logic.message;
  EXPECT_NE(logic.message.find("RunWriter::append after finish"), std::string::npos);
  EXPECT_EQ(verdict_of([] { [[maybe_unused]] int v = std::optional<int>().value(); }).code, kExitInternalError);
  EXPECT_EQ(verdict_of([] { [[maybe_unused]] int v = std::get<int>(std::variant<int, double>(1.0)); }).code,
            kExitInternalError);
  EXPECT_EQ(verdict_of([] { throw 42; }).code, kExitInternalError);
}

// A catch site that names the file: what the input causes ends with exit 2
// and the file's name; a bug inside passes on, so exit_verdict still says 70.
TEST(NamingBadInput, BadInputIsNamedAndEndsWithTheUsageCode) {
  try {
    naming_bad_input("runs/a: ", [] { throw std::runtime_error("meta.json: malformed JSON"); });
    FAIL() << "did not throw";
  } catch (const ExitError& e) {
    EXPECT_EQ(e.code, kExitUsage);
    EXPECT_STREQ(e.what(), "runs/a: meta.json: malformed JSON");
  }
  EXPECT_EQ(naming_bad_input("x: ", [] { return 7; }), 7);
}

TEST(NamingBadInput, ABugInsideStaysABug) {
  const ExitVerdict v = verdict_of([] { naming_bad_input("runs/a: ", [] { throw std::logic_error("broken"); }); });
  EXPECT_EQ(v.code, kExitInternalError);
  EXPECT_NE(v.message.find("broken"), std::string::npos) << v.message;
  EXPECT_EQ(v.message.find("runs/a"), std::string::npos) << v.message;
  EXPECT_EQ(verdict_of([] { naming_bad_input("", [] { return std::optional<int>().value(); }); }).code,
            kExitInternalError);
}

TEST(NamingBadInput, AnExitErrorKeepsItsCodeAndMessage) {
  const ExitVerdict v =
      verdict_of([] { naming_bad_input("runs/a: ", [] { throw ExitError(kExitInterrupted, "interrupted"); }); });
  EXPECT_EQ(v.code, kExitInterrupted);
  EXPECT_EQ(v.message, "interrupted");
  EXPECT_EQ(verdict_of([] { naming_bad_input("runs/a: ", [] { usage_error("runs/a: no such file"); }); }).message,
            "runs/a: no such file");
}

TEST(IsBadInput, AsExitVerdictSays) {
  auto error_of = [](auto&& throwing) {
    try {
      throwing();
    } catch (...) {
      return std::current_exception();
    }
    return std::exception_ptr();
  };
  EXPECT_TRUE(is_bad_input(error_of([] { throw std::runtime_error("cannot open x"); })));
  EXPECT_TRUE(is_bad_input(error_of([] { usage_error("--alpha 2"); })));
  EXPECT_FALSE(is_bad_input(error_of([] { throw std::logic_error("broken"); })));
  EXPECT_FALSE(is_bad_input(error_of([] { cannot_run("no SVM"); })));
}

}  // namespace
}  // namespace kvmbench
