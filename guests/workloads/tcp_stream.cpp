// tcp_stream: netperf TCP_STREAM. Sends --message-size writes for --seconds,
// shuts down the sending side, and waits for the peer's count of received
// bytes; throughput = bytes the peer received / time until its answer.
//
//   kvmbench-tcp_stream [--seconds 1] [--message-size 64K] [--port 5201]
//                       [--accept-timeout 30] [--self-peer]
//                       [--case NAME] [--variant V] [--iteration I]
// Result:
//   throughput  Gbit/s   (1e9 bits)
#include "tcp_workload.h"

using namespace kvmbench::guest;

int main(int argc, char** argv) {
  Options opt("tcp_stream", argc, argv, {"seconds", "message-size", "port", "accept-timeout", "self-peer"});
  const double seconds = opt.real("seconds", 1.0);
  const std::uint64_t msg = opt.size("message-size", 64 << 10);
  if (seconds <= 0) fail("tcp_stream", "--seconds must be positive");
  if (msg < 1 || msg > (16u << 20)) fail("tcp_stream", "--message-size must be 1..16M bytes");

  TcpSession s("tcp_stream", opt);
  s.hello("stream");
  std::vector<char> out(msg, 's');
  std::uint64_t sent = 0;
  const double start = now_s();
  while (now_s() - start < seconds) {
    if (!net::write_full(s.fd(), out.data(), out.size()))
      fail("tcp_stream", "peer closed the connection after " + std::to_string(sent) + " bytes");
    sent += msg;
  }
  shutdown(s.fd(), SHUT_WR);
  unsigned char le[8];
  if (!net::read_full(s.fd(), le, sizeof le)) fail("tcp_stream", "peer did not report its byte count");
  const double elapsed = now_s() - start;
  s.close();
  std::uint64_t received = 0;
  for (int i = 0; i < 8; ++i) received |= static_cast<std::uint64_t>(le[i]) << (8 * i);
  if (received != sent)
    fail("tcp_stream", "peer received " + std::to_string(received) + " of " + std::to_string(sent) + " bytes");
  const std::string case_name = opt.case_name("message_size=" + std::to_string(msg));
  emit({case_name, opt.variant(), "throughput", "Gbit/s", static_cast<double>(received) * 8 / elapsed / 1e9,
        opt.iteration(), {{"bytes", std::to_string(received)}, {"seconds", json_number(elapsed)}}});
  return 0;
}
