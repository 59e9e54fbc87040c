// The kernel the emulated lab machine boots (hostlib/lab/lab_machine.h) and the
// few of its modules the lab needs: kvm and kvm_amd (and what they depend
// on: irqbypass, ccp), virtio-pci and virtiofs to mount the host's
// filesystem. Taken from a Debian kernel package (.deb, as
// scripts/fetch-guest-kernel.sh downloads) or from a vmlinuz with its
// /lib/modules/<release> tree, staged once into a cache directory:
//   <cache>/<key>/vmlinuz-<release>
//   <cache>/<key>/lib/modules/<release>/{kernel/...,modules.builtin,modules.order}
// Compressed modules (.ko.xz, Debian since 6.x) are stored uncompressed, so
// that busybox and kmod load them alike.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kvmbench::host {

struct LabKernel {
  std::filesystem::path vmlinuz;
  std::string release;                 // "6.1.0-57-cloud-amd64"
  std::filesystem::path modules_root;  // holds lib/modules/<release>/
  std::string origin;                  // the package or image it came from
};

// The directories below lib/modules/<release>/kernel/ the lab takes.
const std::vector<std::string>& lab_module_dirs();

// $KVMBENCH_LAB_CACHE, else $XDG_CACHE_HOME/kvmbench/lab, else
// $HOME/.cache/kvmbench/lab.
std::filesystem::path default_lab_cache_dir();

// The release of a kernel image named vmlinuz-<release> ("" otherwise).
std::string release_of_vmlinuz(const std::filesystem::path& vmlinuz);

// Stages the package's kernel and modules (dpkg-deb -x), or reuses what an
// earlier call staged. Throws std::runtime_error with the reason: not a
// kernel package, no kvm_amd or virtiofs in it, dpkg-deb failing, ...
LabKernel stage_lab_kernel_package(const std::filesystem::path& deb, const std::filesystem::path& cache_dir);

// Same for a kernel image and its modules directory (/lib/modules/<release>).
LabKernel stage_lab_kernel_image(const std::filesystem::path& vmlinuz, const std::filesystem::path& modules_dir,
                                 const std::filesystem::path& cache_dir);

}  // namespace kvmbench::host
