#include "suites/engine/run_driver.h"
#include "hostlib/os/host_name.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include "analysis/model/text_wrap.h"
#include "analysis/stats/adaptive.h"
#include "analysis/store/run_store.h"
#include "hostlib/state/host_change_record.h"
#include "hostlib/state/knobs.h"
#include "hostlib/monitor/repetition_monitors.h"
#include "hostlib/os/interrupt.h"
#include "kvmbench_version.h"
#include "suites/framework/chosen_suites.h"
#include "suites/framework/collector.h"
#include "suites/framework/errors.h"
#include "suites/engine/dead_run_knobs.h"
#include "suites/engine/progress.h"
#include "suites/engine/run_summary.h"
#include "suites/engine/run_support.h"
#include "suites/engine/steady_host.h"
#include "suites/engine/incomplete_run.h"
#include "suites/framework/param_check.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::engine {

namespace fs = std::filesystem;
using suites::HostCaps;
using suites::Preset;
using suites::Suite;

namespace {

struct Target {
  const Suite* suite;
  const Preset* preset;
  suites::ResolvedParams params = {};
};

// Where the run's numbers come from, chosen once from the request: this
// host, or the captures of `--replay DIR`. What differs between the two
// before a suite runs is asked of it; a suite asks its collector.
class RunSource {
 public:
  // Bad input (a replay of another preset, or of no directory) is a usage error.
  explicit RunSource(const RunRequest& req)
      : replay_dir_(req.replay_dir), preset_(req.preset), wait_lock_(req.wait_lock),
        // What another run's "busy" message names as the holder.
        lock_what_(fmt::format("kvmbench run {}{}", req.target, req.preset.empty() ? "" : " --preset " + req.preset)) {
    if (live()) return;
    if (!req.preset.empty() && req.preset != "document")
      usage_error(fmt::format("--replay feeds the document presets' collection paths; not preset '{}'", req.preset));
    std::error_code ec;
    if (!fs::is_directory(replay_dir_, ec))
      usage_error(fmt::format("--replay {}: not a directory", req.replay_dir));
    preset_ = "document";
  }

  // Whether the numbers are measured on this host (the monitors count here).
  bool live_host() const { return live(); }

  // The preset asked for ("": the one chosen per suite).
  const std::string& preset() const { return preset_; }

  // Why `p` cannot run here ("" when it can): another boot, or what the
  // host lacks. Under replay the host's requirements are not checked: the
  // captures stand in for the host.
  std::string unsupported_reason(const Preset& p, const HostCaps& caps,
                                 const std::map<std::string, std::string>& overrides) const {
    return live() ? suites::why_not_here(p, caps, overrides) : "";
  }

  // Knobs a killed run left changed are put back before anything is
  // measured (dead_run_knobs.h); true when that changed the host. A replay
  // touches nothing on the host.
  bool restore_host() const { return live() && !restore_knobs_left_by_dead_runs(false).restored.empty(); }

  // The host-wide lock a live run holds; a replay measures nothing on this
  // host, so it needs none.
  std::unique_ptr<RunLockHolder> lock_host() const {
    return live() ? acquire_run_lock(wait_lock_, lock_what_) : nullptr;
  }

  // The collector of suite `s`'s run: `run all --replay DIR` reads
  // DIR/<suite>/ where it exists, else DIR.
  std::unique_ptr<suites::Collector> collector(const Suite& s) const {
    if (live()) return suites::live_collector();
    std::error_code ec;
    const fs::path own = replay_dir_ / s.name;
    return suites::replay_collector(fs::is_directory(own, ec) ? own : replay_dir_);
  }

 private:
  bool live() const { return replay_dir_.empty(); }

  fs::path replay_dir_;  // empty: live
  std::string preset_;
  std::optional<std::chrono::seconds> wait_lock_;
  std::string lock_what_;
};

// Picks the presets to run for a suite: the requested one, or the document
// preset where it can run, else the host preset; for `run all`, also the
// smoke preset where the document preset cannot run (the document's pipeline
// proven under TCG). Sets `why_not` to what was left out.
std::vector<const Preset*> choose_presets(const Suite& s, const RunSource& source, const HostCaps& caps,
                                          const RunRequest& req, std::string& why_not, RunSummary& summary) {
  const bool run_all = req.target == "all";
  auto reason = [&](const Preset& p) {
    const std::string why = source.unsupported_reason(p, caps, req.overrides);
    if (const suites::BootNeed boot = suites::boot_need(p, caps, req.overrides); !why.empty() && !boot.this_boot)
      summary.other_boot(boot.setting, fmt::format("{} / {}", s.name, p.name));
    return why;
  };
  const std::string& requested = source.preset();
  if (!requested.empty()) {
    const Preset* p = s.find_preset(requested);
    if (!p) return {};
    why_not = reason(*p);
    if (why_not.empty()) return {p};
    return {};
  }
  // (preset names, reason): presets left out for the same reason share it
  // ("document, host: KVM is not available ..."), said once.
  std::vector<std::pair<std::string, std::string>> reasons;
  auto left_out = [&](const std::string& name, const std::string& r) {
    for (auto& [names, why] : reasons)
      if (why == r) {
        names += ", " + name;
        return;
      }
    reasons.emplace_back(name, r);
  };
  std::vector<const Preset*> out;
  bool document_runs = false;
  // On an emulated CPU (the emulated lab) the document's sizes do not
  // finish: a suite's lab preset, the same pipeline scaled, comes first.
  std::vector<const char*> order = {"document", "host"};
  if (!caps.emulated_reason.empty()) order.insert(order.begin(), "lab");
  for (const char* name : order) {
    const Preset* p = s.find_preset(name);
    if (!p) continue;
    std::string r = reason(*p);
    if (r.empty()) {
      out.push_back(p);
      document_runs = std::string(name) == "document" || std::string(name) == "lab";
      break;
    }
    left_out(name, r);
  }
  if (run_all && !document_runs)
    if (const Preset* smoke = s.find_preset("smoke")) {
      std::string r = reason(*smoke);
      if (r.empty()) out.push_back(smoke);
      else left_out("smoke", r);
    }
  std::vector<std::string> said;
  for (const auto& [names, why] : reasons) said.push_back(names + ": " + why);
  why_not = fmt::format("{}", fmt::join(said, "; "));
  return out;
}

// The values of the primary metrics in one repetition (mean per series when
// a repetition yields several, e.g. 5 conversions per VM build).
std::map<std::string, double> primary_values(const std::vector<Sample>& samples, std::size_t from,
                                             const std::vector<std::string>& primary) {
  std::map<std::string, std::pair<double, int>> acc;
  for (std::size_t i = from; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    if (!primary.empty() && std::find(primary.begin(), primary.end(), s.metric) == primary.end()) continue;
    auto& a = acc[s.series_key()];
    a.first += s.value;
    a.second += 1;
  }
  std::map<std::string, double> out;
  for (auto& [k, a] : acc) out[k] = a.first / a.second;
  return out;
}

enum class Outcome { ok, failed, interrupted };

// What meta.json says before anything runs: the suite and preset, what the
// numbers are (the collector's source: a replay's come from its captures,
// a live one on an emulated CPU measures nothing of hardware), the
// parameters, and the host that measured them.
nlohmann::json start_meta(const Target& t, const HostCaps& caps, const RunRequest& req,
                          const suites::Collector& collector, const std::map<std::string, std::string>& params,
                          int reps, const host::RepetitionMonitors& monitors, const nlohmann::json& steady) {
  const Preset& preset = *t.preset;
  MetricRoles roles = preset.metric_roles();
  roles.monitor = monitors.sources();
  const Source source = collector.source(preset.source, caps);
  nlohmann::json meta = {
      {"suite", t.suite->name},
      {"preset", preset.name},
      {"source", std::string(to_string(source))},
      {"parameters", params},
      {"tool_version", KVMBENCH_VERSION},
      {"hostname", host::host_name()},
      {"repetitions", req.adaptive ? nlohmann::json("auto") : nlohmann::json(reps)},
      {"warmup_repetitions", req.warmup},
      {"host", caps.metadata},
      {"metric_roles", roles.to_json()},
  };
  if (!steady.is_null()) meta["steady"] = steady;
  collector.describe(meta, caps, preset.source);
  return meta;
}

// What the repetitions came to, for meta.json and the messages.
struct Repeated {
  Outcome outcome = Outcome::ok;
  std::string error, stop_reason;
  int measured = 0;
  std::vector<double> repetition_seconds;  // measured repetitions: Kalibera and Jones's c1
  std::vector<adaptive::StabilityWarning> stability_warnings;
};

// The monitors' readings of the measured repetitions as samples of case
// "repetition": a counter that moved in some repetition has a value in
// every one (0 where it did not move), one that never moved none.
class MonitorSamples {
 public:
  explicit MonitorSamples(host::RepetitionMonitors& m) : monitors_(m) {}
  void begin() { monitors_.begin(); }
  // The readings of repetition `iteration`, kept until emit().
  void end(int iteration) {
    for (auto& r : monitors_.end()) pending_.push_back({iteration, std::move(r)});
  }
  // A repetition that measured nothing (every part skipped) stores no
  // monitors: a run of nothing but counters would read as measured.
  void discard() { pending_.clear(); }
  // `measured`: the measured repetition just ended (none for a warm-up).
  void emit(suites::RunContext& ctx, std::optional<int> measured) {
    if (measured) measured_.insert(*measured);
    for (auto& [it, r] : pending_) {
      if (seen_.try_emplace(r.metric, std::pair{r.unit, std::set<int>{}}).first->second.second.insert(it).second) {
        emit_at(ctx, sample(r.metric, r.unit, r.value, it));
        // Repetitions before this counter first moved: it counted 0 there.
        for (int before : measured_)
          if (before < it && seen_[r.metric].second.insert(before).second)
            emit_at(ctx, sample(r.metric, r.unit, 0, before));
      }
    }
    pending_.clear();
  }
  // Zeros for the measuring repetitions since a counter last moved.
  void finish(suites::RunContext& ctx, int measured) {
    for (auto& [metric, v] : seen_)
      for (int it : measured_)
        if (it < measured && v.second.insert(it).second) emit_at(ctx, sample(metric, v.first, 0, it));
  }

 private:
  // Emitted as a sample of measured repetition `s.iteration` (emit stamps
  // the context's repetition).
  static void emit_at(suites::RunContext& ctx, const Sample& s) {
    const int iteration = ctx.iteration();
    const bool warmup = ctx.warmup();
    ctx.set_iteration(s.iteration, false);
    ctx.emit(s);
    ctx.set_iteration(iteration, warmup);
  }
  static Sample sample(const std::string& metric, const std::string& unit, double value, int iteration) {
    Sample s;
    s.extra = nlohmann::json::object();  // as every suite's sample: readers ask it for keys
    s.case_name = "repetition";
    s.metric = metric;
    s.unit = unit;
    s.value = value;
    s.iteration = iteration;
    return s;
  }
  host::RepetitionMonitors& monitors_;
  std::vector<std::pair<int, host::MonitorReading>> pending_;
  std::map<std::string, std::pair<std::string, std::set<int>>> seen_;  // metric -> unit, repetitions stored
  std::set<int> measured_;  // the repetitions whose suite stored samples
};

// Runs the preset's repetitions (warm-ups first) until the stop rule says
// enough: -r N measured ones, or `-r auto`'s CI target, run cap or time
// limit; or Ctrl-C, or a failure (kept in the result). A bad parameter
// (ExitError) leaves through the exception.
Repeated repeat(const Preset& preset, suites::RunContext& ctx, const RunRequest& req, int reps,
                const std::vector<Sample>& collected, Progress& progress, const std::string& label,
                std::size_t& rep_no, std::size_t& rep_of, MonitorSamples& monitors) {
  adaptive::StoppingRule rule;
  rule.target_ci_pct = req.target_ci_pct;
  rule.warmup_runs = static_cast<std::size_t>(req.warmup);
  rule.max_runs = req.adaptive ? static_cast<std::size_t>(req.max_runs) : static_cast<std::size_t>(reps);
  rule.min_runs = std::min<std::size_t>(rule.min_runs, rule.max_runs);
  rule.max_time_s = req.adaptive ? req.max_time_s : 1e18;
  adaptive::AdaptiveRepetitions repetitions(rule);

  Repeated r;
  int warmed = 0;
  try {
    while (!host::interrupted()) {
      const bool warm = repetitions.next_is_warmup();
      ctx.set_iteration(warm ? warmed - req.warmup : r.measured, warm);
      rep_no = warm ? static_cast<std::size_t>(warmed + 1) : static_cast<std::size_t>(r.measured + 1);
      rep_of = warm ? static_cast<std::size_t>(req.warmup) : (req.adaptive ? 0 : static_cast<std::size_t>(reps));
      progress.update(label + (warm ? ": warm-up" : ": repetition"), rep_no, rep_of);
      const std::size_t first = collected.size();
      if (!warm) monitors.begin();
      const auto t0 = std::chrono::steady_clock::now();
      preset.run(ctx);
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!warm) monitors.end(r.measured);
      progress.step_done();
      if (host::interrupted()) break;
      repetitions.add_run(primary_values(collected, first, preset.primary_metrics), dt);
      if (collected.size() > first) monitors.emit(ctx, warm ? std::nullopt : std::optional<int>(r.measured));
      else monitors.discard();
      warm ? ++warmed : ++r.measured;
      if (!warm) r.repetition_seconds.push_back(dt);
      if (req.adaptive) {
        auto st = repetitions.status();
        if (st.decision != adaptive::Decision::run_again) {
          r.stop_reason = st.reason;
          break;
        }
      } else if (r.measured >= reps) {
        break;
      }
    }
    if (host::interrupted()) r.outcome = Outcome::interrupted;
    monitors.finish(ctx, r.measured);
  } catch (const ExitError&) {
    throw;
  } catch (const std::exception& e) {
    r.error = e.what();
    r.outcome = host::interrupted() ? Outcome::interrupted : Outcome::failed;
  }
  r.stability_warnings = repetitions.stability_findings();
  return r;
}

// Variation from fewer runs than this says little (a CV over 3 runs is
// noise itself): kept in meta.json, not shown on the terminal.
constexpr std::size_t kRunsForVariationWarning = 5;

// The skipped parts, one line of names per reason (three nr_pages skipped
// for one reason of 250 columns were three such lines), the reason wrapped
// within 80 columns.
void print_skips(const Target& t, const nlohmann::json& skips) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
  for (const auto& s : skips) {
    const std::string reason = s["reason"].get<std::string>();
    auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& x) { return x.first == reason; });
    if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {reason, {}});
    it->second.push_back(s["part"].get<std::string>());
  }
  for (const auto& [reason, parts] : by_reason) {
    // The names wrapped under their line, the reason under them.
    fmt::print(stderr, "{}", wrap_text(fmt::format("kvmbench: {} / {}: skipped {}:", t.suite->name, t.preset->name,
                                                   fmt::join(parts, ", "))));
    for (const auto& l : wrap_lines(reason, "    ")) fmt::print(stderr, "{}\n", l);
  }
}

// Closes the run: meta.json gets what the repetitions came to and the
// status, the skips and the outcome are said, and the run's tables printed
// (titled with what they lack); the warnings go to the summary, counted.
void finish_run(const Target& t, const RunRequest& req, RunWriter& writer, const suites::RunContext& ctx,
                const Repeated& r, double invocation_s, std::size_t changes_from, RunSummary& summary,
                const nlohmann::json& monitors) {
  const Preset& preset = *t.preset;
  nlohmann::json patch = {{"skipped_parts", ctx.skips()},
                          {"monitors", monitors},
                          {"host_changes", host::host_changes_json(changes_from)},
                          {"measured_repetitions", r.measured},
                          {"repetition_seconds", r.repetition_seconds},
                          {"invocation_seconds", invocation_s}};
  if (!r.error.empty()) patch["error"] = r.error;
  if (!r.stop_reason.empty()) patch["adaptive_stop"] = r.stop_reason;
  if (!r.stability_warnings.empty()) {
    // All of them, the ones the terminal leaves out too.
    std::vector<std::string> texts;
    for (const auto& w : r.stability_warnings) texts.push_back(w.text);
    patch["stability_warnings"] = texts;
  }
  writer.update_meta(patch);
  writer.finish(r.outcome == Outcome::ok ? "complete" : r.outcome == Outcome::failed ? "failed" : "interrupted");

  print_skips(t, ctx.skips());
  if (!r.stop_reason.empty()) fmt::print(stderr, "kvmbench: -r auto: {}\n", r.stop_reason);
  for (const auto& w : r.stability_warnings)
    if (w.kind == "cold first run" || w.runs >= kRunsForVariationWarning) summary.warn(w.kind, w.text);
  auto say = [](const std::string& text) { fmt::print(stderr, "{}", wrap_text(text, 80, "")); };
  if (r.outcome == Outcome::failed) {
    say(fmt::format("kvmbench: {} / {} failed: {}", t.suite->name, preset.name, r.error));
    say(fmt::format("kvmbench: what was measured is kept in {} (status: failed)", writer.dir().string()));
  }
  if (r.outcome == Outcome::interrupted)
    say(fmt::format("kvmbench: interrupted; {} samples kept in {} (status: interrupted)", writer.samples_written(),
                    writer.dir().string()));

  const Run run = load_run(writer.dir(), SampleProvenance::drop);
  const std::string note = incomplete_note(run);
  if (writer.samples_written() > 0)
    print_run_report(run, req.format, req.verbose);
  else if (r.outcome == Outcome::ok)
    fmt::print("{} / {}: no samples (every part was skipped on this host)\n", t.suite->name, preset.name);
  // The tables before the next run's messages and the summary (stdout is
  // buffered when piped; stderr is not).
  std::fflush(stdout);
  summary.ran(t.suite->name, preset.name,
              note.empty() ? fmt::format("ran, {} repetition{}", r.measured, r.measured == 1 ? "" : "s") : note, writer.dir(), invocation_s);
}

// meta.json's "monitors": what was counted, what was skipped and why.
nlohmann::json monitors_meta(const host::RepetitionMonitors& m, bool live) {
  nlohmann::json j = m.describe();
  if (!live) j["reason"] = "a replay measures nothing on this host: no monitors";
  return j;
}

// One preset's run: its meta.json, its repetitions, and its closing.
// `setup_s`: the seconds this process spent before it (probing the host),
// part of what an invocation costs beside its repetitions.
Outcome run_one(const Target& t, const RunSource& source, const HostCaps& caps, const RunRequest& req,
                double setup_s, const nlohmann::json& steady, RunSummary& summary) {
  const auto started = std::chrono::steady_clock::now();
  const Preset& preset = *t.preset;
  const std::unique_ptr<suites::Collector> collector = source.collector(*t.suite);
  const int reps = req.repetitions > 0 ? req.repetitions : preset.default_repetitions;
  // A replay measures nothing on this host: nothing to count beside it.
  host::RepetitionMonitors monitors(source.live_host() ? *host::parse_monitor_level(req.monitors)
                                                       : host::MonitorLevel::off);
  const nlohmann::json meta = start_meta(t, caps, req, *collector, t.params.text, reps, monitors, steady);

  RunWriter writer = RunWriter::create_in(req.out_root, meta);
  // What this run changes on the host (knobs, module reloads) and puts back.
  const std::size_t changes_from = host::host_change_count();
  fmt::print(stderr, "{}",
             wrap_text(fmt::format("kvmbench: {} / {} [source: {}] -> {}", t.suite->name, preset.name,
                                   meta["source"].get<std::string>(), writer.dir().string()),
                       80, ""));
  if (meta.contains("source_note")) fmt::print(stderr, "kvmbench: {}\n", caps.emulated_reason);
  // A host setting's warning is the same for every run: counted in the
  // summary under its setting (the text before its first ": ").
  for (const auto& w : collector->noise_warnings(meta)) summary.warn(w.substr(0, w.find(": ")), w);

  std::vector<Sample> collected;
  suites::RunContext ctx(caps, t.params.parsed, reps, writer.dir(), [&](const Sample& s) {
    writer.append(s);
    collected.push_back(s);
  });
  ctx.save_raw = [&](const std::string& name, const std::string& text) { writer.write_raw(name, text); };
  ctx.set_collector(collector.get());
  ctx.monitors_count = monitors.level() != host::MonitorLevel::off;
  const std::size_t total_steps = req.adaptive ? 0 : static_cast<std::size_t>(reps + req.warmup);
  Progress progress(total_steps);
  const std::string label = fmt::format("{}/{}", t.suite->name, preset.name);
  std::size_t rep_no = 0, rep_of = 0;
  ctx.progress = [&](const std::string& what) { progress.update(label + ": " + what, rep_no, rep_of); };

  Repeated r;
  MonitorSamples monitor_samples(monitors);
  try {
    r = repeat(preset, ctx, req, reps, collected, progress, label, rep_no, rep_of, monitor_samples);
  } catch (const ExitError&) {
    progress.finish();
    writer.update_meta({{"skipped_parts", ctx.skips()}, {"host_changes", host::host_changes_json(changes_from)}});
    writer.finish("failed");
    // A bad parameter is found before anything is measured: then leave no
    // run directory behind (nothing half-written).
    if (writer.samples_written() == 0) {
      std::error_code ec;
      fs::remove_all(writer.dir(), ec);
    }
    throw;
  }
  progress.finish();
  finish_run(t, req, writer, ctx, r,
             setup_s + std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
             changes_from, summary, monitors_meta(monitors, source.live_host()));
  return r.outcome;
}

}  // namespace

int run_suites(const RunRequest& req) {
  const auto invoked = std::chrono::steady_clock::now();
  host::install_interrupt_handlers();
  const RunSource source(req);
  const std::string& preset_name = source.preset();

  const std::vector<const Suite*> chosen = suites::chosen_suites(req.target, preset_name, req.overrides);

  const auto probe_start = std::chrono::steady_clock::now();
  HostCaps caps = suites::probe_host_caps();
  std::vector<Target> targets;
  // What was left out is said in the closing summary, each in one line
  // (and only once every parameter is known to be good: a bad one prints
  // nothing but its message).
  RunSummary summary;
  for (auto* s : chosen) {
    std::string why;
    if (!preset_name.empty() && !s->find_preset(preset_name)) {
      summary.not_run(fmt::format("skipping {}: it has no preset '{}'", s->name, preset_name));
      continue;
    }
    auto presets = choose_presets(*s, source, caps, req, why, summary);
    for (const Preset* p : presets) targets.push_back({s, p});
    if (presets.empty())
      summary.not_run(fmt::format("skipping {}: {}", s->name, why));
    else if (!why.empty())
      summary.not_run(fmt::format("{}: not run here: {}", s->name, why));
  }
  // Every --set of every preset about to run (all suites' for `run all`),
  // checked and parsed before the knob journal, the lock, a run directory
  // or any output.
  for (auto& t : targets) t.params = suites::resolve_params(*t.preset, req.overrides, caps);
  // The host is probed again when putting it back changed it.
  if (source.restore_host()) caps = suites::probe_host_caps();
  const double setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - probe_start).count();
  auto print_summary = [&] {
    std::fflush(stdout);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - invoked).count();
    for (const auto& l : summary.render(wall_s)) fmt::print(stderr, "{}\n", l);
  };
  if (targets.empty()) {
    print_summary();
    throw ExitError(kExitCannotRun, "nothing can run on this host");
  }

  const std::unique_ptr<RunLockHolder> lock = source.lock_host();
  // --steady: set under the lock (another run's knobs are not ours to
  // change), put back when `steady_knobs` goes; the host probed again so
  // that meta.json and the noise warnings describe it as measured.
  std::optional<host::KnobSet> steady_knobs;
  nlohmann::json steady;
  if (req.steady && source.live_host()) {
    SteadyChoice choice;
    for (const auto& t : targets) choice.keep_thp_defrag |= t.suite->measures_thp;
    steady_knobs.emplace();
    const auto settings = make_host_steady(*steady_knobs, choice);
    steady = steady_json(settings);
    fmt::print(stderr, "{}", wrap_text("kvmbench: " + steady_line(settings), 80, "  "));
    caps = suites::probe_host_caps();
  }
  bool failed = false;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    Outcome o = run_one(targets[i], source, caps, req, setup_s, steady, summary);
    if (o == Outcome::interrupted) {
      for (std::size_t j = i + 1; j < targets.size(); ++j)
        summary.not_run(fmt::format("{} / {}: not reached (interrupted)", targets[j].suite->name,
                                    targets[j].preset->name));
      print_summary();
      return kExitInterrupted;
    }
    if (o == Outcome::failed) failed = true;
  }
  print_summary();
  return failed ? kExitFailed : kExitOk;
}

}  // namespace kvmbench::engine
