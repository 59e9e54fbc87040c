// Fuzz targets: each reader of what others write (a kernel log, Google
// Benchmark JSON, a run's files, a db dump, a --host file, ...) fed
// arbitrary bytes, one target per file (tests/fuzz/<name>_fuzz.cpp, the
// target named <name>). A target calls its reader as kvmbench does, and
// may check what it gave (fuzz_check). What the reader throws is judged as
// the kvmbench command would end with it (suites/framework/errors.h): a
// refusal (exit 2) is fine; an exception that would end in exit 70 (a bug),
// a JSON library error other than "not JSON" (its raw message would reach
// the user, thrown or quoted in a reader's own message), a crash and a hang
// are findings.
//
// Two drivers run them: mutation_driver.cpp (any compiler; what ctest runs,
// label fuzz) and libFuzzer (clang's -fsanitize=fuzzer, libfuzzer_main.cpp;
// the long runs). docs/fuzzing.md has both commands.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench::fuzz {

struct FuzzTarget {
  std::string name;
  // Seed inputs: files or folders (all files below), relative to the
  // source tree. tests/data/fuzz/<name>/ (inputs that found a bug) is added.
  std::vector<std::string> seeds;
  std::function<void(std::string_view)> run;
};

std::vector<FuzzTarget>& fuzz_targets();
const FuzzTarget* find_fuzz_target(std::string_view name);

// Registers a target at start-up (a static object in its file).
struct RegisterFuzzTarget {
  explicit RegisterFuzzTarget(FuzzTarget t) { fuzz_targets().push_back(std::move(t)); }
};

// Runs one input through the target; a finding ends the process (abort,
// after saying what it was on the driver's stderr).
void run_fuzz_input(const FuzzTarget& target, std::string_view data);

// The driver's own stderr (the targets' output goes to /dev/null).
void set_report_fd(int fd);
[[noreturn]] void fuzz_finding(const std::string& what);
inline void fuzz_check(bool ok, const std::string& what) {
  if (!ok) fuzz_finding(what);
}

// The seed files of a target: its seeds (folders walked), then its
// regression inputs, in a fixed order.
std::vector<std::string> seed_files(const FuzzTarget& target);

}  // namespace kvmbench::fuzz
