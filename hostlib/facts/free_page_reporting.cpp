#include "hostlib/facts/free_page_reporting.h"

#include <charconv>
#include <string>
#include <system_error>

#include "hostlib/os/kernel_files.h"

namespace kvmbench::host {

namespace {

// VIRTIO_BALLOON_F_REPORTING (include/uapi/linux/virtio_balloon.h); a
// device's "features" file is one '0' or '1' per feature bit, bit 0 first.
constexpr std::size_t kReportingBit = 5;

bool balloon_reports(const std::filesystem::path& sysfs) {
  std::error_code ec;
  const auto driver = sysfs / "bus/virtio/drivers/virtio_balloon";
  for (std::filesystem::directory_iterator it(driver, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind("virtio", 0) != 0) continue;  // bind, unbind, uevent
    const auto features = read_kernel_value(it->path() / "features");
    if (features && features->size() > kReportingBit && (*features)[kReportingBit] == '1') return true;
  }
  return false;
}

}  // namespace

std::optional<int> free_page_reporting_order(const std::filesystem::path& sysfs) {
  if (!balloon_reports(sysfs)) return std::nullopt;
  // Without the parameter (kernels before 5.14), the order is
  // pageblock_order: 9 on x86 with 4 KiB pages.
  const auto text = read_kernel_value(sysfs / "module/page_reporting/parameters/page_reporting_order");
  int order = 9;
  if (text) std::from_chars(text->data(), text->data() + text->size(), order);
  return order;
}

}  // namespace kvmbench::host
