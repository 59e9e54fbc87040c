#include "hostlib/qemu/qemu_paths.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "hostlib/os/install_layout.h"

namespace fs = std::filesystem;

namespace kvmbench::host {

static std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

FoundPath default_guest_kernel() {
  if (auto e = env("KVMBENCH_GUEST_KERNEL"); !e.empty()) {
    if (fs::is_regular_file(e)) return {e, ""};
    return {{}, "KVMBENCH_GUEST_KERNEL=" + e + " is not a file"};
  }
  const fs::path cache = guest_kernel_cache();
  std::vector<fs::path> found;
  std::error_code ec;
  if (!cache.empty() && fs::is_directory(cache, ec))
    for (auto& de : fs::directory_iterator(cache, ec))
      if (de.path().filename().string().rfind("vmlinuz-", 0) == 0 && de.is_regular_file())
        found.push_back(de.path());
  if (found.empty())
    return {{}, "no guest kernel in " + cache.string() +
                    " (run scripts/fetch-guest-kernel.sh, or pass --kernel)"};
  std::sort(found.begin(), found.end());
  return {found.back(), ""};
}

FoundPath default_guest_initramfs() {
  if (auto e = env("KVMBENCH_GUEST_INITRAMFS"); !e.empty()) {
    if (fs::is_regular_file(e)) return {e, ""};
    return {{}, "KVMBENCH_GUEST_INITRAMFS=" + e + " is not a file"};
  }
  if (data_dir().empty()) return {{}, "no share/kvmbench beside this kvmbench binary (not installed or built?)"};
  const fs::path image = data_dir() / "guest" / "kvmbench-initramfs.cpio";
  if (!fs::is_regular_file(image))
    return {{}, "no guest image " + image.string() +
                    " (build target kvmbench_guest_image; busybox-static missing at configure time?)"};
  return {image, ""};
}

fs::path guest_initramfs_entries() { return data_dir() / "guest" / "initramfs.entries"; }

fs::path guest_bin_dir() { return libexec_dir(); }

FoundPath find_qemu() {
  if (auto e = env("KVMBENCH_QEMU"); !e.empty()) {
    if (::access(e.c_str(), X_OK) == 0) return {e, ""};
    return {{}, "KVMBENCH_QEMU=" + e + " is not executable"};
  }
  std::string path = env("PATH");
  if (path.empty()) path = "/usr/bin:/bin";
  std::string_view rest = path;
  while (!rest.empty()) {
    auto colon = rest.find(':');
    fs::path dir = std::string(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    fs::path cand = dir / "qemu-system-x86_64";
    if (!dir.empty() && ::access(cand.c_str(), X_OK) == 0) return {cand, ""};
  }
  return {{}, "qemu-system-x86_64 not found in PATH (install qemu-system-x86)"};
}

FoundPath lab_base_initramfs() {
  const fs::path image = data_dir() / "guest" / "kvmbench-lab-initramfs.cpio";
  if (!fs::is_regular_file(image))
    return {{}, "no lab image " + image.string() +
                    " (build target kvmbench_guest_image; busybox-static missing at configure time?)"};
  return {image, ""};
}

FoundPath default_lab_kernel_package() {
  if (auto e = env("KVMBENCH_LAB_KERNEL"); !e.empty()) {
    if (fs::is_regular_file(e)) return {e, ""};
    return {{}, "KVMBENCH_LAB_KERNEL=" + e + " is not a file"};
  }
  const fs::path dir = guest_kernel_cache() / "deb";
  std::vector<fs::path> found;
  std::error_code ec;
  if (fs::is_directory(dir, ec))
    for (auto& de : fs::directory_iterator(dir, ec))
      if (de.path().extension() == ".deb" && de.is_regular_file()) found.push_back(de.path());
  if (found.empty())
    return {{}, "no kernel package in " + dir.string() +
                    " (run scripts/fetch-guest-kernel.sh, or pass --lab-kernel FILE.deb)"};
  std::sort(found.begin(), found.end());
  return {found.back(), ""};
}

FoundPath find_virtiofsd() {
  if (auto e = env("KVMBENCH_VIRTIOFSD"); !e.empty()) {
    if (::access(e.c_str(), X_OK) == 0) return {e, ""};
    return {{}, "KVMBENCH_VIRTIOFSD=" + e + " is not executable"};
  }
  for (const char* p : {"/usr/libexec/virtiofsd", "/usr/lib/qemu/virtiofsd"})
    if (::access(p, X_OK) == 0) return {p, ""};
  return {{}, "virtiofsd not found in /usr/libexec or /usr/lib/qemu (install qemu-system-common or virtiofsd)"};
}

}  // namespace kvmbench::host
