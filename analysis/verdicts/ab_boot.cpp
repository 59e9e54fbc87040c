#include "analysis/verdicts/ab_boot.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include <fmt/format.h>

#include "analysis/model/text_lines.h"

namespace kvmbench::ab {

namespace {

// The way out of every refusal that is kexec's: the boot loader boots what
// kexec cannot.
constexpr const char* kOtherWay =
    "or let the boot loader boot each kernel (`--boot-via reboot`: GRUB, systemd-boot or the firmware's BootNext "
    "chooses the step's kernel once, the default entry stays)";

bool needs_file_load(const KexecHost& h, const KexecKernel& k) { return use_kexec_file_load(h.lockdown, k.image_signed); }

}  // namespace

std::string root_device(std::string_view cmdline) {
  std::string root;
  bool init_words = false;
  for_each_word(cmdline, [&](std::string_view w) {
    if (w == "--") init_words = true;
    if (!init_words && w.starts_with("root=")) root = w.substr(5);
  });
  return root;
}

bool root_needs_initrd(std::string_view cmdline) {
  const std::string root = root_device(cmdline);
  for (std::string_view p : {"UUID=", "LABEL=", "/dev/disk/", "/dev/mapper/", "ZFS="})
    if (root.starts_with(p)) return true;
  return false;
}

std::optional<std::string> preflight_refusal(const KexecHost& h, const std::vector<KexecKernel>& kernels) {
  if (!h.kexec_tool) return fmt::format("kexec is not installed (Debian: kexec-tools): install it, {}", kOtherWay);
  if (!h.root) return std::string("kexec needs root: run `kvmbench ab` as root");
  if (!h.kexec_core)
    return fmt::format("this kernel cannot kexec (no /sys/kernel/kexec_loaded: built without CONFIG_KEXEC_CORE): "
                       "boot one that can, {}",
                       kOtherWay);
  if (h.load_disabled)
    return fmt::format("kernel.kexec_load_disabled is 1 on this boot (it cannot be set back before a reboot): boot "
                       "with it 0, {}",
                       kOtherWay);
  if (h.tdx_pw_mce)
    return fmt::format("this CPU has the TDX partial-write erratum (tdx_pw_mce in /proc/cpuinfo's bugs), for which "
                       "the kernel refuses kexec: {}",
                       std::string(kOtherWay).substr(3));
  if (h.tdx_initialised)
    return fmt::format("TDX is initialised on this boot (kvm_intel.tdx=Y): a kexec'd kernel cannot use TDX without "
                       "the TDX kexec series and a TDX module with TDH.SYS.DISABLE, so every TDX measurement would be "
                       "skipped: boot with kvm_intel.tdx=0 where the command needs no TDX, {}",
                       kOtherWay);
  for (const KexecKernel& k : kernels) {
    if (!h.lockdown.empty() && h.lockdown != "none" && !k.image_signed)
      return fmt::format("the kernel is locked down ([{}] in /sys/kernel/security/lockdown, Secure Boot), so kexec "
                         "loads signed images only, and the {} kernel {} ({}) is not signed: sign it for the "
                         "machine's keys (sbsign), {}",
                         h.lockdown, k.side, k.spec, k.image, kOtherWay);
    if (k.initrd.empty() && root_needs_initrd(k.cmdline))
      return fmt::format("the {} kernel {} has no initrd ({}) and its command line's root={} needs one to be found "
                         "(\"VFS: Unable to mount root fs\"): install its initramfs, or give a root the kernel finds "
                         "itself (--{}-append root=PARTUUID=... or root=/dev/...)",
                         k.side, k.spec,
                         k.release.empty() ? std::string("a bzImage gets none")
                                           : fmt::format("neither /boot/initrd.img-{0} nor /boot/initramfs-{0}.img",
                                                         k.release),
                         root_device(k.cmdline), k.side);
  }
  for (const KexecKernel& k : kernels)
    if (k.trial_load && !k.trial_load->empty())
      return fmt::format("kexec refuses to load the {} kernel {} (a trial `kexec {}-l {}`, unloaded again): {}: "
                         "{}",
                         k.side, k.spec, needs_file_load(h, k) ? "-s " : "", k.image, *k.trial_load,
                         std::string(kOtherWay).substr(3));
  return std::nullopt;
}

std::string hang_words(int panic_s) {
  return fmt::format("panic={} softlockup_panic=1 hung_task_panic=1", panic_s);
}

std::optional<double> seconds_between(std::string_view from_iso, std::string_view to_iso) {
  auto parse = [](std::string_view s) -> std::optional<long long> {
    if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z')
      return std::nullopt;
    std::tm tm{};
    const std::string t(s);
    int used = 0;
    if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                    &tm.tm_min, &tm.tm_sec, &used) != 6 ||
        used != 20)
      return std::nullopt;
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
        tm.tm_sec > 60)
      return std::nullopt;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return static_cast<long long>(::timegm(&tm));
  };
  const auto a = parse(from_iso), b = parse(to_iso);
  if (!a || !b) return std::nullopt;
  return static_cast<double>(*b - *a);
}

std::optional<std::string> boot_problem(bool marked_as_asked, std::optional<double> elapsed_s, double timeout_s,
                                        std::string_view this_release) {
  if (!marked_as_asked)
    return fmt::format("its kernel did not come back: this boot is {} without the step's marker (a hang or panic "
                       "ended by a reset, a crash or a power loss){}",
                       this_release,
                       elapsed_s ? fmt::format(", {:.0f} s after the jump", *elapsed_s) : std::string());
  if (elapsed_s && *elapsed_s > timeout_s)
    return fmt::format("its kernel came back after {:.0f} s, beyond --boot-timeout {:g} s", *elapsed_s, timeout_s);
  return std::nullopt;
}

std::optional<std::string> candidate_never_came_back(const Experiment& e) {
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < e.steps.size(); ++i) {
    const Step& s = e.steps[i];
    if (s.side != Side::cand) continue;
    if (s.status == StepStatus::done || s.status == StepStatus::failed || s.status == StepStatus::running) return std::nullopt;
    if (s.status == StepStatus::no_boot && !first) first = i;
  }
  if (!first) return std::nullopt;
  return fmt::format("the candidate kernel did not come back (step {}: {})", *first + 1, e.steps[*first].note);
}

MergedAppend merge_boot_words(const std::vector<SuiteBootWord>& needs, const std::string& user_append,
                              const std::string& option) {
  std::vector<std::string> user;
  for (std::size_t at = 0; at < user_append.size();) {
    const std::size_t from = user_append.find_first_not_of(" \t", at);
    if (from == std::string::npos) break;
    const std::size_t to = std::min(user_append.find_first_of(" \t", from), user_append.size());
    user.push_back(user_append.substr(from, to - from));
    at = to;
  }
  MergedAppend m;
  std::vector<std::string> added;
  for (const auto& need : needs) {
    if (std::find(user.begin(), user.end(), need.word) != user.end() ||
        std::find(added.begin(), added.end(), need.word) != added.end())
      continue;
    const std::size_t eq = need.word.find('=');
    const std::string key = need.word.substr(0, eq);
    // A module parameter holds one value; clearcpuid= and the like add up.
    if (eq != std::string::npos && key.find('.') != std::string::npos)
      for (const auto& w : user)
        if (w.starts_with(key + "=") && m.conflict.empty())
          m.conflict = fmt::format("{} {} contradicts what {} needs on every boot ({}: {})", option, w, need.who,
                                   need.word, need.why);
    added.push_back(need.word);
    m.append += (m.append.empty() ? "" : " ") + need.word;
  }
  if (!user_append.empty()) m.append += (m.append.empty() ? "" : " ") + user_append;
  return m;
}

}  // namespace kvmbench::ab
