// A `kvmbench ab` state file (analysis/verdicts/ab_experiment.h), read as
// --status, --abort and --resume read it at every boot. A state it accepts
// must be one the driver can go on from: the kexec in flight names a step
// that exists, each step's marker names that step again, and written back
// (as save_state writes it) it reads the same.
#include "analysis/model/json_input.h"
#include "analysis/verdicts/ab_experiment.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  const ab::Experiment e = ab::experiment_from_json(parse_json_input(data));
  const int steps = static_cast<int>(e.steps.size());
  fuzz_check(steps == 2 * e.n, "a state read with other than 2n steps");
  fuzz_check(e.kexec_step >= -2 && e.kexec_step < steps, "a state read whose kexec_step is no step");
  for (int i = -1; i < steps; ++i)
    fuzz_check(ab::marked_step(e.marker(i), e.id) == i, "a step's marker on the command line names another step");
  if (const auto next = e.next_step()) fuzz_check(*next < e.steps.size(), "next_step() beyond the steps");
  for (std::size_t i = 0; i < e.looks.size(); ++i) {
    fuzz_check(e.sequential, "looks read for an experiment that is not -n auto");
    fuzz_check(e.looks[i].information >= 2 && e.looks[i].information <= e.n + 1e-9, "a look beyond the budget");
    fuzz_check(i == 0 || e.looks[i].information > e.looks[i - 1].information, "looks that do not grow");
    fuzz_check(i + 1 == e.looks.size() || !e.looks[i].ends(), "a look after one that ended the experiment");
  }
  e.request_key();
  const std::string written = to_json(e).dump(2);
  fuzz_check(to_json(ab::experiment_from_json(parse_json_input(written))).dump(2) == written,
             "a state read does not read back the same once written");
}

const RegisterFuzzTarget target({"ab_state", {"tests/data/ab"}, run});

}  // namespace
}  // namespace kvmbench::fuzz
