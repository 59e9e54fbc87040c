#include "hostlib/lab/lab_boot_disk.h"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/store/run_store.h"
#include "hostlib/os/child_process.h"

namespace fs = std::filesystem;

namespace kvmbench::host {

namespace {

constexpr std::uint32_t kSector = 512;
// The partition starts at 1 MiB, as partitioning tools align it; core.img
// lives in the sectors before it.
constexpr std::uint32_t kFirstLba = 2048;

void put_le32(std::string& s, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

void run_or_throw(const std::vector<std::string>& argv, const std::string& package) {
  const ProgramRun r = run_program_on_path(argv, 120);
  if (r.exit_code == 127)
    throw std::runtime_error(fmt::format("{} is not installed (apt-get install {})", argv.front(), package));
  if (!r.ok()) throw std::runtime_error(fmt::format("{} failed: {}", argv.front(), r.failure()));
}

std::uintmax_t tree_bytes(const fs::path& dir) {
  std::uintmax_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

}  // namespace

std::string lab_grub_cfg(const std::string& release, const std::string& cmdline) {
  // The serial console is the lab's console (ttyS0): GRUB's line naming the
  // entry it boots lands in the console log beside the kernel's.
  return fmt::format(
      "# The emulated lab's boot disk (kvmbench, hostlib/lab/lab_boot_disk.h)\n"
      "serial --unit=0 --speed=115200\n"
      "terminal_input serial\n"
      "terminal_output serial\n"
      "set timeout=0\n"
      "# As Debian's update-grub writes it: grub-reboot's entry once, then the default.\n"
      "if [ -s $prefix/grubenv ]; then\n"
      "  load_env\n"
      "fi\n"
      "if [ \"${{next_entry}}\" ]; then\n"
      "  set default=\"${{next_entry}}\"\n"
      "  set next_entry=\n"
      "  save_env next_entry\n"
      "else\n"
      "  set default=lab\n"
      "fi\n"
      "echo \"{} entry=${{default}}\"\n"
      "menuentry 'kvmbench lab kernel {}' --id lab {{\n"
      "\tlinux /vmlinuz-{} {}\n"
      "\tinitrd /initrd.img-{}\n"
      "}}\n"
      "# As Debian's 41_custom: entries added by hand (or by kvmbench ab).\n"
      "if [ -f $prefix/custom.cfg ]; then\n"
      "  source $prefix/custom.cfg\n"
      "fi\n",
      kLabGrubMarker, release, release, cmdline, release);
}

std::string lab_disk_mbr(std::string_view boot_img, std::uint32_t first_lba, std::uint32_t sectors) {
  if (boot_img.size() < 440) throw std::invalid_argument("GRUB's boot.img is shorter than 440 bytes");
  std::string mbr(kSector, '\0');
  mbr.replace(0, 440, boot_img.substr(0, 440));
  // The partition entry: active, CHS fields "beyond 1024 cylinders" (LBA
  // only), type 0x83 (Linux).
  constexpr std::size_t e = 446;
  mbr[e] = static_cast<char>(0x80);
  mbr[e + 1] = static_cast<char>(0xfe);
  mbr[e + 2] = static_cast<char>(0xff);
  mbr[e + 3] = static_cast<char>(0xff);
  mbr[e + 4] = static_cast<char>(0x83);
  mbr[e + 5] = static_cast<char>(0xfe);
  mbr[e + 6] = static_cast<char>(0xff);
  mbr[e + 7] = static_cast<char>(0xff);
  put_le32(mbr, e + 8, first_lba);
  put_le32(mbr, e + 12, sectors);
  mbr[510] = static_cast<char>(0x55);
  mbr[511] = static_cast<char>(0xaa);
  return mbr;
}

fs::path grub_bios_dir(std::string& why) {
  const fs::path dir = "/usr/lib/grub/i386-pc";
  std::error_code ec;
  if (!fs::exists(dir / "boot.img", ec) || !fs::exists(dir / "kernel.img", ec)) {
    why = fmt::format("GRUB's BIOS files are not in {} (apt-get install grub-pc-bin)", dir.string());
    return {};
  }
  return dir;
}

void build_lab_boot_disk(const fs::path& vmlinuz, const std::string& release, const fs::path& initramfs,
                         const std::string& cmdline, const fs::path& work, const fs::path& image) {
  std::string why;
  const fs::path grub = grub_bios_dir(why);
  if (grub.empty()) throw std::runtime_error(why);
  const fs::path stage = work / "boot";
  fs::remove_all(stage);
  fs::create_directories(stage / "grub");
  fs::copy_file(vmlinuz, stage / ("vmlinuz-" + release));
  fs::copy_file(initramfs, stage / ("initrd.img-" + release));
  // The modules too, as grub-install puts them: grub.cfg's commands load
  // from there.
  fs::copy(grub, stage / "grub" / "i386-pc", fs::copy_options::recursive);
  write_file_atomic(stage / "grub" / "grub.cfg", lab_grub_cfg(release, cmdline), false);
  run_or_throw({"grub-editenv", (stage / "grub" / "grubenv").string(), "create"}, "grub-common");

  // The file system at 1 MiB into the image (mke2fs writes it there and
  // copies the tree in: no loop device, no mount). ext2: GRUB's save_env
  // rewrites grubenv's blocks in place, which ext4's inline data or
  // extents-only features would not all allow.
  const std::uintmax_t kib = tree_bytes(stage) / 1024 + 32 * 1024;
  fs::remove(image);
  run_or_throw({"mke2fs", "-q", "-F", "-t", "ext2", "-L", "kvmbench-boot", "-E",
                fmt::format("offset={}", std::uint64_t{kFirstLba} * kSector), "-d", stage.string(), image.string(),
                fmt::format("{}k", kib)},
               "e2fsprogs");
  const fs::path core = work / "core.img";
  run_or_throw({"grub-mkimage", "-O", "i386-pc", "-d", grub.string(), "-o", core.string(), "-p", "(hd0,msdos1)/grub",
                "biosdisk", "part_msdos", "ext2"},
               "grub-common");
  const std::string core_img = read_file(core);
  if (core_img.size() > (kFirstLba - 1) * kSector)
    throw std::runtime_error(fmt::format("GRUB's core.img ({} bytes) does not fit before the partition",
                                         core_img.size()));
  // boot.img reads core.img from sector 1 (its kernel_sector as shipped),
  // and core.img's first sector the rest from sector 2 (its blocklist as
  // grub-mkimage writes it): both in place without grub-bios-setup.
  const std::string mbr = lab_disk_mbr(read_file(grub / "boot.img"), kFirstLba,
                                       static_cast<std::uint32_t>(kib * 1024 / kSector));
  std::fstream out(image, std::ios::binary | std::ios::in | std::ios::out);
  out.write(mbr.data(), static_cast<std::streamsize>(mbr.size()));
  out.write(core_img.data(), static_cast<std::streamsize>(core_img.size()));
  out.flush();
  if (!out) throw std::runtime_error("cannot write the boot sectors of " + image.string());
}

}  // namespace kvmbench::host
