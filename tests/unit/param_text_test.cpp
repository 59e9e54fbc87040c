// A preset's parameter text as its parse reads it (suites/framework/param_text.h), and
// the parsed struct as its run reads it (RunContext::params, suites/framework/suite.h).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "suites/framework/errors.h"
#include "suites/framework/param_check.h"
#include "suites/framework/param_text.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

using namespace kvmbench;
using namespace kvmbench::suites;

namespace {

// The message of the ExitError(2) that `f` throws ("" when it throws none).
template <class F>
std::string usage_message(F f) {
  try {
    f();
  } catch (const ExitError& e) {
    EXPECT_EQ(e.code, kExitUsage);
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ParamText, ReadsEachKindAndNamesAMalformedValue) {
  const ParamText t({{"n", "12"}, {"x", "0.5"}, {"size", "2M"}, {"list", "a,,b"}, {"flag", "on"}, {"bad", "1x"}});
  EXPECT_EQ(t.integer("n"), 12);
  EXPECT_DOUBLE_EQ(t.number("x"), 0.5);
  EXPECT_EQ(t.bytes("size"), 2u << 20);
  EXPECT_EQ(t.list("list"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(t.either("flag", "on", "off"));
  EXPECT_EQ(usage_message([&] { t.integer("bad"); }), "parameter bad: '1x' is not an integer");
  EXPECT_EQ(usage_message([&] { t.number("bad"); }), "parameter bad: '1x' is not a number");
  EXPECT_EQ(usage_message([&] { t.bytes("bad"); }), "parameter bad: '1x' is not a size (e.g. 4K, 1G, 2T)");
  EXPECT_EQ(usage_message([&] { t.either("bad", "on", "off"); }), "parameter bad: '1x' is not on or off");
  // A name the preset does not declare is a bug in the preset, not bad input.
  EXPECT_THROW(t.text("nosuch"), std::logic_error);
}

TEST(ParamText, ResolveGivesTheTextAndWhatTheParseMadeOfIt) {
  struct Parsed {
    long long n;
  };
  const Preset p{.name = "t",
                 .params = {{"n", "3", "a count", integer_at_least(1)}, {"m", "x", "text"}},
                 .parse = parse_as(+[](const ParamText& t) { return Parsed{t.integer("n")}; })};
  const HostCaps caps;
  const ResolvedParams r = resolve_params(p, {{"n", "7"}, {"other", "1"}}, caps);
  EXPECT_EQ(r.text, (std::map<std::string, std::string>{{"n", "7"}, {"m", "x"}}));
  RunContext ctx(caps, r.parsed, 1, "/nonexistent", [](const Sample&) {});
  EXPECT_EQ(ctx.params<Parsed>().n, 7);
  // Another preset's struct is a wiring bug.
  EXPECT_THROW(ctx.params<int>(), std::logic_error);
  // The per-value check runs first, with its own message.
  EXPECT_EQ(usage_message([&] { resolve_params(p, {{"n", "0"}}, caps); }),
            "--set n=0: n is a whole number of at least 1; 0 is less");
}
