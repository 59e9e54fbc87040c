#include "hostlib/os/tarball.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvmbench {

namespace fs = std::filesystem;

void extract_tarball(const fs::path& tarball, const fs::path& into) {
  const fs::path log = into / ".tar-errors";
  // --no-same-owner: an archive made by another user's uid unpacks as ours;
  // nothing in it may land outside `into` (GNU tar drops leading '/' and
  // refuses '..' members by default).
  const std::vector<std::string> argv = {"tar", "-x", "--no-same-owner", "-f", tarball.string(), "-C", into.string()};
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start tar: fork failed");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) ::dup2(fd, 2);
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) ::dup2(null, 0), ::dup2(null, 1);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp("tar", args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(log);
  std::stringstream err;
  err << in.rdbuf();
  std::error_code ec;
  fs::remove(log, ec);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string why = err.str();
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) why = "tar is not installed";
  throw std::runtime_error(fmt::format("{}: cannot unpack: {}", tarball.string(), why.empty() ? "tar failed" : why));
}

std::vector<fs::path> find_run_directories(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::is_regular_file(root / "meta.json", ec)) return {root};
  for (fs::recursive_directory_iterator it(root, ec), end; it != end; it.increment(ec)) {
    if (ec) break;
    if (it->is_directory(ec) && fs::is_regular_file(it->path() / "meta.json", ec)) {
      out.push_back(it->path());
      it.disable_recursion_pending();  // raw/ of a run holds no runs
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kvmbench
