#include "hostlib/qemu/qemu_net_peer.h"

#include <stdexcept>

#include "guests/protocol/net_protocol.h"

namespace kvmbench::host {

std::uint16_t pick_free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error(std::string("cannot find a free loopback port: ") + std::strerror(errno));
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

GuestNetPeer::GuestNetPeer(std::uint16_t host_port) {
  thread_ = std::thread([this, host_port] {
    guest::net::PeerStats st = guest::net::run_peer(host_port, stop_, &go_);
    stats_ = {{"connected", st.connected},         {"mode", st.mode},
              {"transactions", st.transactions},   {"bytes_received", st.bytes_received},
              {"error", st.error}};
  });
}

GuestNetPeer::~GuestNetPeer() { stop_and_join(); }

nlohmann::json GuestNetPeer::stop_and_join() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  return stats_;
}

}  // namespace kvmbench::host
