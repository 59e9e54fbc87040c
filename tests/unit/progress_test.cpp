#include "suites/engine/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using kvmbench::engine::Progress;

static std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[512];
  std::size_t k;
  while ((k = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, k);
  return s;
}

TEST(Progress, SilentWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p(10, f);  // automatic: a file is not a terminal
    EXPECT_FALSE(p.enabled());
    p.update("directmap anon-4k", 1, 10);
    p.step_done();
    p.finish();
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(Progress, MessagesStayEvenWithoutTerminal) {
  std::FILE* f = std::tmpfile();
  Progress p(2, f);
  p.message("skipped: no SEV-SNP on this host");
  EXPECT_EQ(contents(f), "skipped: no SEV-SNP on this host\n");
  std::fclose(f);
}

TEST(Progress, LineSaysWhatWhichIterationAndTimeLeft) {
  std::FILE* f = std::tmpfile();
  Progress p(10, f, Progress::Mode::always);
  p.update("rmpopt sweep", 3, 10);
  p.step_done();
  p.step_done();
  // 2 of 10 steps done in 20 s: 8 left at 10 s each.
  EXPECT_EQ(p.render_line(20), "rmpopt sweep  iteration 3/10  [2/10]  ~1:20 left  20 s elapsed");
  p.finish();
  std::string out = contents(f);
  EXPECT_NE(out.find("\r\033[Krmpopt sweep  iteration 3/10"), std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 4), "\r\033[K");  // the line is cleared at the end
  std::fclose(f);
}

TEST(Progress, Durations) {
  EXPECT_EQ(Progress::format_duration(12.4), "12 s");
  EXPECT_EQ(Progress::format_duration(245), "4:05");
  EXPECT_EQ(Progress::format_duration(3723), "1:02:03");
}
