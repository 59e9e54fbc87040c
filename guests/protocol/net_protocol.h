// The tiny protocol between the network workloads (tcp_rr, tcp_stream) and
// their peer, netperf-style. Header-only and libc-only, because both sides
// use it: the workload in the guest, and the peer that kvmbench runs on the
// host (hostlib/qemu/qemu_net_peer.h) or that the workload starts in a thread for
// a native baseline (--self-peer).
//
// Direction: the guest LISTENS and the peer CONNECTS. With QEMU user
// networking in restrict=on mode and hostfwd=tcp:127.0.0.1:HOSTPORT-:PORT,
// the only path into or out of the guest is that one forwarded loopback port.
// slirp accepts the host's connection before the guest listens and then
// drops it; the peer therefore retries until it reads the hello line.
// The workload prints "KVMBENCH-LISTENING port=N" on its console once it
// listens; the host starts its peer on that line (`go`), because a connection
// made earlier waits for slirp's retransmitted SYN (seconds of backoff).
//
// After accept the workload (the measuring side) sends one hello line:
//   "KVMB-NET1 rr <request bytes> <response bytes>\n"
//     then request/response pairs until the workload closes;
//   "KVMB-NET1 stream\n"
//     then bulk data until the workload shuts down its sending side; the
//     peer answers with the number of bytes it received (8 bytes, little
//     endian) and closes.
#pragma once

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace kvmbench::guest::net {

inline constexpr const char* kHello = "KVMB-NET1";

// Reads exactly n bytes; false on EOF or error.
inline bool read_full(int fd, void* buf, std::size_t n) {
  auto* p = static_cast<char*>(buf);
  while (n) {
    ssize_t k = ::read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

inline bool write_full(int fd, const void* buf, std::size_t n) {
  auto* p = static_cast<const char*>(buf);
  while (n) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

// Reads a line up to '\n' (byte by byte: the hello is short and must not
// swallow the data after it). Waits at most timeout_ms for each byte.
inline bool read_line(int fd, std::string& line, int timeout_ms) {
  line.clear();
  while (line.size() < 256) {
    pollfd pfd{fd, POLLIN, 0};
    int n = ::poll(&pfd, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    char c;
    ssize_t k = ::read(fd, &c, 1);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    if (c == '\n') return true;
    line += c;
  }
  return false;
}

struct PeerStats {
  bool connected = false;       // a workload said hello
  std::string mode;             // "rr" or "stream"
  std::uint64_t transactions = 0;
  std::uint64_t bytes_received = 0;
  std::string error;            // empty when the exchange ended normally
};

// Serves one workload session on an already connected socket whose hello
// has been read. Returns when the workload closes.
inline void serve_session(int fd, const std::string& hello, PeerStats& st) {
  char mode[16] = {0};
  unsigned long req = 0, resp = 0;
  int n = std::sscanf(hello.c_str(), "KVMB-NET1 %15s %lu %lu", mode, &req, &resp);
  st.mode = mode;
  if (n >= 3 && st.mode == "rr" && req > 0 && resp > 0 && req <= (1u << 20) && resp <= (1u << 20)) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::vector<char> in(req), out(resp, 'r');
    while (read_full(fd, in.data(), in.size())) {
      if (!write_full(fd, out.data(), out.size())) break;
      ++st.transactions;
    }
  } else if (n >= 1 && st.mode == "stream") {
    std::vector<char> buf(1 << 16);
    for (;;) {
      ssize_t k = ::read(fd, buf.data(), buf.size());
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break;
      st.bytes_received += static_cast<std::uint64_t>(k);
    }
    unsigned char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(st.bytes_received >> (8 * i));
    if (!write_full(fd, le, sizeof le)) st.error = "could not send the byte count back";
  } else {
    st.error = "bad hello '" + hello + "'";
  }
}

// The peer: connects to 127.0.0.1:port until a workload says hello (or
// `stop` is set), serves that one session, and returns. Every wait is
// bounded, so setting `stop` ends it within about 100 ms before a session
// starts (5 s while a connection waits for its hello); during a session the workload's close ends it.
inline PeerStats run_peer(std::uint16_t port, const std::atomic<bool>& stop,
                          const std::atomic<bool>* go = nullptr) {
  PeerStats st;
  // Wait for the word that the workload listens: connecting earlier gets a
  // slirp connection whose SYN into the guest is retransmitted with backoff.
  while (go && !go->load() && !stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  while (!stop.load()) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      st.error = std::string("socket: ") + std::strerror(errno);
      return st;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string hello;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        read_line(fd, hello, 5000)) {
      if (hello.rfind(kHello, 0) == 0) {
        st.connected = true;
        serve_session(fd, hello, st);
        ::close(fd);
        return st;
      }
    }
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  st.error = "stopped before a workload connected";
  return st;
}

}  // namespace kvmbench::guest::net
