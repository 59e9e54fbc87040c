#include "suites/framework/param_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "analysis/model/units.h"
#include "hostlib/os/cpu_list.h"
#include "suites/framework/param_text.h"
#include "suites/framework/errors.h"

namespace kvmbench::suites {

namespace {

std::optional<long long> whole_number(const std::string& v) {
  long long out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return out;
}

}  // namespace

ParamCheck size_at_least(unsigned long long min) {
  return [min](const std::string& v, const HostCaps&) {
    const std::string what = fmt::format("a size such as 4K, 1G or 2T, at least {}", format_bytes(min));
    auto b = parse_bytes(v);
    // "is not a size": the wording ParamText::bytes uses too.
    if (!b) throw std::invalid_argument(fmt::format("{}; '{}' is not a size", what, v));
    if (*b < min) throw std::invalid_argument(fmt::format("{}; {} is less", what, v));
  };
}

ParamCheck integer_at_least(long long min) {
  return [min](const std::string& v, const HostCaps&) {
    auto n = whole_number(v);
    if (!n) throw std::invalid_argument(fmt::format("a whole number of at least {}; '{}' is not a number", min, v));
    if (*n < min) throw std::invalid_argument(fmt::format("a whole number of at least {}; {} is less", min, v));
  };
}

std::optional<double> finite_number(const std::string& text) {
  std::size_t used = 0;
  double d = 0;
  try {
    d = std::stod(text, &used);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  } catch (const std::out_of_range&) {
    return std::nullopt;
  }
  if (text.empty() || used != text.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

ParamCheck positive_number() {
  return [](const std::string& v, const HostCaps&) {
    const std::string what = "a number greater than 0";
    const auto d = finite_number(v);
    if (!d) throw std::invalid_argument(fmt::format("{}; '{}' is not a number", what, v));
    if (*d <= 0) throw std::invalid_argument(fmt::format("{}; {} is not", what, v));
  };
}

ParamCheck one_of(std::vector<std::string> valid) {
  return [valid = std::move(valid)](const std::string& v, const HostCaps&) {
    if (std::find(valid.begin(), valid.end(), v) == valid.end())
      throw std::invalid_argument(fmt::format("one of {}", fmt::join(valid, ", ")));
  };
}

ParamCheck list_of(std::vector<std::string> valid, std::string empty_means) {
  return [valid = std::move(valid), empty_means = std::move(empty_means)](const std::string& v, const HostCaps&) {
    const std::string what = fmt::format("a comma-separated list of {}{}", fmt::join(valid, ", "),
                                         empty_means.empty() ? "" : " (empty: " + empty_means + ")");
    const auto items = split_list(v);
    if (items.empty() && empty_means.empty()) throw std::invalid_argument(what + "; it is empty");
    for (const auto& item : items)
      if (std::find(valid.begin(), valid.end(), item) == valid.end())
        throw std::invalid_argument(fmt::format("{}; '{}' is not one", what, item));
  };
}

ParamCheck counts_list() {
  return [](const std::string& v, const HostCaps&) {
    for (const auto& item : split_list(v)) {
      auto n = whole_number(item);
      if (!n || *n < 1)
        throw std::invalid_argument(fmt::format("a comma-separated list of whole numbers of at least 1; '{}' is not",
                                                item));
    }
  };
}

ParamCheck cpu_list_on_host() {
  return [](const std::string& v, const HostCaps& caps) {
    if (v == "all") return;
    const std::string valid =
        fmt::format("all, or a CPU list such as 0-1,3 of this host's {} online CPUs (0-{})", caps.online_cpus,
                    caps.online_cpus - 1);
    std::vector<int> cpus;
    try {
      cpus = host::parse_cpu_list(v);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{} ({})", valid, e.what()));
    }
    if (cpus.empty()) throw std::invalid_argument(valid + "; it is empty");
    for (int c : cpus)
      if (c < 0 || static_cast<unsigned>(c) >= caps.online_cpus)
        throw std::invalid_argument(fmt::format("{}; CPU {} is not one", valid, c));
  };
}

void check_overrides(const Preset& preset, const std::map<std::string, std::string>& overrides,
                     const HostCaps& caps) {
  for (const auto& d : preset.params) {
    auto it = overrides.find(d.name);
    if (it == overrides.end() || !d.check) continue;
    try {
      d.check(it->second, caps);
    } catch (const std::invalid_argument& e) {
      usage_error(fmt::format("--set {}={}: {} is {}", d.name, it->second, d.name, e.what()));
    }
  }
}

std::map<std::string, std::string> param_values(const Preset& preset,
                                                const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> text;
  for (const auto& d : preset.params) {
    auto it = overrides.find(d.name);
    text[d.name] = it == overrides.end() ? d.default_value : it->second;
  }
  return text;
}

BootNeed boot_need(const Preset& preset, const HostCaps& caps, const std::map<std::string, std::string>& overrides) {
  if (!preset.boot) return {};
  return preset.boot(caps, ParamText(param_values(preset, overrides)));
}

std::string why_not_here(const Preset& preset, const HostCaps& caps,
                         const std::map<std::string, std::string>& overrides) {
  const BootNeed boot = boot_need(preset, caps, overrides);
  if (!boot.this_boot) return fmt::format("needs another boot, with {}: {}", boot.setting, boot.why);
  return preset.unsupported_reason ? preset.unsupported_reason(caps) : "";
}

ResolvedParams resolve_params(const Preset& preset, const std::map<std::string, std::string>& overrides,
                              const HostCaps& caps) {
  check_overrides(preset, overrides, caps);
  ResolvedParams out;
  out.text = param_values(preset, overrides);
  if (preset.parse) out.parsed = preset.parse(ParamText(out.text));
  return out;
}

}  // namespace kvmbench::suites
