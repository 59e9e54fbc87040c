// `report`'s one line of what a run changed on the host (meta.json
// "host_changes"): a reload per repetition counted once, its times, and
// whether all was put back.
#include "suites/engine/host_changes_line.h"

#include <gtest/gtest.h>

using kvmbench::engine::host_changes_line;

TEST(HostChangesLine, ReloadsPerRepetitionAreOneEntryWithTheirTimesAndTheRestore) {
  const nlohmann::json meta = {
      {"host_changes",
       {{{"kind", "module_reload"}, {"path", "/sys/module/kvm_amd"}, {"old", "npt=Y"}, {"new", "npt=N"},
         {"set_at", "2026-12-02T10:15:02Z"}, {"restored_at", "2026-12-02T10:16:40Z"}},
        {{"kind", "module_reload"}, {"path", "/sys/module/kvm_amd"}, {"old", "npt=Y"}, {"new", "npt=N"},
         {"set_at", "2026-12-02T10:18:00Z"}, {"restored_at", "2026-12-02T10:19:40Z"}}}}};
  EXPECT_EQ(host_changes_line(meta),
            "host changes: /sys/module/kvm_amd reloaded npt=Y -> npt=N x2 (10:15:02 .. 10:19:40 UTC), all put back");
}

TEST(HostChangesLine, AChangeNotPutBackIsSaid) {
  const nlohmann::json meta = {
      {"host_changes",
       {{{"kind", "knob"}, {"path", "/sys/kernel/mm/transparent_hugepage/enabled"}, {"old", "madvise"},
         {"new", "always"}, {"set_at", "2026-12-02T10:15:02Z"}, {"restore_error", "EACCES"}}}}};
  EXPECT_EQ(host_changes_line(meta),
            "host changes: /sys/kernel/mm/transparent_hugepage/enabled set madvise -> always (10:15:02 UTC), 1 NOT "
            "put back (`kvmbench restore`)");
  EXPECT_EQ(host_changes_line({{"host_changes", nlohmann::json::array()}}), "host changes: none");
  EXPECT_EQ(host_changes_line({{"suite", "asid"}}), "");
}
