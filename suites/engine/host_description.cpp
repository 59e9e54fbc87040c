#include "suites/engine/host_description.h"

#include <fmt/format.h>

#include "analysis/model/host_meta_types.h"
#include "analysis/model/json_input.h"
#include "analysis/store/run_store.h"
#include "suites/framework/errors.h"

namespace kvmbench::engine {

nlohmann::json read_host_description(const std::string& path) {
  constexpr const char* kExpected = "expected `kvmbench probe --json` output";
  const std::string text = naming_bad_input("--host ", [&] { return read_file(path); });
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    usage_error(fmt::format("--host {}: empty ({})", path, kExpected));
  nlohmann::json m;
  try {
    m = parse_json_input(text);
  } catch (const JsonInputError& e) {
    usage_error("--host " + json_input_message(e, path));
  } catch (const nlohmann::json::parse_error& e) {
    // Where it stopped, not the library's words: a kernel log or a run
    // directory's samples.jsonl given by mistake is the usual cause.
    usage_error(fmt::format("--host {}: not JSON (truncated or malformed): it stops being JSON at byte {} ({})", path, e.byte, kExpected));
  }
  if (!m.is_object()) usage_error(fmt::format("--host {}: not a JSON object ({})", path, kExpected));
  for (const char* key : {"cpu", "kvm"})
    if (!m.contains(key) || !m[key].is_object())
      usage_error(fmt::format("--host {}: no \"{}\" object ({})", path, key, kExpected));
  if (const auto problem = host_meta_type_problem(m)) usage_error(fmt::format("--host {}: {}", path, *problem));
  return m;
}

}  // namespace kvmbench::engine
