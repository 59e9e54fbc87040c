#include "hostlib/state/module_reload.h"
#include "hostlib/os/kernel_files.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "hostlib/os/child_process.h"

namespace kvmbench::host {

namespace fs = std::filesystem;

namespace {

// ChildProcess wants a path: look the program up as a shell would, plus
// the sbin directories a non-login root shell may lack.
std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  std::string path = "/usr/sbin:/sbin:/usr/bin:/bin";
  if (const char* p = std::getenv("PATH")) path = path + ":" + p;
  std::istringstream dirs(path);
  for (std::string d; std::getline(dirs, d, ':');) {
    if (d.empty()) continue;
    fs::path cand = fs::path(d) / name;
    if (::access(cand.c_str(), X_OK) == 0) return cand.string();
  }
  throw std::runtime_error(fmt::format("{} not found (install kmod, or set $KVMBENCH_MODPROBE)", name));
}

// Runs modprobe to the end (a reload stopped half-way is worse than a slow
// one: no interrupt check here); throws with its output when it fails.
void run_modprobe(const std::string& modprobe, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {resolve_program(modprobe)};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string cmdline = modprobe;
  for (auto& a : args) cmdline += " " + a;
  ChildProcess child(argv);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!child.poll_exit()) {
    child.drain_output();
    if (std::chrono::steady_clock::now() > deadline) {
      child.kill_and_reap();
      throw std::runtime_error(fmt::format("`{}` did not finish within 120 s", cmdline));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (child.exit_code() != 0) {
    std::string out = child.output();
    while (!out.empty() && out.back() == '\n') out.pop_back();
    throw std::runtime_error(fmt::format("`{}` failed ({}){}{}", cmdline,
                                         child.signal() ? fmt::format("signal {}", child.signal())
                                                        : fmt::format("exit {}", child.exit_code()),
                                         out.empty() ? "" : ": ", out));
  }
}

}  // namespace

std::string default_modprobe_command() {
  if (const char* m = std::getenv("KVMBENCH_MODPROBE"); m && *m) return m;
  return "modprobe";
}

ModuleState read_module_state(const fs::path& module_dir) {
  ModuleState st;
  std::error_code ec;
  st.present = fs::is_directory(module_dir, ec);
  if (!st.present) return st;
  const std::optional<std::string> refcnt = read_kernel_value(module_dir / "refcnt");
  st.loadable = refcnt.has_value();
  if (refcnt) {
    try {
      st.refcnt = std::stol(*refcnt);
    } catch (...) {
      st.refcnt = -1;  // unreadable: treated as in use
    }
  }
  for (auto& e : fs::directory_iterator(module_dir / "parameters", ec)) {
    if (auto v = read_kernel_value(e.path())) st.params[e.path().filename().string()] = *v;
  }
  return st;
}

bool module_param_equal(std::string_view a, std::string_view b) {
  auto norm = [](std::string_view v) -> std::string {
    if (v == "Y" || v == "y" || v == "1") return "Y";
    if (v == "N" || v == "n" || v == "0") return "N";
    return std::string(v);
  };
  return norm(a) == norm(b);
}

std::string format_module_params(const ModuleParams& params) {
  std::string out;
  for (auto& [k, v] : params) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::string module_reload_refusal(const fs::path& module_dir, const ModuleState& st) {
  const std::string module = module_dir.filename().string();
  if (!st.present) return fmt::format("{} is not loaded ({} missing)", module, module_dir.string());
  if (!st.loadable)
    return fmt::format("{} is built into the kernel ({} has no refcnt): its parameters are set on the kernel "
                       "command line ({}.PARAM=VALUE) and need a reboot",
                       module, module_dir.string(), module);
  if (st.refcnt != 0)
    return fmt::format("{} is in use (refcnt {} in {}: VMs running or /dev/kvm open); stop them to reload it", module,
                       st.refcnt < 0 ? std::string("unreadable") : std::to_string(st.refcnt),
                       (module_dir / "refcnt").string());
  return "";
}

std::string rmmod_beside(const std::string& modprobe) {
  const fs::path p = modprobe;
  if (modprobe.find('/') == std::string::npos) return "rmmod";
  return (p.parent_path() / "rmmod").string();
}

void reload_module(const std::string& modprobe, const fs::path& module_dir, const ModuleParams& params) {
  const std::string module = module_dir.filename().string();
  std::error_code ec;
  // rmmod, not `modprobe -r`: that also unloads the dependencies nothing
  // else uses, and on an SEV host kvm_amd's include ccp, the PSP driver
  // whose unload shuts the SEV firmware down. kvm stays loaded (and keeps
  // its runtime parameters) too.
  if (fs::is_directory(module_dir, ec)) run_modprobe(rmmod_beside(modprobe), {module});
  std::vector<std::string> args = {module};
  for (auto& [k, v] : params) args.push_back(k + "=" + v);
  run_modprobe(modprobe, args);
}

std::string restore_module_params(const std::string& modprobe, const fs::path& module_dir, const ModuleParams& old) {
  const std::string module = module_dir.filename().string();
  ModuleState st = read_module_state(module_dir);
  auto matches = [&](const ModuleState& s) {
    if (!s.present) return false;
    for (auto& [k, v] : old) {
      auto it = s.params.find(k);
      if (it == s.params.end() || !module_param_equal(it->second, v)) return false;
    }
    return true;
  };
  if (matches(st)) return "";
  // Absent is fine (a crash between unload and load): just load it.
  if (st.present) {
    if (auto why = module_reload_refusal(module_dir, st); !why.empty())
      return fmt::format("cannot put back {} {}: {}", module, format_module_params(old), why);
  }
  try {
    reload_module(modprobe, module_dir, old);
  } catch (const std::exception& e) {
    return fmt::format("cannot put back {} {}: {}", module, format_module_params(old), e.what());
  }
  ModuleState now = read_module_state(module_dir);
  if (!matches(now))
    return fmt::format("{} reloaded with {} but reads {}", module, format_module_params(old),
                       now.present ? format_module_params(now.params) : std::string("not loaded"));
  return "";
}

}  // namespace kvmbench::host
