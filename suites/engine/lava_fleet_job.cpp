#include "suites/engine/lava_fleet_job.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <stdexcept>

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
