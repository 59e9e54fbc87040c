// A host description for `run ... --dry-run --host FILE` (`kvmbench probe
// --json` of another machine): read and planned for, every suite's
// document preset, as the command does.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "suites/engine/dry_run.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("kvmbench-fuzz-host-" + std::to_string(::getpid()) + ".json"))
          .string();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(data.data(), static_cast<std::streamsize>(data.size()));
  engine::RunRequest req;
  req.target = "all";
  req.dry_run = true;
  req.host_file = path;
  try {
    engine::plan_suites(req);
  } catch (...) {
    std::filesystem::remove(path);
    throw;
  }
  std::filesystem::remove(path);
}

const RegisterFuzzTarget target({"host_file", {"tests/data/hosts", "tests/data/replay/make_shared/host.json"}, run});

}  // namespace
}  // namespace kvmbench::fuzz
