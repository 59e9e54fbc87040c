// `kvmbench fleet`'s report: what became of each device's job, the runs of
// every machine that came back (merge's tables: a row or column per machine
// fingerprint), and what differs between the kinds of machine (CPU model,
// microcode, firmware: the fingerprint's fields whose values differ).
#pragma once

#include <string>
#include <vector>

#include "analysis/report/document.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/verdicts/fleet_merge.h"

namespace kvmbench {

struct FleetJobOutcome {
  std::string device;  // the device the job was meant for
  long job = 0;        // 0: never submitted
  std::string ran_on;  // the device LAVA ran it on ("" when it never ran)
  std::string health;  // LAVA's: Complete, Incomplete, Canceled; or kvmbench's "not submitted"
  std::size_t runs = 0;
  std::string machine;  // fingerprint of its runs' machine
  std::string problem;  // empty when the job gave its runs
  bool ok() const { return problem.empty(); }
};

// `fleet -- ab`: one device's verdict over its A/B job's boots (the gate's
// document, as `kvmbench ab` gives it).
struct FleetVerdict {
  std::string device;
  std::size_t base_boots = 0, cand_boots = 0;
  std::string order;  // the boots as LAVA made them: "base cand cand base"
  Document gate;
  int code = 0;       // 0 pass, 1 regression, 3 inconclusive
};

struct FleetMachine {
  std::string hostname;
  MachineIdentity identity;
};

// `people`: the text layouts (metrics as rows), else a row per machine.
// With `verdicts` (fleet -- ab) each device's verdict and its gate's
// tables stand where the runs' tables would (base and candidate runs of a
// machine in one merged row would say nothing).
Document fleet_document(const std::string& server, const std::vector<std::string>& labels,
                        const std::vector<FleetJobOutcome>& jobs, const std::vector<FleetRun>& runs,
                        const std::vector<FleetMachine>& machines, bool people,
                        const std::vector<FleetVerdict>& verdicts = {});

// The fingerprint fields whose values are not the same on every machine:
// a row per field, a column per machine. Empty with fewer than two machines.
Table machine_kinds_table(const std::vector<FleetMachine>& machines);

}  // namespace kvmbench
