#include "hostlib/state/kexec.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "analysis/model/kexec_facts.h"

#include "analysis/model/text_lines.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/os/child_process.h"

namespace kvmbench::host {

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// A bzImage carries "HdrS" at 0x202 (the x86 boot protocol's setup header).
bool is_bzimage(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char magic[4] = {};
  in.seekg(0x202);
  in.read(magic, 4);
  return in && std::string_view(magic, 4) == "HdrS";
}

std::string readable_or_empty(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) ? p.string() : "";
}

// The initrd of an installed release: Debian's name, else RHEL's.
std::string initrd_of(const std::string& release) {
  const std::string debian = readable_or_empty(fs::path("/boot") / ("initrd.img-" + release));
  return debian.empty() ? readable_or_empty(fs::path("/boot") / ("initramfs-" + release + ".img")) : debian;
}

ab::KernelChoice installed(const std::string& release, const std::string& spec) {
  ab::KernelChoice k;
  k.spec = spec;
  k.release = release;
  k.image = readable_or_empty(fs::path("/boot") / ("vmlinuz-" + release));
  if (k.image.empty())
    throw std::invalid_argument(fmt::format("kernel '{}': no /boot/vmlinuz-{} (give an installed release, a Debian "
                                            "kernel package or a bzImage)",
                                            spec, release));
  k.initrd = initrd_of(release);
  return k;
}

}  // namespace

std::string kexec_cmdline(std::string_view running, std::string_view append, std::string_view marker) {
  std::string kernel, init;
  bool after_dashes = false;
  auto add = [](std::string& to, std::string_view w) {
    if (!w.empty()) to += (to.empty() ? "" : " ") + std::string(w);
  };
  for_each_word(running, [&](std::string_view word) {
    if (after_dashes) {
      add(init, word);
    } else if (word == "--") {
      after_dashes = true;
    } else if (!word.starts_with("BOOT_IMAGE=") && !word.starts_with("initrd=") &&
               !word.starts_with("kvmbench.ab=")) {
      add(kernel, word);
    }
  });
  add(kernel, append);
  add(kernel, marker);
  if (after_dashes) kernel += " --" + (init.empty() ? std::string() : " " + init);
  return kernel;
}

ab::KernelChoice resolve_kernel(const std::string& spec, const std::string& append, const fs::path& work_dir) {
  ab::KernelChoice k;
  const std::string running_cmdline = env_or("KVMBENCH_AB_RUNNING_CMDLINE", proc_cmdline());
  if (spec == "running") {
    k.spec = spec;
    k.release = running_release();
    k.image = env_or("KVMBENCH_AB_RUNNING_IMAGE", readable_or_empty(fs::path("/boot") / ("vmlinuz-" + k.release)));
    k.initrd = env_or("KVMBENCH_AB_RUNNING_INITRD", initrd_of(k.release));
    if (k.image.empty())
      throw std::invalid_argument(fmt::format("kernel 'running': its image is not /boot/vmlinuz-{} (give it as a "
                                              "bzImage path, or set KVMBENCH_AB_RUNNING_IMAGE)",
                                              k.release));
  } else if (spec.ends_with(".deb")) {
    std::error_code ec;
    if (!fs::is_regular_file(spec, ec)) throw std::invalid_argument(fmt::format("kernel '{}': no such file", spec));
    const fs::path into = work_dir / fs::path(spec).filename().replace_extension("");
    fs::create_directories(into, ec);
    const ProgramRun x = run_program({"/usr/bin/dpkg-deb", "-x", spec, into.string()}, 300);
    if (!x.ok()) throw std::invalid_argument(fmt::format("kernel '{}': dpkg-deb -x failed: {}", spec, x.failure()));
    std::string image;
    for (const auto& e : fs::directory_iterator(into / "boot", ec))
      if (e.path().filename().string().starts_with("vmlinuz-")) image = e.path().string();
    if (image.empty())
      throw std::invalid_argument(fmt::format("kernel '{}': the package has no boot/vmlinuz-* (not a kernel image "
                                              "package: a linux-image-*-unsigned or linux-image-* one is)",
                                              spec));
    k.spec = spec;
    k.image = image;
    k.release = fs::path(image).filename().string().substr(8);
    if (!fs::is_directory(fs::path("/lib/modules") / k.release, ec))
      throw std::invalid_argument(fmt::format("kernel '{}': release {} is not installed here (no /lib/modules/{}), "
                                              "and kexec boots this root, whose modules it needs: apt-get install "
                                              "{} first",
                                              spec, k.release, k.release, spec));
    k.initrd = initrd_of(k.release);
  } else if (spec.find('/') != std::string::npos) {
    std::error_code ec;
    if (!fs::is_regular_file(spec, ec)) throw std::invalid_argument(fmt::format("kernel '{}': no such file", spec));
    if (!is_bzimage(spec))
      throw std::invalid_argument(fmt::format("kernel '{}': not a bzImage (no \"HdrS\" setup header at 0x202)", spec));
    k.spec = spec;
    k.image = spec;
  } else {
    k = installed(spec, spec);
  }
  k.append = append;
  k.cmdline = kexec_cmdline(running_cmdline, append, "");
  return k;
}

fs::path on_machine(const fs::path& p) { return machine_root() / p.relative_path(); }

fs::path machine_root() {
  const char* r = std::getenv("KVMBENCH_SYSFS_ROOT");
  return r && *r ? fs::path(r) : fs::path("/");
}

ab::KexecHost probe_kexec_host() {
  ab::KexecHost h;
  h.kexec_tool = run_program({"/bin/sh", "-c", "command -v kexec"}, 10).ok();
  h.root = ::geteuid() == 0;
  std::error_code ec;
  h.kexec_core = fs::exists(on_machine("/sys/kernel/kexec_loaded"), ec);
  h.load_disabled = read_kernel_value(on_machine("/proc/sys/kernel/kexec_load_disabled")).value_or("0") == "1";
  h.lockdown = ab::lockdown_mode(read_kernel_value(on_machine("/sys/kernel/security/lockdown")).value_or(""));
  // The bugs line of the first CPU (every CPU's says the same).
  const std::string cpuinfo = read_kernel_file(on_machine("/proc/cpuinfo")).value_or("");
  for_each_line(cpuinfo, [&](std::size_t, std::string_view line) {
    if (!line.starts_with("bugs")) return;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return;
    for_each_word(line.substr(colon + 1), [&](std::string_view w) {
      if (w == "tdx_pw_mce") h.tdx_pw_mce = true;
    });
  });
  const std::string tdx = read_kernel_value(on_machine("/sys/module/kvm_intel/parameters/tdx")).value_or("N");
  h.tdx_initialised = tdx == "Y" || tdx == "1";
  return h;
}

bool image_is_signed(const fs::path& image) {
  std::ifstream in(image, std::ios::binary);
  auto u16 = [&](std::streamoff at) -> std::uint32_t {
    unsigned char b[2] = {};
    in.seekg(at);
    in.read(reinterpret_cast<char*>(b), 2);
    return in ? static_cast<std::uint32_t>(b[0] | b[1] << 8) : 0;
  };
  auto u32 = [&](std::streamoff at) -> std::uint32_t {
    unsigned char b[4] = {};
    in.seekg(at);
    in.read(reinterpret_cast<char*>(b), 4);
    return in ? static_cast<std::uint32_t>(b[0] | b[1] << 8 | b[2] << 16 | static_cast<std::uint32_t>(b[3]) << 24) : 0;
  };
  if (u16(0) != 0x5a4d) return false;  // "MZ"
  const std::uint32_t pe = u32(0x3c);
  if (pe == 0 || u32(pe) != 0x00004550) return false;  // "PE\0\0"
  const std::streamoff opt = static_cast<std::streamoff>(pe) + 24;
  const std::uint32_t magic = u16(opt);
  // The data directories follow the optional header's fixed part; the
  // certificate table is the fifth (index 4): its size says whether a
  // signature is attached.
  const std::streamoff dirs = opt + (magic == 0x20b ? 112 : magic == 0x10b ? 96 : -1);
  if (dirs < opt) return false;
  const std::uint32_t count = u32(opt + (magic == 0x20b ? 108 : 92));
  if (count < 5) return false;
  return u32(dirs + 4 * 8 + 4) != 0;
}

ab::KexecKernel kexec_kernel(const ab::KernelChoice& k, std::string_view side) {
  ab::KexecKernel out;
  out.side = side;
  out.spec = k.spec;
  out.image = k.image;
  out.initrd = k.initrd;
  out.release = k.release;
  out.cmdline = k.cmdline;
  out.image_signed = image_is_signed(k.image);
  return out;
}

namespace {

std::vector<std::string> kexec_load_argv(const ab::KernelChoice& k, const std::string& cmdline, bool file_load) {
  std::vector<std::string> load = {"/bin/sh", "-c", "exec kexec \"$@\"", "kexec"};
  if (file_load) load.push_back("-s");
  load.insert(load.end(), {"-l", k.image});
  if (!k.initrd.empty()) load.push_back("--initrd=" + k.initrd);
  load.push_back("--append=" + cmdline);
  return load;
}

}  // namespace

std::string trial_load(const ab::KernelChoice& k, const std::string& cmdline, bool file_load) {
  const ProgramRun l = run_program(kexec_load_argv(k, cmdline, file_load), 120);
  if (!l.ok()) return l.failure();
  std::vector<std::string> unload = {"/bin/sh", "-c", "exec kexec \"$@\"", "kexec"};
  if (file_load) unload.push_back("-s");
  unload.push_back("-u");
  const ProgramRun u = run_program(unload, 60);
  if (!u.ok()) return "it loaded, but `kexec -u` failed: " + u.failure();
  return "";
}

void kexec_into(const ab::KernelChoice& k, const std::string& cmdline) {
  const bool file_load = ab::use_kexec_file_load(probe_kexec_host().lockdown, image_is_signed(k.image));
  const ProgramRun l = run_program(kexec_load_argv(k, cmdline, file_load), 120);
  if (!l.ok())
    throw std::runtime_error(fmt::format("kexec {}-l {} failed: {}", file_load ? "-s " : "", k.image, l.failure()));
  ::sync();
  if (systemd_runs_this_machine()) {
    const ProgramRun j = run_program({"/bin/sh", "-c", "exec systemctl kexec"}, 120);
    if (!j.ok()) {
      std::vector<std::string> unload = {"/bin/sh", "-c", "exec kexec \"$@\"", "kexec"};
      if (file_load) unload.push_back("-s");
      unload.push_back("-u");
      (void)run_program(unload, 60);
      throw std::runtime_error("systemctl kexec failed: " + j.failure());
    }
    return;
  }
  // A kexec -e that boots never returns: one that returns has failed (the
  // kernel refused the jump), and the loaded image is unloaded again.
  const ProgramRun e = run_program({"/bin/sh", "-c", "exec kexec -e"}, 600);
  std::vector<std::string> unload = {"/bin/sh", "-c", "exec kexec \"$@\"", "kexec"};
  if (file_load) unload.push_back("-s");
  unload.push_back("-u");
  (void)run_program(unload, 60);
  throw std::runtime_error("kexec -e failed: " + (e.ok() ? std::string("it returned (exit 0) without booting") : e.failure()));
}

namespace {

constexpr const char* kUnit = "kvmbench-ab.service";
fs::path etc_unit() { return on_machine(fs::path("/etc/systemd/system") / kUnit); }
fs::path drop_in() { return on_machine(fs::path("/etc/systemd/system") / (std::string(kUnit) + ".d") / "kvmbench-ab.conf"); }
// Written by kvmbench (the package's own unit is in /usr/lib).
constexpr const char* kWrittenMark = "# written by kvmbench ab";

// A path as one word of a unit file's command line: '%' is a specifier,
// '"' and '\\' need escaping inside double quotes, and in an argument (not
// in the executable's path, which systemd takes as it is) '$' is a variable.
std::string unit_word(const fs::path& p, bool argument) {
  std::string out = "\"";
  for (char c : p.string()) {
    if (c == '%') out += "%%";
    else if (c == '$' && argument) out += "$$";
    else if (c == '"' || c == '\\') out += std::string("\\") + c;
    else out += c;
  }
  return out + "\"";
}

std::string resume_exec(const fs::path& self, const fs::path& state_dir) {
  return fmt::format("{} ab --resume --state {}", unit_word(self, false), unit_word(state_dir, true));
}

// Condition paths take no quotes: only '%' is special there.
std::string condition_path(const fs::path& p) {
  std::string out;
  for (char c : p.string()) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

}  // namespace

std::string resume_drop_in(const fs::path& self, const fs::path& state_dir) {
  return fmt::format("{}\n[Unit]\nConditionPathExists=\nConditionPathExists={}\n\n"
                     "[Service]\nExecStart=\nExecStart={}\n",
                     kWrittenMark, condition_path(state_dir / "state.json"), resume_exec(self, state_dir));
}

std::string resume_unit(const fs::path& self, const fs::path& state_dir) {
  return fmt::format("{}\n[Unit]\nDescription=kvmbench ab: the next boot of an A/B experiment across kernels\n"
                     "After=multi-user.target\nConditionPathExists={}\n\n"
                     "[Service]\nType=oneshot\nExecStart={}\n"
                     "StandardOutput=journal+console\nStandardError=journal+console\n\n"
                     "[Install]\nWantedBy=multi-user.target\n",
                     kWrittenMark, condition_path(state_dir / "state.json"), resume_exec(self, state_dir));
}

std::string arrange_resume_at_boot(const fs::path& self, const fs::path& state_dir) {
  if (!systemd_runs_this_machine()) return "systemd is not PID 1 here";
  // A unit file is lines: a path with a line break cannot be said in one.
  for (const fs::path& p : {self, state_dir})
    if (p.string().find_first_of("\n\r") != std::string::npos)
      return fmt::format("the path {:?} has a line break, which a systemd unit cannot hold", p.string());
  std::error_code ec;
  const bool packaged = run_program({"/bin/sh", "-c", "exec systemctl cat kvmbench-ab.service"}, 30).ok() &&
                        !fs::exists(etc_unit(), ec);
  const fs::path file = packaged ? drop_in() : etc_unit();
  fs::create_directories(file.parent_path(), ec);
  std::ofstream out(file);
  out << (packaged ? resume_drop_in(self, state_dir) : resume_unit(self, state_dir));
  out.close();
  if (!out) return fmt::format("cannot write {}: {}", file.string(), std::strerror(errno));
  const ProgramRun en = run_program({"/bin/sh", "-c", "systemctl daemon-reload && systemctl enable kvmbench-ab.service"}, 60);
  if (!en.ok()) return "systemctl enable kvmbench-ab.service failed: " + en.failure();
  return "";
}

void cancel_resume_at_boot() {
  if (!systemd_runs_this_machine()) return;
  (void)run_program({"/bin/sh", "-c", "systemctl disable kvmbench-ab.service"}, 60);
  std::error_code ec;
  for (const fs::path& f : {drop_in(), etc_unit()}) {
    const auto text = read_kernel_file(f);
    if (text && text->starts_with(kWrittenMark)) fs::remove(f, ec);
  }
  (void)run_program({"/bin/sh", "-c", "systemctl daemon-reload"}, 60);
}

std::string boot_id() { return read_kernel_value(on_machine("/proc/sys/kernel/random/boot_id")).value_or(""); }

std::string running_release() {
  utsname u{};
  return ::uname(&u) == 0 ? std::string(u.release) : std::string();
}

std::string proc_cmdline() { return read_kernel_value(on_machine("/proc/cmdline")).value_or(""); }

bool init_runs_ab_at_boot() { return std::getenv("KVMBENCH_AB_RUNNING_IMAGE") != nullptr; }

bool systemd_runs_this_machine() {
  std::error_code ec;
  return fs::is_directory(on_machine("/run/systemd/system"), ec) &&
         read_kernel_value(on_machine("/proc/1/comm")).value_or("") == "systemd";
}

}  // namespace kvmbench::host
