// One input file of `kvmbench ingest`, read once, a piece at a time
// (parsers::InputReader): a kernel log of any size is parsed as it is read
// and not held; its raw copy is made at the end from the file itself (or,
// for a pipe, from a copy of what was read, in an unlinked file under
// $TMPDIR), so that memory holds only what the run keeps.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "analysis/parse/format_recognizer.h"
#include "analysis/store/run_store.h"
#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::engine {

struct IngestInput {
  std::filesystem::path path;
  parsers::ParsedInput parsed;
  std::uint64_t bytes = 0;       // what was read and parsed: the raw copy's size
  std::string raw_name;          // under raw/, unique within the run
  std::size_t first_sample = 0;  // where its samples start in the run's list

  // Copies the bytes that were read to raw/<raw_name> of the run (not
  // forced to the disk). Throws std::runtime_error when the file is no
  // longer the one that was read, or is shorter.
  void store_raw(const RunWriter& w) const;

  // A regular file is read again by its path (checked to be the same
  // file); anything else (a pipe) from `spool`, where what was read went.
  host::UniqueFd spool;
  dev_t device = 0;
  ino_t inode = 0;
};

// Reads and parses `path` into `in`. Bad input (no such file, unreadable,
// unrecognised, malformed) ends the command with exit 2 and its reason; a
// Ctrl-C while it is read with exit 130, nothing stored.
void read_ingest_input(const std::filesystem::path& path, IngestInput& in);

}  // namespace kvmbench::engine
