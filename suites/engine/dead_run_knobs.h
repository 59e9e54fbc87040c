// Host knobs that a dead kvmbench left changed (hostlib/state/knob_journal.h:
// SIGKILL, a crash) put back, and said, in one place with one printer.
//
// Two commands call it: a live `kvmbench run`, once its options are known
// to be good and before it takes the run lock and measures (a knob left
// changed would be measured as this host's setting), and `kvmbench
// restore`, which is asked to. Those are the commands that change knobs:
// `ab` changes them through the `kvmbench run` of each boot, and `lab`
// through the run inside its machine, which keeps its own journal. No
// other command reads a knob a run changes, so they leave the journal
// alone: a `compare` or `report` (run as root in a CI job) that rewrote
// /sys would change the host as a side effect of reading files, and one
// run as a user would print a failure for every knob it may not write.
// A dry run or a replay measures nothing here, and changes nothing either.
#pragma once

#include <cstddef>

#include "hostlib/state/knob_journal.h"

namespace kvmbench::engine {

// Puts back every pending change of processes that are gone and says each
// on stderr ("kvmbench: restored PATH = 'VALUE' (left by dead pid N)", or
// why it could not), with the journal's lines of an earlier boot it
// dropped and a journal it could not read; `verbose` also says how many
// changes belong to kvmbench processes still running. Never throws.
host::KnobRestoreReport restore_knobs_left_by_dead_runs(bool verbose);

// How many of the report's restores failed.
std::size_t failed_restores(const host::KnobRestoreReport& report);

}  // namespace kvmbench::engine
