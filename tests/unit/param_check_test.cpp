// The checks a preset's parameters get before a run starts
// (suites/framework/param_check.h): what each accepts, what it says of what it refuses,
// and that every preset's own defaults pass its checks.
#include "suites/framework/param_check.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "suites/framework/errors.h"

using namespace kvmbench::suites;
using kvmbench::ExitError;

namespace {

HostCaps host_with_cpus(unsigned n) {
  HostCaps caps;
  caps.online_cpus = n;
  return caps;
}

// The message `check` refuses `value` with ("" when it accepts it).
std::string refusal(const ParamCheck& check, const std::string& value, unsigned cpus = 4) {
  try {
    check(value, host_with_cpus(cpus));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const Preset& preset(const std::string& suite, const std::string& name) {
  const Suite* s = find_suite(suite);
  if (!s || !s->find_preset(name)) throw std::logic_error(suite + " / " + name + " is not in the registry");
  return *s->find_preset(name);
}

}  // namespace

TEST(ParamCheck, SizeNamesTheFormAndTheMinimum) {
  const auto check = size_at_least(4096);
  EXPECT_EQ(refusal(check, "64M"), "");
  EXPECT_EQ(refusal(check, "4K"), "");
  EXPECT_EQ(refusal(check, "0"), "a size such as 4K, 1G or 2T, at least 4K; 0 is less");
  EXPECT_NE(refusal(check, "1Q").find("'1Q' is not a size"), std::string::npos);
}

TEST(ParamCheck, IntegerRefusesTextAndTooSmall) {
  const auto check = integer_at_least(1);
  EXPECT_EQ(refusal(check, "3"), "");
  EXPECT_EQ(refusal(check, "0"), "a whole number of at least 1; 0 is less");
  EXPECT_NE(refusal(check, "2x").find("'2x' is not a number"), std::string::npos);
  EXPECT_NE(refusal(check, "").find("is not a number"), std::string::npos);
}

TEST(ParamCheck, PositiveNumberRefusesZeroAndText) {
  const auto check = positive_number();
  EXPECT_EQ(refusal(check, "0.5"), "");
  EXPECT_EQ(refusal(check, "10"), "");
  EXPECT_EQ(refusal(check, "0"), "a number greater than 0; 0 is not");
  EXPECT_EQ(refusal(check, "-1"), "a number greater than 0; -1 is not");
  EXPECT_NE(refusal(check, "10s").find("'10s' is not a number"), std::string::npos);
  EXPECT_NE(refusal(check, "inf").find("is not a number"), std::string::npos);
}

TEST(ParamCheck, ListNamesEveryValidItemAndTheBadOne) {
  const auto check = list_of({"a", "b"}, "all");
  EXPECT_EQ(refusal(check, "a,b"), "");
  EXPECT_EQ(refusal(check, ""), "");
  EXPECT_EQ(refusal(check, "a,c"), "a comma-separated list of a, b (empty: all); 'c' is not one");
  // Without a meaning for empty, empty is refused.
  EXPECT_NE(refusal(list_of({"a"}), "").find("it is empty"), std::string::npos);
  EXPECT_EQ(refusal(one_of({"x", "y"}), "y"), "");
  EXPECT_EQ(refusal(one_of({"x", "y"}), "z"), "one of x, y");
}

TEST(ParamCheck, CountsListRefusesZeroAndText) {
  const auto check = counts_list();
  EXPECT_EQ(refusal(check, "1,2,16"), "");
  EXPECT_EQ(refusal(check, ""), "");
  EXPECT_NE(refusal(check, "1,0").find("'0' is not"), std::string::npos);
  EXPECT_NE(refusal(check, "two").find("'two' is not"), std::string::npos);
}

TEST(ParamCheck, CpuListIsCheckedAgainstTheHostsCpus) {
  const auto check = cpu_list_on_host();
  EXPECT_EQ(refusal(check, "all", 2), "");
  EXPECT_EQ(refusal(check, "0-1", 2), "");
  EXPECT_EQ(refusal(check, "99", 2),
            "all, or a CPU list such as 0-1,3 of this host's 2 online CPUs (0-1); CPU 99 is not one");
  // The same list is fine on a bigger host.
  EXPECT_EQ(refusal(check, "99", 128), "");
  EXPECT_NE(refusal(check, "0-x", 2).find("this host's 2 online CPUs"), std::string::npos);
}

TEST(ParamCheck, OverridesAreExitTwoNamingKeyValueAndValidValues) {
  const Preset& host = preset("rmpopt", "host");
  try {
    check_overrides(host, {{"layouts", "none,bogus"}}, host_with_cpus(2));
    FAIL() << "layouts=none,bogus was accepted";
  } catch (const ExitError& e) {
    EXPECT_EQ(e.code, 2);
    EXPECT_EQ(std::string(e.what()),
              "--set layouts=none,bogus: layouts is a comma-separated list of none, first, last, random:K (K from 1 "
              "to 1000000); 'bogus' is not one");
  }
  EXPECT_NO_THROW(check_overrides(host, {{"layouts", "first,random:8"}, {"cpus", "1"}}, host_with_cpus(2)));
  EXPECT_THROW(check_overrides(host, {{"cpus", "2"}}, host_with_cpus(2)), ExitError);
  // A key the preset does not declare is not its to judge.
  EXPECT_NO_THROW(check_overrides(host, {{"backings", "nope"}}, host_with_cpus(2)));
}

TEST(ParamCheck, AsidNptRefusesWhatTheRunWouldRefuse) {
  const Preset& doc = preset("asid", "document");
  const auto caps = host_with_cpus(2);
  for (const char* ok : {"on", "off", "on,off", "off,on", "as-loaded"})
    EXPECT_NO_THROW(check_overrides(doc, {{"npt", ok}}, caps)) << ok;
  for (const char* bad : {"sideways", "on,on", "on,as-loaded", ""})
    EXPECT_THROW(check_overrides(doc, {{"npt", bad}}, caps), ExitError) << bad;
}

TEST(ParamCheck, EveryPresetsDefaultsPassItsOwnChecks) {
  // On a one-CPU host: no default may depend on a bigger one.
  const auto caps = host_with_cpus(1);
  int checked = 0;
  for (const auto& s : registry())
    for (const auto& p : s.presets) {
      std::map<std::string, std::string> defaults;
      for (const auto& d : p.params) {
        defaults[d.name] = d.default_value;
        checked += d.check ? 1 : 0;
      }
      EXPECT_NO_THROW(check_overrides(p, defaults, caps)) << s.name << " / " << p.name;
    }
  EXPECT_GT(checked, 0);
}
