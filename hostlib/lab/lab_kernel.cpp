#include "hostlib/lab/lab_kernel.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "hostlib/os/child_process.h"

namespace kvmbench::host {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The first of `names` found executable in the usual directories.
std::string find_tool(std::initializer_list<const char*> names) {
  for (const char* n : names)
    for (const char* dir : {"/usr/bin", "/bin", "/usr/sbin", "/sbin"}) {
      fs::path p = fs::path(dir) / n;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  return "";
}

void run_or_throw(const std::vector<std::string>& argv, double timeout_s, const std::string& what) {
  ProgramRun r = run_program(argv, timeout_s);
  if (!r.ok()) throw std::runtime_error(fmt::format("{}: `{}` failed: {}", what, argv[0], r.failure()));
}

// Decompresses a staged module in place (FILE.ko.xz -> FILE.ko).
void decompress_module(const fs::path& file) {
  const std::string ext = file.extension().string();
  std::vector<std::string> argv;
  if (ext == ".xz") {
    if (auto xz = find_tool({"xz"}); !xz.empty()) argv = {xz, "-d", "-f", file.string()};
    else if (auto bb = find_tool({"busybox"}); !bb.empty()) argv = {bb, "unxz", "-f", file.string()};
  } else if (ext == ".gz") {
    if (auto gz = find_tool({"gzip"}); !gz.empty()) argv = {gz, "-d", "-f", file.string()};
  } else if (ext == ".zst") {
    if (auto zstd = find_tool({"zstd"}); !zstd.empty()) argv = {zstd, "-d", "-q", "-f", "--rm", file.string()};
  }
  if (argv.empty())
    throw std::runtime_error(fmt::format("{}: no program here decompresses {} modules", file.string(), ext));
  run_or_throw(argv, 60, "decompressing " + file.filename().string());
}

bool is_module(const fs::path& p) {
  const std::string n = p.filename().string();
  for (const char* suffix : {".ko", ".ko.xz", ".ko.gz", ".ko.zst"})
    if (n.size() > std::string_view(suffix).size() && n.ends_with(suffix)) return true;
  return false;
}

bool builtin_lists(const fs::path& modules_dir, std::string_view module_path) {
  std::ifstream in(modules_dir / "modules.builtin");
  for (std::string line; std::getline(in, line);)
    if (line == module_path) return true;
  return false;
}

// Copies the lab's module directories of `modules_dir` (a
// lib/modules/<release> tree) into `dest` (the same layout), uncompressed,
// and checks that what the lab needs is there.
void stage_modules(const fs::path& modules_dir, const fs::path& dest) {
  fs::create_directories(dest / "kernel");
  for (const auto& rel : lab_module_dirs()) {
    const fs::path from = modules_dir / "kernel" / rel;
    std::error_code ec;
    if (!fs::is_directory(from, ec)) continue;
    for (auto& de : fs::recursive_directory_iterator(from)) {
      if (!de.is_regular_file() || !is_module(de.path())) continue;
      const fs::path to = dest / fs::relative(de.path(), modules_dir);
      fs::create_directories(to.parent_path());
      fs::copy_file(de.path(), to, fs::copy_options::overwrite_existing);
      if (to.extension() != ".ko") decompress_module(to);
    }
  }
  for (const char* f : {"modules.builtin", "modules.builtin.modinfo", "modules.order"}) {
    std::error_code ec;
    if (fs::exists(modules_dir / f, ec)) fs::copy_file(modules_dir / f, dest / f, fs::copy_options::overwrite_existing);
  }
  // What the lab cannot do without: KVM for AMD (the point of the lab) and
  // virtiofs (the host's filesystem); either may be built in.
  auto present = [&](const char* path) {
    std::error_code ec;
    return fs::exists(dest / path, ec) || builtin_lists(modules_dir, path);
  };
  if (!present("kernel/arch/x86/kvm/kvm-amd.ko"))
    throw std::runtime_error(fmt::format("{} has no kvm-amd module (kernel/arch/x86/kvm/kvm-amd.ko): the lab needs "
                                         "a kernel with KVM for AMD",
                                         modules_dir.string()));
  if (!present("kernel/fs/overlayfs/overlay.ko"))
    throw std::runtime_error(fmt::format("{} has no overlayfs (kernel/fs/overlayfs/overlay.ko, module or built in)",
                                         modules_dir.string()));
  if (!present("kernel/fs/fuse/virtiofs.ko"))
    throw std::runtime_error(fmt::format("{} has no virtiofs (kernel/fs/fuse/virtiofs.ko, module or built in): the "
                                         "lab mounts the host's filesystem with it",
                                         modules_dir.string()));
}

// Stages into <cache>/<key> through a temporary directory renamed at the
// end, so an interrupted staging is never taken for a finished one.
template <typename Fill>
LabKernel staged(const fs::path& cache_dir, const std::string& key, const std::string& origin, Fill fill) {
  const fs::path final_dir = cache_dir / key;
  auto from_dir = [&](const fs::path& dir) -> std::optional<LabKernel> {
    std::error_code ec;
    if (!fs::exists(dir / "staged", ec)) return std::nullopt;
    for (auto& de : fs::directory_iterator(dir, ec)) {
      std::string rel = release_of_vmlinuz(de.path());
      if (!rel.empty()) return LabKernel{de.path(), rel, dir, origin};
    }
    return std::nullopt;
  };
  if (auto k = from_dir(final_dir)) return *k;
  fs::create_directories(cache_dir);
  const fs::path tmp = cache_dir / fmt::format("{}.tmp-{}", key, ::getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp);
  try {
    fill(tmp);
    std::ofstream(tmp / "staged") << origin << "\n";
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  fs::remove_all(final_dir, ec);
  fs::rename(tmp, final_dir);
  if (auto k = from_dir(final_dir)) return *k;
  throw std::runtime_error("staging the lab kernel into " + final_dir.string() + " left no vmlinuz-*");
}

}  // namespace

const std::vector<std::string>& lab_module_dirs() {
  // kvm, kvm-amd; irqbypass (virt/lib); ccp, which kvm-amd needs on kernels
  // built with SEV (and tee, which ccp may need); the virtio transport and
  // virtiofs with fuse; overlayfs (lab-init adds the modules to /usr/lib).
  static const std::vector<std::string> dirs = {"arch/x86/kvm", "virt",    "drivers/crypto/ccp", "drivers/tee",
                                                "drivers/virtio", "fs/fuse", "fs/overlayfs"};
  return dirs;
}

fs::path default_lab_cache_dir() {
  if (auto d = env("KVMBENCH_LAB_CACHE"); !d.empty()) return d;
  if (auto x = env("XDG_CACHE_HOME"); !x.empty()) return fs::path(x) / "kvmbench" / "lab";
  if (auto h = env("HOME"); !h.empty()) return fs::path(h) / ".cache" / "kvmbench" / "lab";
  return fs::temp_directory_path() / fmt::format("kvmbench-lab-cache-{}", ::getuid());
}

std::string release_of_vmlinuz(const fs::path& vmlinuz) {
  const std::string n = vmlinuz.filename().string();
  constexpr std::string_view pre = "vmlinuz-";
  if (n.size() <= pre.size() || n.compare(0, pre.size(), pre) != 0) return "";
  return n.substr(pre.size());
}

LabKernel stage_lab_kernel_package(const fs::path& deb, const fs::path& cache_dir) {
  std::error_code ec;
  if (!fs::is_regular_file(deb, ec)) throw std::runtime_error(deb.string() + ": no such file");
  const auto size = fs::file_size(deb, ec);
  const std::string key = fmt::format("{}-{}", deb.stem().string(), size);
  return staged(cache_dir, key, deb.filename().string(), [&](const fs::path& tmp) {
    const std::string dpkg_deb = find_tool({"dpkg-deb"});
    if (dpkg_deb.empty()) throw std::runtime_error("dpkg-deb not found (it unpacks the kernel package)");
    const fs::path x = tmp / "extract";
    run_or_throw({dpkg_deb, "-x", deb.string(), x.string()}, 300, "unpacking " + deb.string());
    fs::path vmlinuz;
    for (auto& de : fs::directory_iterator(x / "boot", ec))
      if (!release_of_vmlinuz(de.path()).empty()) vmlinuz = de.path();
    if (vmlinuz.empty())
      throw std::runtime_error(deb.string() + " is not a kernel image package (no boot/vmlinuz-*)");
    const std::string release = release_of_vmlinuz(vmlinuz);
    fs::path modules;
    for (const char* base : {"lib/modules", "usr/lib/modules"})
      if (fs::is_directory(x / base / release, ec)) modules = x / base / release;
    if (modules.empty()) throw std::runtime_error(fmt::format("{} has no modules for {}", deb.string(), release));
    stage_modules(modules, tmp / "lib/modules" / release);
    fs::copy_file(vmlinuz, tmp / vmlinuz.filename());
    fs::remove_all(x);
  });
}

LabKernel stage_lab_kernel_image(const fs::path& vmlinuz, const fs::path& modules_dir, const fs::path& cache_dir) {
  std::error_code ec;
  if (!fs::is_regular_file(vmlinuz, ec)) throw std::runtime_error(vmlinuz.string() + ": no such file");
  if (!fs::is_directory(modules_dir / "kernel", ec))
    throw std::runtime_error(modules_dir.string() + " is not a modules directory (no kernel/ in it)");
  std::string release = release_of_vmlinuz(vmlinuz);
  if (release.empty()) release = modules_dir.filename().string();
  const std::string key = fmt::format("{}-{}", release, fs::file_size(vmlinuz, ec));
  return staged(cache_dir, key, vmlinuz.string(), [&](const fs::path& tmp) {
    stage_modules(modules_dir, tmp / "lib/modules" / release);
    fs::copy_file(vmlinuz, tmp / ("vmlinuz-" + release));
  });
}

}  // namespace kvmbench::host
