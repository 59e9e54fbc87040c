#include "tests/fuzz/fuzz_target.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "suites/framework/errors.h"

namespace kvmbench::fuzz {

namespace fs = std::filesystem;

namespace {

int report_fd = 2;

void report(const std::string& text) {
  std::string_view rest = text;
  while (!rest.empty()) {
    const ssize_t n = ::write(report_fd, rest.data(), rest.size());
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

std::vector<FuzzTarget>& fuzz_targets() {
  static std::vector<FuzzTarget> targets;
  return targets;
}

const FuzzTarget* find_fuzz_target(std::string_view name) {
  for (const auto& t : fuzz_targets())
    if (t.name == name) return &t;
  return nullptr;
}

void set_report_fd(int fd) { report_fd = fd; }

void fuzz_finding(const std::string& what) {
  report("kvmbench fuzz: FINDING: " + what + "\n");
  std::abort();
}

void run_fuzz_input(const FuzzTarget& target, std::string_view data) {
  try {
    target.run(data);
  } catch (const nlohmann::json::exception& e) {
    // parse_error (ids 1xx) is "not JSON", which every reader words for
    // the user; the others (a member of the wrong type, ...) mean a reader
    // used a value it had not checked.
    if (e.id >= 200) fuzz_finding(std::string("a JSON library error reaches the user raw: ") + e.what());
  } catch (...) {
    const ExitVerdict v = exit_verdict(std::current_exception(), kExitUsage);
    if (v.code == kExitInternalError) fuzz_finding("kvmbench would exit 70: " + v.message);
    // A reader's own message that quotes the library's ("line 3: [json.
    // exception.type_error.302] type must be number, but is string") names
    // no member either.
    if (const std::size_t at = v.message.find("[json.exception.");
        at != std::string::npos && v.message.compare(at, 27, "[json.exception.parse_error") != 0)
      fuzz_finding("a JSON library error reaches the user inside a message: " + v.message);
  }
}

std::vector<std::string> seed_files(const FuzzTarget& target) {
  std::vector<std::string> files;
  std::vector<std::string> roots = target.seeds;
  roots.push_back("tests/data/fuzz/" + target.name);
  for (const auto& root : roots) {
    const fs::path p = fs::path(KVMBENCH_SOURCE_DIR) / root;
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      files.push_back(p.string());
      continue;
    }
    if (!fs::is_directory(p, ec)) continue;
    std::vector<std::string> below;
    for (const auto& e : fs::recursive_directory_iterator(p, ec))
      if (e.is_regular_file()) below.push_back(e.path().string());
    std::sort(below.begin(), below.end());
    files.insert(files.end(), below.begin(), below.end());
  }
  return files;
}

}  // namespace kvmbench::fuzz
