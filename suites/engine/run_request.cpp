#include "suites/engine/run_request.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "suites/framework/errors.h"

namespace kvmbench::engine {

namespace {

// `text` as a whole number of at least `least`; nullopt for anything else
// ("3x", "", a number out of range).
std::optional<long long> whole_number(const std::string& text, long long least) {
  try {
    std::size_t used = 0;
    const long long n = std::stoll(text, &used);
    if (used == text.size() && n >= least) return n;
  } catch (const std::invalid_argument&) {  // std::stoll's: not a number
  } catch (const std::out_of_range&) {      // ... or not one a long long holds
  }
  return std::nullopt;
}

std::optional<std::chrono::seconds> wait_lock_of(const std::string& value) {
  if (value.empty()) return std::chrono::seconds(0);
  if (value == "true") return std::nullopt;  // CLI11's value for a bare flag
  if (const auto s = whole_number(value, 0)) return std::chrono::seconds(*s);
  usage_error(fmt::format("--wait-lock={}: SECONDS is a whole number of seconds (bare --wait-lock: no limit)", value));
}

// -r and --warmup: a fixed number of repetitions or `auto`, and the
// warm-ups before them.
void set_repetitions(RunRequest& req, const std::string& repetitions, int warmup) {
  if (repetitions == "auto") {
    req.adaptive = true;
    req.warmup = warmup < 0 ? 1 : warmup;
    return;
  }
  req.warmup = warmup < 0 ? 0 : warmup;
  if (repetitions.empty()) return;
  const auto r = whole_number(repetitions, 1);
  if (!r || *r > std::numeric_limits<int>::max())
    usage_error(fmt::format("-r: '{}' is neither a positive number nor 'auto'", repetitions));
  req.repetitions = static_cast<int>(*r);
}

}  // namespace

RunRequest checked_run_request(const RunCommandLine& line) {
  RunRequest req = line.request;
  req.wait_lock = wait_lock_of(line.wait_lock);
  if (!req.host_file.empty() && !req.dry_run) usage_error("--host FILE plans for another host: it needs --dry-run");
  if (!req.kmsg_file.empty() && !req.dry_run)
    usage_error("--kmsg FILE plans with a captured kernel log: it needs --dry-run (a run reads /dev/kmsg)");
  if (req.steady && !req.replay_dir.empty())
    usage_error("--steady holds this host still for a measurement: a replay (--replay) measures nothing here");
  set_repetitions(req, line.repetitions, line.warmup);
  if (req.monitors != "off" && req.monitors != "basic" && req.monitors != "all")
    usage_error(fmt::format("--monitors: '{}' is none of off, basic, all", req.monitors));
  for (const auto& s : line.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) usage_error(fmt::format("--set '{}': expected NAME=VALUE", s));
    req.overrides[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const auto& [name, value] :
       {std::pair{"vcpus", &line.vcpus}, {"bytes", &line.bytes}, {"backing", &line.backing}, {"pin", &line.pin}})
    if (!value->empty()) req.overrides[name] = *value;
  return req;
}

}  // namespace kvmbench::engine
