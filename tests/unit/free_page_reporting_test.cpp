// free_page_reporting_order (hostlib/facts/free_page_reporting.h) on a
// made-up sysfs tree laid out as the virtio bus and the page_reporting
// module lay it out: a balloon device's "features" has one digit per
// feature bit, bit 0 first; VIRTIO_BALLOON_F_REPORTING is bit 5.
#include <gtest/gtest.h>

#include "hostlib/facts/free_page_reporting.h"
#include "tests/support/run_command.h"

using kvmbench::host::free_page_reporting_order;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;

namespace {

const char* kOrder = "module/page_reporting/parameters/page_reporting_order";
const char* kFeatures = "bus/virtio/drivers/virtio_balloon/virtio0/features";

TEST(FreePageReporting, ABalloonThatReportsGivesTheOrder) {
  TempDir t;
  EXPECT_FALSE(free_page_reporting_order(t.path)) << "no balloon: nothing is reported";
  write_text(t.path / kOrder, "9\n");
  EXPECT_FALSE(free_page_reporting_order(t.path)) << "the module alone reports nothing";
  // This machine's balloon: bits 1, 2, 5 and 32.
  write_text(t.path / kFeatures, "0110010000000000000000000000000010000000\n");
  write_text(t.path / "bus/virtio/drivers/virtio_balloon/uevent", "DRIVER=virtio_balloon\n");
  EXPECT_EQ(free_page_reporting_order(t.path), 9);
  write_text(t.path / kOrder, "11\n");
  EXPECT_EQ(free_page_reporting_order(t.path), 11);
}

TEST(FreePageReporting, ABalloonWithoutTheFeatureReportsNothing) {
  TempDir t;
  write_text(t.path / kOrder, "9\n");
  write_text(t.path / kFeatures, "0110000000000000000000000000000010000000\n");  // bit 5 clear
  EXPECT_FALSE(free_page_reporting_order(t.path));
  write_text(t.path / kFeatures, "01100\n");  // too short to say
  EXPECT_FALSE(free_page_reporting_order(t.path));
}

TEST(FreePageReporting, WithoutTheParameterTheOrderIsThePageblocks) {
  TempDir t;
  write_text(t.path / kFeatures, "0110010000000000000000000000000010000000\n");
  EXPECT_EQ(free_page_reporting_order(t.path), 9);
}

}  // namespace
