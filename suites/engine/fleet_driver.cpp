#include "suites/engine/fleet_driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>

#include "analysis/parse/lava_job_log.h"
#include "analysis/report/render/renderer.h"
#include "analysis/store/run_record.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/store/run_store.h"
#include "analysis/views/fleet_view.h"
#include "analysis/views/gate_view.h"
#include "analysis/verdicts/compare.h"
#include "analysis/verdicts/gate.h"
#include "hostlib/lava/http_client.h"
#include "hostlib/lava/lava_server.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/os/scoped_temp_dir.h"
#include "hostlib/os/tarball.h"
#include "suites/engine/lava_fleet_job.h"
#include "suites/framework/errors.h"

namespace kvmbench::engine {

namespace fs = std::filesystem;

namespace {

bool has_labels(const LavaDevice& d, const std::vector<std::string>& labels) {
  return std::all_of(labels.begin(), labels.end(), [&](const std::string& l) {
    return std::find(d.tags.begin(), d.tags.end(), l) != d.tags.end();
  });
}

// A device the scheduler would give a job to: not retired, not taken out
// for maintenance, not known bad.
bool in_service(const LavaDevice& d) { return d.health != "Retired" && d.health != "Maintenance" && d.health != "Bad"; }

std::string joined(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

struct FleetJob {
  FleetJobOutcome outcome;
  std::string state;  // the last state seen, for the progress line
  bool done = false;
};

// The job's published runs, checked, moved under `out`; what they are.
// `every_boot`: a job that booted several times (fleet -- ab) publishes
// once a boot, each with its step ("3 cand"); otherwise the last counts.
struct Fetched {
  std::vector<fs::path> dirs;
  std::vector<std::string> steps;  // of each dir: its publication's step, "" where none
  std::vector<FleetRun> runs;
  std::vector<FleetVerdict> verdicts;
  std::vector<FleetMachine> machines;
  std::vector<std::string> damaged;  // publications left out, and why
};

Fetched fetch_runs(const LavaServer& server, FleetJob& job, const fs::path& out, bool every_boot) {
  Fetched f;
  const LavaLog log = parse_lava_log(server.job_log(job.outcome.job));
  std::vector<PublishedRuns> published;
  if (every_boot) {
    published = all_published_runs(log, f.damaged);
  } else {
    std::string why;
    if (auto p = published_runs(log, why)) published.push_back(std::move(*p));
    else f.damaged.push_back(why);
  }
  if (published.empty()) {
    // What the job said of itself first (lava-test-raise's message, LAVA's
    // own errors), each once, then why nothing could be read.
    std::vector<std::string> said;
    for (const auto& e : error_messages(log))
      if (std::find(said.begin(), said.end(), e) == said.end()) said.push_back(e);
    std::string problem;
    for (const auto& e : said) problem += e + "; ";
    const std::string why = f.damaged.empty() ? "the job's log has no published runs" : f.damaged.back();
    throw std::runtime_error(said.empty() ? why : problem + "no runs published");
  }
  // Unpacked and checked apart first: a job's runs are kept all or none.
  const host::ScopedTempDir tmp("kvmbench-fleet");
  std::vector<fs::path> dirs;
  std::vector<std::string> steps;
  for (std::size_t k = 0; k < published.size(); ++k) {
    const fs::path tarball = tmp.path() / fmt::format("runs-{}.tar.gz", k);
    {
      std::ofstream o(tarball, std::ios::binary);
      o.write(published[k].tarball.data(), static_cast<std::streamsize>(published[k].tarball.size()));
      if (!o) throw std::runtime_error(fmt::format("cannot write {}", tarball.string()));
    }
    const fs::path unpacked = tmp.path() / fmt::format("runs-{}", k);
    fs::create_directories(unpacked);
    extract_tarball(tarball, unpacked);
    const auto found = find_run_directories(unpacked);
    if (found.empty())
      throw std::runtime_error(fmt::format("the job published no run directory{} (no meta.json in what it sent)",
                                           published[k].step.empty() ? "" : " at step " + published[k].step));
    for (const auto& d : found) {
      dirs.push_back(d);
      steps.push_back(published[k].step);
    }
  }
  std::set<std::string> machines, names;
  for (const auto& dir : dirs) {
    if (!names.insert(dir.filename().string()).second)
      throw std::runtime_error(fmt::format("two boots published a run named {}", dir.filename().string()));
    Run run = load_run(dir, SampleProvenance::drop);
    if (const auto short_file = check_sample_count(run)) throw std::runtime_error(*short_file);
    const MachineIdentity id = machine_identity(run.meta);
    FleetRun r;
    r.run = export_run(run, dir.filename().string());
    r.machine = id.known() ? id.fingerprint : "unknown:" + r.run.hostname;
    if (machines.insert(r.machine).second) f.machines.push_back(FleetMachine{r.run.hostname, id});
    f.runs.push_back(std::move(r));
  }
  fs::create_directories(out);
  for (const auto& dir : dirs) {
    const fs::path to = out / dir.filename();
    if (fs::exists(to)) {
      // The same run fetched before (fleet run again over old jobs) is
      // kept; another run under its name is not overwritten.
      std::ifstream a(dir / "meta.json"), b(to / "meta.json");
      const std::string ta((std::istreambuf_iterator<char>(a)), {}), tb((std::istreambuf_iterator<char>(b)), {});
      if (ta != tb)
        throw std::runtime_error(fmt::format("{} holds another run of the same name; nothing of this job kept",
                                             to.string()));
    }
  }
  for (const auto& dir : dirs) {
    const fs::path to = out / dir.filename();
    if (!fs::exists(to)) {
      fs::copy(dir, to.string() + ".part", fs::copy_options::recursive);
      fs::rename(to.string() + ".part", to);
    }
    f.dirs.push_back(to);
  }
  f.steps = steps;
  job.outcome.runs = dirs.size();
  job.outcome.machine = joined(std::vector<std::string>(machines.begin(), machines.end()));
  return f;
}

// fleet -- ab: one device's verdict from its boots' runs, as `kvmbench ab`
// judges them (each boot one unit, the gate's rule; emulated input judged
// as a check of the pipeline, never a performance verdict).
FleetVerdict judge_device(const std::string& device, const Fetched& f, const FleetAb& ab, std::string& problem) {
  FleetVerdict v;
  v.device = device;
  std::vector<ComparisonSide> sides[2];
  std::vector<std::string> order;
  for (std::size_t i = 0; i < f.dirs.size(); ++i) {
    const std::string& step = f.steps[i];
    const bool cand = step.size() > 5 && step.compare(step.size() - 5, 5, " cand") == 0;
    const bool base = step.size() > 5 && step.compare(step.size() - 5, 5, " base") == 0;
    if (!cand && !base) {
      problem = fmt::format("a run published without its boot's side ({}): the test definition is older than "
                            "fleet's ab", f.dirs[i].filename().string());
      continue;
    }
    order.push_back(cand ? "cand" : "base");
    sides[cand].push_back(side_from_run(load_run(f.dirs[i]), f.dirs[i].string()));
  }
  v.order = joined(order, " ");
  v.base_boots = sides[0].size();
  v.cand_boots = sides[1].size();
  GateOptions go;
  go.max_regression_pct = ab.max_regression_pct;
  go.alpha = ab.alpha;
  go.min_n = 2;  // as `kvmbench ab`: two boots a side are a verdict's least
  GateResult g;
  if (v.base_boots < 2 || v.cand_boots < 2) {
    g = unusable_gate("base", "cand", go,
                      fmt::format("{} base and {} candidate boots published a run; a verdict needs at least 2 of "
                                  "each",
                                  v.base_boots, v.cand_boots));
  } else {
    ComparisonSide base = merge_invocations(sides[0]);
    ComparisonSide cand = merge_invocations(sides[1]);
    go.pipeline_check = base.source == Source::emulated || cand.source == Source::emulated;
    base.label = fmt::format("{} ({} boots)", ab.base_kernel, v.base_boots);
    cand.label = fmt::format("{} ({} boots)", ab.cand_kernel, v.cand_boots);
    g = evaluate_gate(base, cand, go);
  }
  v.gate = gate_document(g);
  v.code = g.exit_code() == 2 ? kExitInconclusive : g.exit_code();
  const std::size_t expected = 2 * static_cast<std::size_t>(ab.n);
  if (problem.empty() && v.base_boots + v.cand_boots < expected)
    problem = fmt::format("{} of {} boots published a run{}", v.base_boots + v.cand_boots, expected,
                          f.damaged.empty() ? "" : " (" + joined(f.damaged, "; ") + ")");
  return v;
}

void import_runs(db::ResultsDb& rdb, const std::vector<fs::path>& dirs, FleetJob& job) {
  for (const auto& dir : dirs) {
    const db::RunRecord r = db::read_run_record(dir);
    const db::ImportResult res = rdb.import_run(r);
    if (res.outcome == db::ImportResult::Outcome::conflict)
      job.outcome.problem = fmt::format("not imported into the database: {}", res.message);
  }
}

void say(const std::string& line) { fmt::print(stderr, "fleet: {}\n", line); }

}  // namespace

int run_fleet(const FleetRequest& request, const std::function<db::ResultsDb*()>& open_db) {
  const FleetJobTemplate job_template = parse_fleet_job_template(request.job_template, request.job_template_path);
  const FleetCommand command = parse_fleet_command(request.command);
  auto parameters = command.parameters;
  if (!parameters.count("REQUIRE")) parameters["REQUIRE"] = joined(request.labels, " ");
  for (const auto& [k, v] : request.params) parameters[k] = v;

  const LavaServer server(request.server, request.token);
  std::vector<LavaDevice> devices;
  try {
    fmt::print(stderr, "fleet: {}: LAVA {}\n", server.url(), server.version());
    devices = server.devices();
  } catch (const HttpUnreachable& e) {
    usage_error(fmt::format("cannot reach the LAVA server: {}", e.what()));
  } catch (const LavaRefused& e) {
    usage_error(e.what());
  }
  std::vector<FleetJob> jobs;
  std::vector<std::string> passed_over;
  for (const auto& d : devices) {
    if (d.device_type != job_template.device_type || !has_labels(d, request.labels)) continue;
    if (!in_service(d)) {
      passed_over.push_back(fmt::format("{} (health {})", d.hostname, d.health));
      continue;
    }
    FleetJob j;
    j.outcome.device = d.hostname;
    jobs.push_back(std::move(j));
  }
  if (jobs.empty())
    usage_error(fmt::format("no {} device of {} has the tags {}{}{}", job_template.device_type, server.url(),
                            joined(request.labels),
                            passed_over.empty() ? "" : " and is in service (", passed_over.empty() ? "" : joined(passed_over, ", ") + ")"));
  for (const auto& p : passed_over) say("not used: " + p);

  // Opened once the server and its devices are known, before anything is
  // submitted: a bad --db refuses the fleet, and a refused fleet leaves no
  // database file behind.
  db::ResultsDb* db = request.dry_run ? nullptr : open_db();

  std::vector<std::string> definitions;
  for (std::size_t n = 1; n <= jobs.size(); ++n) {
    const std::string name =
        fmt::format("kvmbench fleet: {} {} on a device tagged {} ({} of {})", command.ab ? "ab of" : "run",
                    parameters["SUITE"], joined(request.labels), n, jobs.size());
    definitions.push_back(command.ab ? render_fleet_ab_job(job_template, request.labels, name, parameters, *command.ab)
                                     : render_fleet_job(job_template, request.labels, name, parameters));
  }
  if (request.dry_run) {
    for (std::size_t i = 0; i < jobs.size(); ++i)
      fmt::print("# the job for {}\n{}", jobs[i].outcome.device, definitions[i]);
    return kExitOk;
  }

  host::install_interrupt_handlers();
  // LAVA schedules by tags, not by device: a job per matching device, and
  // the report says which device each one ran on.
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    try {
      jobs[i].outcome.job = server.submit(definitions[i]).front();
      say(fmt::format("job {} submitted for {}", jobs[i].outcome.job, jobs[i].outcome.device));
    } catch (const HttpUnreachable& e) {
      jobs[i].outcome.health = "not submitted";
      jobs[i].outcome.problem = e.what();
      jobs[i].done = true;
    } catch (const LavaRefused& e) {
      // A refused token or definition refuses every job alike: stop here.
      if (i == 0) usage_error(e.what());
      jobs[i].outcome.health = "not submitted";
      jobs[i].outcome.problem = e.what();
      jobs[i].done = true;
    }
  }

  const auto deadline = std::chrono::steady_clock::now() + request.timeout;
  std::vector<FleetRun> runs;
  std::vector<FleetVerdict> verdicts;
  std::vector<FleetMachine> machines;
  std::set<std::string> machine_seen;
  bool interrupted = false;
  while (std::any_of(jobs.begin(), jobs.end(), [](const FleetJob& j) { return !j.done; })) {
    if (host::interrupted() || std::chrono::steady_clock::now() > deadline) {
      interrupted = host::interrupted();
      for (auto& j : jobs) {
        if (j.done) continue;
        server.cancel(j.outcome.job);
        j.outcome.health = "Canceled";
        j.outcome.problem = interrupted ? "interrupted: the job was cancelled"
                                        : fmt::format("not finished after {} s (--timeout): the job was cancelled",
                                                      request.timeout.count());
        j.done = true;
        say(fmt::format("job {} cancelled", j.outcome.job));
      }
      break;
    }
    for (auto& j : jobs) {
      if (j.done) continue;
      LavaJob status;
      try {
        status = server.job(j.outcome.job);
      } catch (const std::exception& e) {
        say(fmt::format("job {}: {} (asked again)", j.outcome.job, e.what()));
        continue;
      }
      if (status.state != j.state) {
        say(fmt::format("job {} ({}): {}{}", j.outcome.job, status.device.empty() ? j.outcome.device : status.device,
                        status.state, status.finished() ? ", " + status.health : ""));
        j.state = status.state;
      }
      if (!status.finished()) continue;
      j.done = true;
      j.outcome.ran_on = status.device;
      j.outcome.health = status.health;
      try {
        Fetched f = fetch_runs(server, j, request.out, command.ab.has_value());
        if (db) import_runs(*db, f.dirs, j);
        if (command.ab) {
          std::string problem;
          verdicts.push_back(judge_device(j.outcome.device, f, *command.ab, problem));
          if (!problem.empty() && j.outcome.problem.empty()) j.outcome.problem = problem;
        }
        for (auto& m : f.machines)
          if (machine_seen.insert(m.identity.fingerprint.empty() ? "unknown:" + m.hostname : m.identity.fingerprint).second)
            machines.push_back(std::move(m));
        for (auto& r : f.runs) runs.push_back(std::move(r));
        if (status.health != "Complete" && j.outcome.problem.empty())
          j.outcome.problem = status.failure_comment.empty() ? "the job ended " + status.health : status.failure_comment;
      } catch (const std::exception& e) {
        if (!is_bad_input(std::current_exception())) throw;
        j.outcome.problem = status.health != "Complete" && !status.failure_comment.empty()
                                ? status.failure_comment + "; " + e.what()
                                : e.what();
      }
    }
    if (std::any_of(jobs.begin(), jobs.end(), [](const FleetJob& j) { return !j.done; }))
      std::this_thread::sleep_for(request.poll);
  }

  std::vector<FleetJobOutcome> outcomes;
  for (const auto& j : jobs) {
    outcomes.push_back(j.outcome);
    // Where the whole log is, for the one who reads why a job failed.
    if (!j.outcome.ok() && j.outcome.job)
      outcomes.back().problem += fmt::format(" (the job: {}scheduler/job/{})", server.url(), j.outcome.job);
  }
  const bool people = request.format == Format::text || request.format == Format::mail;
  fmt::print("{}", render(fleet_document(server.url(), request.labels, outcomes, runs, machines, people, verdicts),
                          request.format));
  if (interrupted) throw ExitError(kExitInterrupted, "interrupted: the jobs still running were cancelled");
  const bool all_ok = std::all_of(outcomes.begin(), outcomes.end(), [](const FleetJobOutcome& o) { return o.ok(); });
  if (!all_ok) return kExitFailed;
  // fleet -- ab: a regression on any device fails; else one undecided
  // device leaves the whole inconclusive.
  int code = kExitOk;
  for (const auto& v : verdicts) {
    if (v.code == kExitGateFailed) return kExitGateFailed;
    if (v.code != kExitOk) code = kExitInconclusive;
  }
  return code;
}

}  // namespace kvmbench::engine
