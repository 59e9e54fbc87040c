// A kernel that `kvmbench ab` boots: as the user named it and as it
// resolved on the machine. Plain data, kept in the experiment's record
// (analysis/verdicts/ab_experiment.h) and handed to hostlib/state/kexec.h,
// which resolves and boots it.
#pragma once

#include <string>

namespace kvmbench::ab {

struct KernelChoice {
  std::string spec;     // "running", a release, a .deb, a bzImage
  std::string append;   // words added to its command line
  std::string image;    // the kernel image kexec loads ("" for the running kernel left as it is)
  std::string initrd;   // "" for none
  std::string release;  // uname -r it will report ("" where not known before it boots)
  std::string cmdline;  // the command line it boots with, without kvmbench's marker
};

}  // namespace kvmbench::ab
