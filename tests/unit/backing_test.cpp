// The backing table (hostlib/measure/backing.h): every name parses back to its row,
// and any other text is refused with the names that would have worked.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "hostlib/measure/backing.h"
#include "hostlib/measure/fresh_memory.h"

using namespace kvmbench::host;

TEST(Backing, EveryNameParsesBackToItsRow) {
  std::set<std::string> names;
  for (const BackingInfo& b : backing_table()) {
    EXPECT_EQ(parse_backing(b.name), b.backing) << b.name;
    EXPECT_EQ(backing_name(b.backing), b.name);
    EXPECT_FALSE(b.description.empty()) << b.name;
    EXPECT_TRUE(names.insert(std::string(b.name)).second) << "two rows named " << b.name;
  }
  EXPECT_EQ(names.size(), all_backings().size());
}

TEST(Backing, UnknownNameListsTheKnownOnes) {
  try {
    parse_backing("tmpfs");
    FAIL() << "tmpfs parsed";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'tmpfs'"), std::string::npos) << what;
    for (const auto& n : backing_names()) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
  EXPECT_FALSE(find_backing("Anon-4k"));  // names are exact
}

TEST(Backing, MappingsRoundToTheBackingsPage) {
  EXPECT_EQ(mapped_bytes(Backing::anon_4k, 1), 4096u);
  EXPECT_EQ(mapped_bytes(Backing::hugetlb_2m, 1), 2u << 20);
  EXPECT_EQ(mapped_bytes(Backing::hugetlb_1g, (1u << 30) + 1), 2ULL << 30);
  EXPECT_EQ(mapped_bytes(Backing::memfd, 8192), 8192u);
}
