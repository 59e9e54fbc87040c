#include "analysis/label.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

using namespace kvmbench;

// The same text is the same label (one entry), whichever way it was made,
// and reads like the text: comparisons, order, concatenation, fmt, JSON.
TEST(Label, SameTextSameEntryAndReadsLikeTheText) {
  const std::string text = "nr_pages=1048576";
  const Label a = text, b = std::string_view(text), c = "nr_pages=1048576", other = "nr_pages=1";
  EXPECT_EQ(a.id(), b.id());
  EXPECT_EQ(a.id(), c.id());
  EXPECT_NE(a.id(), other.id());
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == other);
  EXPECT_TRUE(a == "nr_pages=1048576");
  EXPECT_TRUE(a != "nr_pages=1");
  EXPECT_TRUE(other < a);  // by text, as std::string orders them
  EXPECT_EQ(a.str(), text);
  EXPECT_EQ(a.size(), text.size());
  EXPECT_TRUE(a.starts_with("nr_pages="));
  EXPECT_EQ(a.find('='), 8u);
  EXPECT_EQ("case " + a + "/x", "case nr_pages=1048576/x");
  EXPECT_EQ(fmt::format("[{:>18}]", a), "[  nr_pages=1048576]");
  EXPECT_EQ(nlohmann::json(a), nlohmann::json("nr_pages=1048576"));
  EXPECT_TRUE(Label().empty());
  EXPECT_EQ(Label().id(), Label("").id());
  // Ordered and hashed containers see one key per text.
  std::set<Label> ordered = {"b", "a", "b"};
  EXPECT_EQ(ordered.size(), 2u);
  EXPECT_EQ(*ordered.begin(), "a");
  std::unordered_set<Label> hashed = {a, b, c, other};
  EXPECT_EQ(hashed.size(), 2u);
}

// Its JSON literal is made once, escaped as samples.jsonl needs.
TEST(Label, KeepsItsJsonLiteral) {
  EXPECT_EQ(Label("total_cycles").json(), "\"total_cycles\"");
  EXPECT_EQ(Label("a\"b\\c\n").json(), "\"a\\\"b\\\\c\\n\"");
  EXPECT_EQ(Label("").json(), "\"\"");
}

// Threads interning the same texts at once get one entry per text (the
// parse threads of a long log make labels side by side).
TEST(Label, ThreadsShareEntries) {
  constexpr int kTexts = 2000;
  std::vector<std::vector<const Label::Entry*>> seen(4, std::vector<const Label::Entry*>(kTexts));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kTexts; ++i) {
        const int k = (i * 7919 + t * 500) % kTexts;  // a permutation; each thread starts elsewhere
        seen[t][k] = Label("group=" + std::to_string(k)).id();
      }
    });
  for (auto& th : threads) th.join();
  for (int k = 0; k < kTexts; ++k) {
    for (int t = 1; t < 4; ++t) EXPECT_EQ(seen[t][k], seen[0][k]) << k;
    EXPECT_EQ(seen[0][k]->text, "group=" + std::to_string(k));
  }
}
