// The host side of tcp_rr / tcp_stream: a thread that connects to the
// guest's forwarded port on 127.0.0.1 and echoes (rr) or sinks (stream) what
// the guest workload sends (protocol: guests/protocol/net_protocol.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

// A loopback TCP port that was free a moment ago (bind to port 0, read it
// back, close). Throws std::runtime_error.
std::uint16_t pick_free_loopback_port();

class GuestNetPeer {
 public:
  explicit GuestNetPeer(std::uint16_t host_port);
  ~GuestNetPeer();  // stops and joins
  GuestNetPeer(const GuestNetPeer&) = delete;
  GuestNetPeer& operator=(const GuestNetPeer&) = delete;

  // Stops retrying (a session in progress ends when the guest closes or
  // QEMU dies), joins, and returns what happened as JSON:
  // {connected, mode, transactions, bytes_received, error}.
  nlohmann::json stop_and_join();

  // Lets the peer start connecting (the guest printed KVMBENCH-LISTENING).
  void go() { go_ = true; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> go_{false};
  nlohmann::json stats_;
  std::thread thread_;
};

}  // namespace kvmbench::host
