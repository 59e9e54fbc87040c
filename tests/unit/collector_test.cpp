// The two collectors behind RunContext::collector(): what the replay one
// reads from a capture directory (per-iteration file first, then the shared
// one; bad input as ExitError(2)) and what the live one does instead.
#include <gtest/gtest.h>

#include <fstream>

#include "suites/framework/collector.h"
#include "suites/framework/errors.h"
#include "hostlib/os/scoped_temp_dir.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

using namespace kvmbench;
using namespace kvmbench::suites;

namespace {

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

struct Fixture {
  host::ScopedTempDir dir{"kvmbench-collector-test"};
  HostCaps caps;
  std::vector<Sample> emitted;
  RunContext ctx{caps, {}, 1, dir.path() / "run", [this](const Sample& s) { emitted.push_back(s); }};
};

int exit_code_of(const std::function<void()>& f, std::string& message) {
  try {
    f();
  } catch (const ExitError& e) {
    message = e.what();
    return e.code;
  }
  return 0;
}

}  // namespace

TEST(ReplayCollector, TakesTheIterationsCaptureBeforeTheSharedOne) {
  Fixture f;
  write(f.dir.path() / "npt.txt", "N\n");
  write(f.dir.path() / "npt.it1.txt", "# as read there\nY\n");
  auto c = replay_collector(f.dir.path());
  bool asked_live = false;
  auto live = [&] {
    asked_live = true;
    return std::string("live");
  };
  f.ctx.set_iteration(0, false);
  const std::string t0 = c->host_text(f.ctx, "npt", live);
  f.ctx.set_iteration(1, false);
  const std::string t1 = c->host_text(f.ctx, "npt", live);
  EXPECT_EQ(t0, "N\n");
  EXPECT_EQ(t1, "# as read there\nY\n");
  // A fact is the capture's reading of its text, not this host's.
  EXPECT_EQ(c->host_fact(f.ctx, "npt", live, [](const std::string& text) { return "captured: " + text; }),
            "captured: # as read there\nY\n");
  EXPECT_FALSE(asked_live);
  EXPECT_EQ(c->host_text(f.ctx, "absent", live), "");
}

TEST(ReplayCollector, AMissingKernelLogCaptureIsBadInputNamingBothFiles) {
  Fixture f;
  auto c = replay_collector(f.dir.path());
  f.ctx.set_iteration(2, false);
  bool ran = false;
  std::string message;
  const int code =
      exit_code_of([&] { (void)c->kernel_log_while(f.ctx, {"p", "why: ", false}, [&] { ran = true; }); }, message);
  EXPECT_EQ(code, kExitUsage);
  EXPECT_NE(message.find("kmsg.it2.log"), std::string::npos) << message;
  EXPECT_NE(message.find("(or kmsg.log)"), std::string::npos) << message;
  // What runs beside the log (the guests) is read first, as a live run runs it first.
  EXPECT_TRUE(ran);

  write(f.dir.path() / "kmsg.log", "line\n");
  EXPECT_EQ(c->kernel_log_while(f.ctx, {"p", "why: ", false}, [] {}), std::optional<std::string>("line\n"));
}

TEST(ReplayCollector, ASettingTheCaptureContradictsIsBadInput) {
  Fixture f;
  write(f.dir.path() / "npt-on.txt", "off\n");
  auto c = replay_collector(f.dir.path());
  bool applied = false;
  HostSetting s{.stem = "npt-on",
                .name = "npt",
                .want = "on",
                .apply =
                    [&] {
                      applied = true;
                      return std::string();
                    },
                .state = [](const std::string& text) { return text.substr(0, text.find('\n')); }};
  std::string message;
  EXPECT_EQ(exit_code_of([&] { (void)c->apply(f.ctx, s); }, message), kExitUsage);
  EXPECT_NE(message.find("npt-on.txt"), std::string::npos) << message;
  EXPECT_NE(message.find("says npt was off"), std::string::npos) << message;
  EXPECT_FALSE(applied);
  // A capture that does not say is taken as it comes.
  s.state = [](const std::string&) { return std::string("unknown"); };
  EXPECT_EQ(c->apply(f.ctx, s), "");
}

TEST(ReplayCollector, WorkOnlyForThisHostIsNotDoneAndNotedOnce) {
  Fixture f;
  auto c = replay_collector(f.dir.path());
  bool ran = false;
  for (int it = 0; it < 2; ++it) {
    f.ctx.set_iteration(it, false);
    c->on_this_host(f.ctx, [&] { ran = true; }, "user-space timings", "they time a live host");
  }
  EXPECT_FALSE(ran);
  ASSERT_EQ(f.ctx.skips().size(), 1u);
  EXPECT_EQ(f.ctx.skips()[0]["reason"], "replay: they time a live host");
  Sample s;
  c->stamp(s);
  EXPECT_EQ(s.extra["replayed"], true);
}

TEST(ReplayCollector, EmitMarksEverySampleReplayed) {
  // A suite that builds a sample itself (from a replayed kernel log) and
  // emits it gets the mark without asking for it.
  Fixture f;
  auto c = replay_collector(f.dir.path());
  f.ctx.set_collector(c.get());
  Sample built;
  built.metric = "sweep_time";
  f.ctx.emit(built);
  ASSERT_EQ(f.emitted.size(), 1u);
  EXPECT_EQ(f.emitted[0].extra["replayed"], true);
  auto live = live_collector();
  f.ctx.set_collector(live.get());
  f.ctx.emit(built);
  EXPECT_TRUE(f.emitted[1].extra.is_null() || !f.emitted[1].extra.contains("replayed"));
}

TEST(ReplayCollector, TheSourceIsReplayAndTheHostTheCapturesOwn) {
  Fixture f;
  write(f.dir.path() / "host.json", R"({"hostname": "measured"})");
  f.caps.metadata = {{"hostname", "here"}};
  auto c = replay_collector(f.dir.path());
  EXPECT_EQ(c->source(Source::hardware, f.caps), Source::replay);
  nlohmann::json meta = {{"host", f.caps.metadata}};
  c->describe(meta, f.caps, Source::hardware);
  EXPECT_EQ(meta["host"]["hostname"], "measured");
  EXPECT_EQ(meta["replayed_on"]["hostname"], "here");

  write(f.dir.path() / "host.json", "{not json");
  std::string message;
  EXPECT_EQ(exit_code_of([&] { c->describe(meta, f.caps, Source::hardware); }, message), kExitUsage);
  EXPECT_NE(message.find("host.json: not JSON"), std::string::npos) << message;
}

TEST(LiveCollector, AsksThisHostAndMarksNothing) {
  Fixture f;
  auto c = live_collector();
  EXPECT_EQ(c->host_text(f.ctx, "npt", [] { return std::string("Y"); }), "Y");
  bool read_capture = false;
  EXPECT_EQ(c->host_fact(f.ctx, "npt", [] { return std::string("here"); },
                         [&](const std::string&) {
                           read_capture = true;
                           return std::string("captured");
                         }),
            "here");
  EXPECT_FALSE(read_capture);
  bool ran = false;
  c->on_this_host(f.ctx, [&] { ran = true; }, "part", "why not");
  EXPECT_TRUE(ran);
  EXPECT_TRUE(f.ctx.skips().empty());
  EXPECT_EQ(c->apply(f.ctx, {.stem = "x", .name = "x", .want = "on", .apply = [] { return std::string("refused"); },
                             .state = {}}),
            "refused");
  Sample s;
  c->stamp(s);
  EXPECT_TRUE(s.extra.is_null() || !s.extra.contains("replayed"));
  // An emulated CPU measures nothing of hardware.
  f.caps.emulated_reason = "TCG";
  EXPECT_EQ(c->source(Source::hardware, f.caps), Source::emulated);
  EXPECT_EQ(c->source(Source::emulated, f.caps), Source::emulated);
}

TEST(RunContext, CollectingWithoutACollectorIsABug) {
  HostCaps caps;
  RunContext ctx(caps, {}, 1, "/nonexistent", [](const Sample&) {});
  EXPECT_THROW((void)ctx.collector(), std::logic_error);
}
