// A static HTTP server for tests (busybox httpd in the foreground, owned by
// the test): the .deb a LAVA device downloads, or the recorded answers of a
// LAVA server's API for `kvmbench fleet`'s tests of bad input.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/support/run_command.h"

namespace kvmbench::test_support {

// A TCP port nobody listens on now (the kernel's pick for port 0).
inline int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = -1;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

inline bool accepts_connections(int port) {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

// busybox httpd serving `root` on 127.0.0.1 (a LAVA device reaches it as
// 10.0.2.2 through QEMU's user-mode network). A directory's index.html
// answers a URL ending in '/', whatever its query.
class HttpServer {
 public:
  explicit HttpServer(const std::filesystem::path& root) {
    port_ = free_port();
    if (port_ <= 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      exec_or_exit(
          {"/bin/busybox", "httpd", "-f", "-p", "127.0.0.1:" + std::to_string(port_), "-h", root.string()});
    }
    for (int i = 0; i < 100 && !accepts_connections(port_); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ~HttpServer() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool up() const { return pid_ > 0 && accepts_connections(port_); }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = -1;
};

}  // namespace kvmbench::test_support
