// tcp_rr: netperf TCP_RR. One connection, a request of --request bytes and a
// response of --response bytes, back to back for --seconds; transactions per
// second. Listens on --port for the peer (see net_protocol.h).
//
//   kvmbench-tcp_rr [--seconds 1] [--request 1] [--response 1] [--port 5201]
//                   [--accept-timeout 30] [--self-peer]
//                   [--case NAME] [--variant V] [--iteration I]
// Results:
//   transaction_rate  transactions/s
//   latency           us   mean round trip (1 / rate)
#include <netinet/tcp.h>

#include "tcp_workload.h"

using namespace kvmbench::guest;

int main(int argc, char** argv) {
  Options opt("tcp_rr", argc, argv, {"seconds", "request", "response", "port", "accept-timeout", "self-peer"});
  const double seconds = opt.real("seconds", 1.0);
  const std::uint64_t req = opt.size("request", 1), resp = opt.size("response", 1);
  if (seconds <= 0) fail("tcp_rr", "--seconds must be positive");
  if (req < 1 || resp < 1 || req > (1u << 20) || resp > (1u << 20))
    fail("tcp_rr", "--request and --response must be 1..1M bytes");

  TcpSession s("tcp_rr", opt);
  int one = 1;
  setsockopt(s.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  s.hello("rr " + std::to_string(req) + " " + std::to_string(resp));
  std::vector<char> out(req, 'q'), in(resp);
  std::uint64_t count = 0;
  const double start = now_s();
  double now = start;
  while (now - start < seconds) {
    if (!net::write_full(s.fd(), out.data(), out.size()) || !net::read_full(s.fd(), in.data(), in.size()))
      fail("tcp_rr", "peer closed the connection after " + std::to_string(count) + " transactions");
    ++count;
    now = now_s();
  }
  s.close();
  const double elapsed = now - start;
  const std::string case_name = opt.case_name("request=" + std::to_string(req) + ",response=" + std::to_string(resp));
  const double rate = static_cast<double>(count) / elapsed;
  emit({case_name, opt.variant(), "transaction_rate", "transactions/s", rate, opt.iteration(),
        {{"transactions", std::to_string(count)}, {"seconds", json_number(elapsed)}}});
  emit({case_name, opt.variant(), "latency", "us", 1e6 / rate, opt.iteration(), {}});
  return 0;
}
