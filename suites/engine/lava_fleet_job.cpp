#include "suites/engine/lava_fleet_job.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <stdexcept>

#include "analysis/verdicts/ab_experiment.h"
#include "suites/framework/param_check.h"

namespace kvmbench::engine {

namespace {

bool is_kvmbench_definition(const YAML::Node& d) {
  if (!d.IsMap()) return false;
  if (d["name"] && d["name"].IsScalar() && d["name"].as<std::string>() == "kvmbench") return true;
  if (!d["path"] || !d["path"].IsScalar()) return false;
  const std::string path = d["path"].as<std::string>();
  const std::string tail = "kvmbench-testdef.yaml";
  return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
}

// The kvmbench test definitions of the job's test actions.
std::vector<YAML::Node> kvmbench_definitions(const YAML::Node& job) {
  std::vector<YAML::Node> out;
  const YAML::Node actions = job["actions"];
  if (!actions || !actions.IsSequence()) return out;
  for (const auto& action : actions) {
    if (!action.IsMap() || !action["test"] || !action["test"]["definitions"]) continue;
    for (auto d : action["test"]["definitions"])
      if (is_kvmbench_definition(d)) out.push_back(d);
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> testdef_parameters(const std::vector<std::string>& command) {
  if (command.empty()) throw std::invalid_argument("no command after `--`: give `-- run SUITE [OPTIONS]`");
  if (command[0] != "run")
    throw std::invalid_argument(fmt::format(
        "`{}` after `--`: the LAVA job runs `kvmbench run` on each device; give `-- run SUITE [OPTIONS]`",
        command[0]));
  if (command.size() < 2 || command[1].empty() || command[1][0] == '-')
    throw std::invalid_argument("`run` without a suite after `--`: give `-- run SUITE [OPTIONS]`");
  std::map<std::string, std::string> p;
  p["SUITE"] = command[1];
  std::string args;
  for (std::size_t i = 2; i < command.size(); ++i) {
    const std::string& a = command[i];
    if (a == "--preset" || a == "-p") {
      if (i + 1 >= command.size()) throw std::invalid_argument(fmt::format("{} without a value after `--`", a));
      p["PRESET"] = command[++i];
      continue;
    }
    if (a.rfind("--preset=", 0) == 0) {
      p["PRESET"] = a.substr(9);
      continue;
    }
    for (const char* own : {"--out", "--wait-lock", "--replay", "--dry-run"})
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        throw std::invalid_argument(fmt::format(
            "{} after `--`: the job sets where a device's run goes and how it waits; a fleet run cannot take it",
            own));
    if (a.empty() || a.find_first_of(" \t\n'\"\\$`") != std::string::npos)
      throw std::invalid_argument(fmt::format(
          "'{}' after `--`: the test definition word-splits RUN_ARGS, so an argument cannot hold white space, "
          "quotes or shell characters",
          a));
    args += (args.empty() ? "" : " ") + a;
  }
  p["RUN_ARGS"] = args;
  return p;
}

FleetCommand parse_fleet_command(const std::vector<std::string>& command) {
  FleetCommand c;
  if (command.empty() || command[0] != "ab") {
    c.parameters = testdef_parameters(command);
    return c;
  }
  FleetAb ab;
  std::size_t i = 1;
  auto value = [&](const std::string& option) -> std::string {
    if (i + 1 >= command.size() || command[i + 1] == "--")
      throw std::invalid_argument(fmt::format("ab {} without a value after `--`", option));
    return command[++i];
  };
  auto number = [&](const std::string& option, const std::string& text) {
    const auto v = suites::finite_number(text);
    if (!v) throw std::invalid_argument(fmt::format("ab {} {}: not a number", option, text));
    return *v;
  };
  for (; i < command.size() && command[i] != "--"; ++i) {
    const std::string& a = command[i];
    if (a == "--base") ab.base_kernel = value(a);
    else if (a == "--cand") ab.cand_kernel = value(a);
    else if (a == "--base-modules") ab.base_modules = value(a);
    else if (a == "--cand-modules") ab.cand_modules = value(a);
    else if (a == "--max-regression") ab.max_regression_pct = number(a, value(a));
    else if (a == "--alpha") ab.alpha = number(a, value(a));
    else if (a == "-n") {
      const std::string n = value(a);
      if (n == "auto")
        throw std::invalid_argument(
            "ab -n auto through LAVA: a LAVA job's boots are fixed when it is submitted; give -n N");
      const double v = number(a, n);
      if (v < 2 || v > 50 || v != static_cast<int>(v))
        throw std::invalid_argument(fmt::format("ab -n {}: a whole number of boots a side from 2 to 50", n));
      ab.n = static_cast<int>(v);
    } else if (a == "--base-append" || a == "--cand-append")
      throw std::invalid_argument(fmt::format(
          "ab {} through LAVA: the job template's boot action owns the kernel command line; give each side a "
          "template of its own or a kernel built with the setting",
          a));
    else
      throw std::invalid_argument(fmt::format(
          "ab {} through LAVA: fleet's ab takes --base, --cand (kernel URLs), --base-modules, --cand-modules, -n, "
          "--max-regression and --alpha",
          a));
  }
  if (i >= command.size())
    throw std::invalid_argument("ab without `-- run SUITE ...`: give `-- ab --base URL --cand URL -- run SUITE`");
  for (const auto* k : {&ab.base_kernel, &ab.cand_kernel})
    if (k->find("://") == std::string::npos)
      throw std::invalid_argument(fmt::format(
          "ab {} '{}': LAVA deploys a kernel from a URL (https://..., file://... on the worker); give --base and "
          "--cand as URLs",
          k == &ab.base_kernel ? "--base" : "--cand", *k));
  if (ab.base_modules.empty() != ab.cand_modules.empty())
    throw std::invalid_argument("ab: --base-modules and --cand-modules go together");
  if (ab.max_regression_pct < 0) throw std::invalid_argument("ab --max-regression: not below 0");
  if (!(ab.alpha > 0 && ab.alpha < 1)) throw std::invalid_argument("ab --alpha: between 0 and 1");
  c.parameters = testdef_parameters(std::vector<std::string>(command.begin() + static_cast<long>(i) + 1, command.end()));
  c.ab = ab;
  return c;
}

FleetJobTemplate parse_fleet_job_template(const std::string& yaml, const std::string& label) {
  YAML::Node job;
  try {
    job = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(fmt::format("{}: not YAML ({})", label, e.what()));
  }
  if (!job.IsMap()) throw std::invalid_argument(fmt::format("{}: not a LAVA job (no mapping at the top)", label));
  if (!job["device_type"] || !job["device_type"].IsScalar())
    throw std::invalid_argument(fmt::format("{}: not a LAVA job (no device_type)", label));
  if (kvmbench_definitions(job).empty())
    throw std::invalid_argument(fmt::format(
        "{}: no test action runs the kvmbench test definition (a definition named kvmbench, or whose path "
        "ends in kvmbench-testdef.yaml): the job would run nothing fleet can read back",
        label));
  return FleetJobTemplate{yaml, job["device_type"].as<std::string>()};
}

std::string render_fleet_job(const FleetJobTemplate& t, const std::vector<std::string>& labels,
                             const std::string& job_name, const std::map<std::string, std::string>& parameters) {
  YAML::Node job = YAML::Load(t.yaml);
  job["job_name"] = job_name;
  YAML::Node tags(YAML::NodeType::Sequence);
  for (const auto& l : labels) tags.push_back(l);
  job["tags"] = tags;
  for (auto d : kvmbench_definitions(job)) {
    YAML::Node params = d["parameters"];
    if (!params || !params.IsMap()) params = YAML::Node(YAML::NodeType::Map);
    for (const auto& [k, v] : parameters) params[k] = v;
    d["parameters"] = params;
  }
  YAML::Emitter out;
  out << job;
  return std::string(out.c_str()) + "\n";
}

}  // namespace kvmbench::engine

namespace kvmbench::engine {

namespace {

// The node of a deploy action's image `name` (kernel, modules): tftp and
// NFS deploys have it at the top, tmpfs deploys under `images`. Null when
// the action has none.
YAML::Node lava_deployed_image(YAML::Node deploy, const char* name) {
  if (deploy[name] && deploy[name].IsMap()) return deploy[name];
  if (deploy["images"] && deploy["images"][name] && deploy["images"][name].IsMap()) return deploy["images"][name];
  return YAML::Node(YAML::NodeType::Undefined);  // YAML::Node() is a null node, which tests true
}

// A LAVA timeout ({days, hours, minutes, seconds}) in seconds.
double lava_timeout_seconds(const YAML::Node& t) {
  double s = 0;
  if (!t || !t.IsMap()) return 0;
  for (const auto& [unit, factor] : {std::pair{"days", 86400.0}, {"hours", 3600.0}, {"minutes", 60.0}, {"seconds", 1.0}})
    if (t[unit]) s += t[unit].as<double>() * factor;
  return s;
}

}  // namespace

std::string render_fleet_ab_job(const FleetJobTemplate& t, const std::vector<std::string>& labels,
                                const std::string& job_name, const std::map<std::string, std::string>& parameters,
                                const FleetAb& ab) {
  const YAML::Node job = YAML::Load(render_fleet_job(t, labels, job_name, parameters));
  const YAML::Node cycle = job["actions"];
  bool kernel = false;
  for (const auto& action : cycle) {
    if (!action["deploy"]) continue;
    kernel = kernel || lava_deployed_image(action["deploy"], "kernel");
    if (lava_deployed_image(action["deploy"], "modules") && ab.base_modules.empty())
      throw std::invalid_argument(
          "the job template deploys modules with its kernel: give ab --base-modules and --cand-modules");
  }
  if (!kernel)
    throw std::invalid_argument(
        "the job template deploys no kernel by URL (a deploy action's kernel: url: or images: kernel: url:): "
        "fleet's ab has nothing to replace with --base and --cand");
  YAML::Node actions(YAML::NodeType::Sequence);
  const auto order = ab::invocation_order(ab.n, "abba", 1);
  for (std::size_t step = 0; step < order.size(); ++step) {
    const bool cand = order[step] == ab::Side::cand;
    for (const auto& action : cycle) {
      YAML::Node a = YAML::Clone(action);
      if (a["deploy"]) {
        if (YAML::Node k = lava_deployed_image(a["deploy"], "kernel")) k["url"] = cand ? ab.cand_kernel : ab.base_kernel;
        if (YAML::Node m = lava_deployed_image(a["deploy"], "modules")) m["url"] = cand ? ab.cand_modules : ab.base_modules;
      }
      // LAVA wants a job's test definition names unique.
      if (a["test"] && a["test"]["definitions"])
        for (auto d : a["test"]["definitions"])
          if (is_kvmbench_definition(d)) {
            d["parameters"]["FLEET_STEP"] = fmt::format("{} {}", step + 1, cand ? "cand" : "base");
            d["name"] = fmt::format("kvmbench-{}-{}", step + 1, cand ? "cand" : "base");
          }
      actions.push_back(a);
    }
  }
  YAML::Node out = job;
  out["actions"] = actions;
  // The template's job timeout is for one boot's cycle.
  if (const double s = lava_timeout_seconds(job["timeouts"]["job"]); s > 0) {
    YAML::Node timeout(YAML::NodeType::Map);
    timeout["minutes"] = static_cast<long>(std::ceil(s * static_cast<double>(order.size()) / 60));
    out["timeouts"]["job"] = timeout;
  }
  YAML::Emitter e;
  e << out;
  return std::string(e.c_str()) + "\n";
}

}  // namespace kvmbench::engine
