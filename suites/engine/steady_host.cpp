#include "suites/engine/steady_host.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "hostlib/facts/free_page_reporting.h"
#include "hostlib/os/kernel_files.h"

namespace kvmbench::engine {

using host::KnobSet;

namespace {

// MAX_PAGE_ORDER on x86 (include/linux/mmzone.h without
// CONFIG_ARCH_FORCE_MAX_ORDER): page_reporting_process_zone() walks the
// orders from page_reporting_order up to it, so one above it reports nothing.
constexpr int kLargestBuddyOrder = 10;
constexpr const char* kReportingOrder = "/sys/module/page_reporting/parameters/page_reporting_order";
constexpr const char* kAslr = "/proc/sys/kernel/randomize_va_space";
constexpr const char* kDefrag = "/sys/kernel/mm/transparent_hugepage/defrag";

std::string current(const KnobSet& knobs, const std::string& path) {
  const auto text = host::read_kernel_value(knobs.root() / std::filesystem::path(path).relative_path());
  return text ? host::knob_value_from_text(*text) : std::string();
}

// Sets one knob to `value` unless it holds it already; a refusal is kept
// as the reason it was left.
SteadySetting set_one(KnobSet& knobs, std::string name, const std::string& path, const std::string& value) {
  SteadySetting s{std::move(name), path, current(knobs, path), "", ""};
  if (s.was == value) {
    s.now = s.was;
    s.left_why = "already " + value;
    return s;
  }
  try {
    s.now = knobs.set(path, value);
  } catch (const std::exception& e) {
    s.now = s.was;
    s.left_why = e.what();
  }
  return s;
}

SteadySetting hold_off_page_reporting(KnobSet& knobs) {
  const auto order = host::free_page_reporting_order(knobs.root() / "sys");
  if (!order)
    return {"free page reporting", "", "", "", "no virtio-balloon device here reports free pages"};
  if (*order > kLargestBuddyOrder)
    return {"free page reporting", kReportingOrder, std::to_string(*order), std::to_string(*order),
            fmt::format("already held off (order {} is above the largest buddy order, {})", *order,
                        kLargestBuddyOrder)};
  auto s = set_one(knobs, "free page reporting", kReportingOrder, std::to_string(kLargestBuddyOrder + 1));
  if (!s.changed())
    s.left_why += fmt::format(" (this kernel clamps page_reporting_order to MAX_PAGE_ORDER: free blocks of 2^{} "
                              "pages are still reported)", s.was);
  return s;
}

SteadySetting performance_governor(KnobSet& knobs) {
  SteadySetting s{"CPU frequency governor", "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor", "", "", ""};
  const auto before = knobs.changes().size();
  try {
    knobs.set_governor("performance");
  } catch (const std::exception& e) {
    s.left_why = e.what();
    return s;
  }
  // set_governor writes every CPU's; the first change says what it was.
  if (knobs.changes().size() > before) {
    s.was = knobs.changes()[before].old_value;
    s.now = "performance";
  } else {
    s.was = s.now = "performance";
    s.left_why = "already performance";
  }
  return s;
}

SteadySetting calm_thp_defrag(KnobSet& knobs, const SteadyChoice& choice) {
  const std::string was = current(knobs, kDefrag);
  if (was.empty()) return {"THP defrag", "", "", "", "no transparent hugepages on this kernel"};
  if (choice.keep_thp_defrag)
    return {"THP defrag", kDefrag, was, was, "a suite of this run measures THP: its defrag setting is part of it"};
  if (was != "always") return {"THP defrag", kDefrag, was, was, fmt::format("already {} (not always)", was)};
  return set_one(knobs, "THP defrag", kDefrag, "madvise");
}

}  // namespace

std::vector<SteadySetting> make_host_steady(KnobSet& knobs, const SteadyChoice& choice) {
  return {hold_off_page_reporting(knobs), set_one(knobs, "ASLR", kAslr, "0"), performance_governor(knobs),
          calm_thp_defrag(knobs, choice)};
}

nlohmann::json steady_json(const std::vector<SteadySetting>& settings) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& s : settings) {
    nlohmann::json e = {{"setting", s.name}, {"path", s.path}, {"was", s.was}, {"now", s.now}};
    if (!s.changed()) e["left"] = s.left_why;
    j.push_back(std::move(e));
  }
  return j;
}

std::string steady_line(const std::vector<SteadySetting>& settings) {
  std::string changed, left;
  for (const auto& s : settings) {
    if (s.changed())
      changed += fmt::format("{}{} {} -> {}", changed.empty() ? "" : ", ", s.name, s.was, s.now);
    else
      left += fmt::format("{}{} ({})", left.empty() ? "" : "; ", s.name, s.left_why);
  }
  return fmt::format("steady: {}{}", changed.empty() ? "nothing changed" : changed,
                     left.empty() ? "" : "; left: " + left);
}

}  // namespace kvmbench::engine
