// Regenerates each document's tables from the transcribed raw data in
// results/reference/ (see its README.md). Every table is marked
// source "replay". Used by `kvmbench reproduce` and its tests; each suite
// reads its own reference files (suites/<name>/reproduce.cpp, the Suite's
// `reproduce`).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"
#include "analysis/report/table.h"

namespace kvmbench::suites {

struct Reproduction {
  std::string suite;                  // "rmpopt", "directmap", "make_shared", "asid"
  std::string document;               // "post 002 (Tng, guest_memfd v10 12/41)": results/reference/README.md
  std::vector<std::string> files;     // reference files read
  std::vector<Table> tables;          // empty when the document has no raw data
  std::vector<std::string> notes;     // claims of the document, what was derivable
};

struct ReproduceOptions {
  // TSC rate (GHz) to express the rmpopt cycle stats as wall time; the
  // document does not give it. Must be > 0 and finite when set.
  std::optional<double> tsc_ghz;
};

// The source every reproduced table is marked with.
inline constexpr std::string_view kReplaySource = "replay";

// <data dir>/reference (hostlib/os/install_layout.h): results/reference of the
// source, linked into the build tree and installed with the binary.
std::filesystem::path default_reference_dir();

// The suites that have reference data, in the order `all` prints them.
std::vector<std::string> reproducible_suites();

// Throws std::invalid_argument for an unknown suite and std::runtime_error
// ("file:line: reason") for a missing or malformed reference file.
// Throws std::invalid_argument for a bad option too.
Reproduction reproduce(std::string_view suite, const std::filesystem::path& reference_dir,
                       const ReproduceOptions& options = {});

// A reference kernel log's records (analysis/parse/kernel_log.h); a file
// without a single record is a std::runtime_error naming it.
std::vector<Sample> reference_kernel_log(const std::filesystem::path& file);

}  // namespace kvmbench::suites
