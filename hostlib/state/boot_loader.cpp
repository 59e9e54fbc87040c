#include "hostlib/state/boot_loader.h"

#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "analysis/model/text_lines.h"
#include "analysis/store/run_store.h"
#include "hostlib/os/child_process.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/state/kexec.h"

namespace fs = std::filesystem;

namespace kvmbench::host {

namespace {

constexpr const char* kBegin = "### kvmbench ab: begin (written by `kvmbench ab --boot-via reboot`; removed at its end)";
constexpr const char* kEnd = "### kvmbench ab: end";
constexpr const char* kEntry = "kvmbench-ab";

// A program on PATH, as the shell finds it.
bool have_program(const std::string& name) {
  return run_program({"/bin/sh", "-c", "command -v \"$1\" >/dev/null", "sh", name}, 10).ok();
}

// GRUB_DEFAULT=saved in /etc/default/grub or a grub.d drop-in: grub-reboot
// does nothing without it.
bool grub_default_saved() {
  std::vector<fs::path> files = {on_machine("/etc/default/grub")};
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(on_machine("/etc/default/grub.d"), ec))
    if (d.path().extension() == ".cfg") files.push_back(d.path());
  bool saved = false;
  for (const auto& f : files)
    for_each_line(read_kernel_file(f).value_or(""), [&](std::size_t, std::string_view line) {
      if (line.starts_with("GRUB_DEFAULT=")) saved = line == "GRUB_DEFAULT=saved" || line == "GRUB_DEFAULT=\"saved\"";
    });
  return saved;
}

// The source device of the file system mounted at `mountpoint` and its
// type (/proc/self/mountinfo: "... MOUNTPOINT ... - FSTYPE SOURCE ..."), or
// {"", ""}.
std::pair<std::string, std::string> mounted_at(const std::string& mountpoint) {
  std::pair<std::string, std::string> found;
  for_each_line(read_kernel_file(on_machine("/proc/self/mountinfo")).value_or(""), [&](std::size_t, std::string_view line) {
    std::vector<std::string_view> w;
    for_each_word(line, [&](std::string_view x) { w.push_back(x); });
    const auto dash = std::find(w.begin(), w.end(), "-");
    if (w.size() < 5 || w[4] != mountpoint || dash == w.end() || w.end() - dash < 3) return;
    found = {std::string(*(dash + 2)), std::string(*(dash + 1))};  // the last mount there wins
  });
  return found;
}

// An image the firmware can start: a PE/COFF file ("MZ", then "PE\0\0"
// where 0x3c points), as a kernel built with EFI_STUB is.
bool is_efi_application(const fs::path& image) {
  std::ifstream in(image, std::ios::binary);
  char head[0x40] = {};
  if (!in.read(head, sizeof head) || head[0] != 'M' || head[1] != 'Z') return false;
  std::uint32_t pe = 0;
  for (int i = 3; i >= 0; --i) pe = pe << 8 | static_cast<unsigned char>(head[0x3c + i]);
  char sig[4] = {};
  in.seekg(pe);
  return in.read(sig, 4) && std::string_view(sig, 4) == std::string_view("PE\0\0", 4);
}

// The images copied to the ESP, where the firmware (or systemd-boot)
// reads them: /kvmbench-ab/linux.efi and /kvmbench-ab/initrd.
void copy_to_esp(const fs::path& esp, const ab::KernelChoice& k) {
  const fs::path dir = esp / "kvmbench-ab";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const auto copy = [&](const std::string& from, const char* name) {
    fs::copy_file(from, dir / name, fs::copy_options::overwrite_existing, ec);
    if (ec) throw std::runtime_error(fmt::format("copying {} to the ESP: {}", from, ec.message()));
  };
  copy(k.image, "linux.efi");
  if (!k.initrd.empty()) copy(k.initrd, "initrd");
}

// Deletes the firmware's boot entries labelled kvmbench-ab.
void delete_efi_entries() {
  const ProgramRun list = run_program_on_path({"efibootmgr"}, 60);
  for (const std::string& n : efi_entries_labelled(list.output, kEntry))
    (void)run_program_on_path({"efibootmgr", "--quiet", "--bootnum", n, "--delete-bootnum"}, 60);
}

// Quoted for grub.cfg's shell-like syntax: single quotes, a quote as '\''.
std::string grub_word(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

BootLoader probe_boot_loader() {
  BootLoader b;
  std::error_code ec;
  if (have_program("bootctl") && run_program_on_path({"bootctl", "is-installed"}, 30).ok()) {
    b.kind = BootLoaderKind::systemd_boot;
    const ProgramRun esp = run_program_on_path({"bootctl", "--print-esp-path"}, 30);
    std::string path = esp.output.substr(0, esp.output.find('\n'));
    if (!esp.ok() || path.empty()) b.refusal = "systemd-boot is installed, but `bootctl --print-esp-path` failed: " + esp.failure();
    b.esp = path;
  } else if (fs::exists(on_machine("/boot/grub/grub.cfg"), ec)) {
    b.kind = BootLoaderKind::grub;
    struct stat root {}, boot {};
    b.boot_own_filesystem = ::stat(on_machine("/").c_str(), &root) == 0 &&
                            ::stat(on_machine("/boot").c_str(), &boot) == 0 && root.st_dev != boot.st_dev;
    const std::string cfg = read_kernel_file(on_machine("/boot/grub/grub.cfg")).value_or("");
    if (!have_program("grub-reboot"))
      b.refusal = "GRUB boots this machine, but grub-reboot is not installed (apt-get install grub2-common)";
    else if (!grub_default_saved())
      b.refusal = "grub-reboot chooses an entry once only with GRUB_DEFAULT=saved: set it in /etc/default/grub and "
                  "run update-grub (the default entry stays the one booted now)";
    else if (cfg.find("custom.cfg") == std::string::npos)
      b.refusal = "/boot/grub/grub.cfg does not read /boot/grub/custom.cfg (Debian's /etc/grub.d/41_custom makes it "
                  "do so): enable 41_custom and run update-grub";
  } else if (fs::exists(on_machine("/sys/firmware/efi"), ec)) {
    // Neither: the firmware's own BootNext, with an entry of kvmbench's.
    b.kind = BootLoaderKind::uefi;
    for (const char* at : {"/boot/efi", "/efi", "/boot"})
      if (const auto [device, type] = mounted_at(at); type == "vfat") {
        b.esp = on_machine(at);
        std::tie(b.esp_disk, b.esp_partition) = disk_and_partition(device);
        break;
      }
    if (!have_program("efibootmgr"))
      b.refusal = "an EFI machine booted by neither GRUB nor systemd-boot, and efibootmgr is not installed "
                  "(apt-get install efibootmgr) to choose the firmware's BootNext";
    else if (b.esp.empty())
      b.refusal = "an EFI machine booted by neither GRUB nor systemd-boot, and no EFI system partition is mounted "
                  "(vfat at /boot/efi, /efi or /boot) for the kernels the firmware would start";
    else if (b.esp_disk.empty())
      b.refusal = "the EFI system partition's device is not a partition kvmbench can name to efibootmgr";
  } else {
    b.refusal = "no boot loader kvmbench can choose a one-shot entry in: neither GRUB 2 (/boot/grub/grub.cfg), "
                "systemd-boot (`bootctl is-installed`) nor UEFI (/sys/firmware/efi)";
  }
  if (b.refusal.empty() && !systemd_runs_this_machine() && !init_runs_ab_at_boot())
    b.refusal = "the reboot and the resume after it need systemd (PID 1)";
  return b;
}

std::pair<std::string, int> disk_and_partition(const std::string& device) {
  std::size_t digits = device.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(device[digits - 1]))) --digits;
  if (digits == device.size() || digits == 0 || !device.starts_with("/dev/")) return {"", 0};
  const int part = std::stoi(device.substr(digits));
  std::string disk = device.substr(0, digits);
  // Disks whose names end in their own number (nvme0n1, mmcblk0, loop0,
  // nbd0, md0) put a 'p' before the partition's; sda1, vda2, xvda3 none.
  const std::string name = device.substr(5);
  const bool numbered = name.starts_with("nvme") || name.starts_with("mmcblk") || name.starts_with("loop") ||
                        name.starts_with("nbd") || name.starts_with("md");
  if (!numbered) return {disk, part};
  if (disk.size() < 2 || disk.back() != 'p' || !std::isdigit(static_cast<unsigned char>(disk[disk.size() - 2])))
    return {"", 0};  // the whole disk (nvme0n1)
  disk.pop_back();
  return {disk, part};
}

std::vector<std::string> efi_entries_labelled(const std::string& out, const std::string& label) {
  std::vector<std::string> found;
  for_each_line(out, [&](std::size_t, std::string_view line) {
    // "Boot0007* kvmbench-ab\tHD(1,GPT,...)/File(...)", inactive without '*'.
    if (!line.starts_with("Boot") || line.size() < 9) return;
    const std::string_view num = line.substr(4, 4);
    if (!std::all_of(num.begin(), num.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
      return;
    std::string_view rest = line.substr(8);
    if (rest.starts_with("*")) rest.remove_prefix(1);
    while (rest.starts_with(" ")) rest.remove_prefix(1);
    if (!rest.starts_with(label)) return;
    // After the label: nothing, a tab (efibootmgr 18), or spaces and then
    // a device path (older: "Windows Boot Manager  HD(2,...)"), never more
    // words of a longer label.
    std::string_view after = rest.substr(label.size());
    if (!after.empty() && after.front() != '\t') {
      if (after.front() != ' ') return;
      while (after.starts_with(" ")) after.remove_prefix(1);
      const std::string_view token = after.substr(0, after.find(' '));
      if (!after.empty() && token.find('(') == std::string_view::npos) return;
    }
    found.emplace_back(num);
  });
  return found;
}

std::string grub_path(const BootLoader& b, const std::string& file) {
  if (!b.boot_own_filesystem) return file;
  const fs::path p(file);
  const auto rel = p.lexically_relative("/boot");
  if (rel.empty() || rel.string().starts_with("..")) return "";
  return "/" + rel.string();
}

std::string with_kvmbench_grub_entry(const std::string& custom_cfg, const std::string& linux,
                                     const std::string& initrd, const std::string& cmdline) {
  std::string out;
  bool inside = false;
  for_each_line(custom_cfg, [&](std::size_t, std::string_view line) {
    if (line == kBegin) inside = true;
    if (!inside) out.append(line).push_back('\n');
    if (line == kEnd) inside = false;
  });
  if (linux.empty()) return out;
  out += fmt::format("{}\nmenuentry 'kvmbench ab' --id {} {{\n\tlinux {} {}\n", kBegin, kEntry, grub_word(linux),
                     cmdline);
  if (!initrd.empty()) out += fmt::format("\tinitrd {}\n", grub_word(initrd));
  out += fmt::format("}}\n{}\n", kEnd);
  return out;
}

std::string reboot_refusal(const BootLoader& b, const ab::KernelChoice& k) {
  if (!b.refusal.empty()) return b.refusal;
  if (k.image.empty()) return fmt::format("kernel '{}': no image to boot", k.spec);
  if (b.kind == BootLoaderKind::uefi && !is_efi_application(k.image))
    return fmt::format("kernel '{}': the firmware starts it as an EFI application, and {} is none (no PE header: "
                       "a kernel built without EFI_STUB)",
                       k.spec, k.image);
  if (b.kind == BootLoaderKind::grub)
    for (const std::string& f : {k.image, k.initrd})
      if (!f.empty() && grub_path(b, f).empty())
        return fmt::format("kernel '{}': {} lies outside /boot, which is a filesystem of its own, so GRUB cannot "
                           "read it: copy it under /boot",
                           k.spec, f);
  return "";
}

void reboot_into(const BootLoader& b, const ab::KernelChoice& k, const std::string& cmdline) {
  if (const std::string why = reboot_refusal(b, k); !why.empty()) throw std::runtime_error(why);
  if (b.kind == BootLoaderKind::grub) {
    const fs::path custom = on_machine("/boot/grub/custom.cfg");
    const std::string now = read_kernel_file(custom).value_or("");
    write_file_atomic(custom, with_kvmbench_grub_entry(now, grub_path(b, k.image),
                                                       k.initrd.empty() ? "" : grub_path(b, k.initrd), cmdline));
    const ProgramRun once = run_program_on_path({"grub-reboot", kEntry}, 60);
    if (!once.ok()) throw std::runtime_error("grub-reboot failed: " + once.failure());
  } else if (b.kind == BootLoaderKind::uefi) {
    copy_to_esp(b.esp, k);
    delete_efi_entries();  // one of an earlier step
    // Made without a place in BootOrder: the firmware starts it only as
    // BootNext, once.
    const std::string options = (k.initrd.empty() ? "" : "initrd=\\kvmbench-ab\\initrd ") + cmdline;
    const ProgramRun made = run_program_on_path(
        {"efibootmgr", "--quiet", "--create-only", "--disk", b.esp_disk, "--part", std::to_string(b.esp_partition),
         "--label", kEntry, "--loader", "\\kvmbench-ab\\linux.efi", "--unicode", options},
        60);
    if (!made.ok()) throw std::runtime_error("efibootmgr --create-only failed: " + made.failure());
    const auto entries = efi_entries_labelled(run_program_on_path({"efibootmgr"}, 60).output, kEntry);
    if (entries.size() != 1)
      throw std::runtime_error(fmt::format("efibootmgr lists {} entries labelled {} after making one", entries.size(),
                                           kEntry));
    const ProgramRun once = run_program_on_path({"efibootmgr", "--quiet", "--bootnext", entries.front()}, 60);
    if (!once.ok()) throw std::runtime_error("efibootmgr --bootnext failed: " + once.failure());
  } else {
    copy_to_esp(b.esp, k);
    std::string entry = fmt::format("# {}\ntitle kvmbench ab\nlinux /kvmbench-ab/linux.efi\n", kBegin);
    if (!k.initrd.empty()) entry += "initrd /kvmbench-ab/initrd\n";
    entry += "options " + cmdline + "\n";
    std::error_code ec;
    fs::create_directories(b.esp / "loader" / "entries", ec);
    write_file_atomic(b.esp / "loader" / "entries" / (std::string(kEntry) + ".conf"), entry);
    const ProgramRun once = run_program_on_path({"bootctl", "set-oneshot", std::string(kEntry) + ".conf"}, 60);
    if (!once.ok()) throw std::runtime_error("bootctl set-oneshot failed: " + once.failure());
  }
  ::sync();
  if (!systemd_runs_this_machine()) {
    // The emulated lab's init: nothing to stop, and the file systems that
    // matter (the host's share, /boot) are synced. A reset, as a
    // watchdog's would be; returns only when refused.
    ::reboot(RB_AUTOBOOT);
    throw std::runtime_error(std::string("reboot(2) failed: ") + std::strerror(errno));
  }
  const ProgramRun r = run_program_on_path({"systemctl", "reboot"}, 120);
  if (!r.ok()) throw std::runtime_error("systemctl reboot failed: " + r.failure());
}

void remove_reboot_entry(const BootLoader& b) {
  std::error_code ec;
  if (b.kind == BootLoaderKind::grub) {
    const fs::path custom = on_machine("/boot/grub/custom.cfg");
    if (const auto now = read_kernel_file(custom); now && now->find(kBegin) != std::string::npos)
      write_file_atomic(custom, with_kvmbench_grub_entry(*now, "", "", ""));
  } else if (b.kind == BootLoaderKind::systemd_boot && !b.esp.empty()) {
    fs::remove(b.esp / "loader" / "entries" / (std::string(kEntry) + ".conf"), ec);
    fs::remove_all(b.esp / "kvmbench-ab", ec);
  } else if (b.kind == BootLoaderKind::uefi) {
    delete_efi_entries();
    if (!b.esp.empty()) fs::remove_all(b.esp / "kvmbench-ab", ec);
  }
}

}  // namespace kvmbench::host
