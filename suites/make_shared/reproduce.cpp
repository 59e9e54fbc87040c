// post 002's table from results/reference/make_shared_to_shared.log.
#include <fmt/format.h>

#include "suites/make_shared/report.h"

namespace kvmbench::suites::make_shared {

Reproduction reproduce_document(const std::filesystem::path& dir, const ReproduceOptions&) {
  Reproduction r{"make_shared", "post 002 (Tng, guest_memfd v10 12/41)", {}, {}, {}};
  const std::filesystem::path f = dir / "make_shared_to_shared.log";
  r.files.push_back(f.string());
  r.tables = report_tables(reference_kernel_log(f), kReplaySource);
  r.notes.push_back("document: \"Looks to me it is within noise.\" (Ackerley Tng)");
  return r;
}

}  // namespace kvmbench::suites::make_shared
