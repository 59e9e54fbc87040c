// The guest side of tcp_rr and tcp_stream: listen, accept the peer, say
// hello (net_protocol.h). With --self-peer the peer runs in a thread of this
// process over loopback, which gives the native baseline on the host.
#pragma once

#include <atomic>
#include <thread>

#include "guests/protocol/net_protocol.h"
#include "workload_common.h"

namespace kvmbench::guest {

class TcpSession {
 public:
  TcpSession(const char* workload, const Options& opt) : workload_(workload) {
    const auto port = static_cast<std::uint16_t>(opt.size("port", 5201));
    const double accept_timeout = opt.real("accept-timeout", 30);
    int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) fail(workload, std::string("socket: ") + std::strerror(errno));
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(opt.str("self-peer", "0") == "1" ? INADDR_LOOPBACK : INADDR_ANY);
    if (::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) || ::listen(lfd, 4))
      fail(workload, "cannot listen on port " + std::to_string(port) + ": " + std::strerror(errno));
    // Tells the host (which watches the console) that its peer may connect now.
    std::string ready = "KVMBENCH-LISTENING port=" + std::to_string(port) + "\n";
    ssize_t ignored = ::write(1, ready.data(), ready.size());
    (void)ignored;
    if (opt.str("self-peer", "0") == "1")
      peer_ = std::thread([this, port] { net::run_peer(port, stop_); });
    pollfd pfd{lfd, POLLIN, 0};
    int n = ::poll(&pfd, 1, static_cast<int>(accept_timeout * 1000));
    if (n <= 0) {
      stop_ = true;
      if (peer_.joinable()) peer_.join();
      fail(workload, "no peer connected within " + std::to_string(accept_timeout) + " s");
    }
    fd_ = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    ::close(lfd);
    if (fd_ < 0) fail(workload, std::string("accept: ") + std::strerror(errno));
  }

  ~TcpSession() {
    if (fd_ >= 0) ::close(fd_);
    stop_ = true;
    if (peer_.joinable()) peer_.join();
  }

  int fd() const { return fd_; }

  void hello(const std::string& rest) {
    std::string line = std::string(net::kHello) + " " + rest + "\n";
    if (!net::write_full(fd_, line.data(), line.size())) fail(workload_, "peer went away during hello");
  }

  // Closes our side and waits for the self-peer (if any) to finish.
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    stop_ = true;
    if (peer_.joinable()) peer_.join();
  }

 private:
  const char* workload_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread peer_;
};

}  // namespace kvmbench::guest
