#include "hostlib/os/host_name.h"

#include <unistd.h>

namespace kvmbench::host {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || !*buf || std::string(buf) == "(none)") return "localhost";
  return buf;
}

}  // namespace kvmbench::host
