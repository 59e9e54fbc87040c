// A minimal QMP (QEMU Machine Protocol) client over a unix socket: enough
// to pin vCPU threads (query-cpus-fast gives each vCPU's host thread id) and
// to resume a guest started with -S. Every wait is bounded.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

class QmpClient {
 public:
  // Connects (retrying until the socket appears, at most timeout_s),
  // reads the greeting and negotiates capabilities. Throws std::runtime_error.
  QmpClient(const std::filesystem::path& socket, double timeout_s);
  ~QmpClient();
  QmpClient(const QmpClient&) = delete;
  QmpClient& operator=(const QmpClient&) = delete;

  // Sends {"execute": cmd} and returns its "return" value; events in
  // between are skipped. Throws std::runtime_error on "error" or timeout.
  nlohmann::json execute(const std::string& cmd, double timeout_s = 5);
  // The same with "arguments".
  nlohmann::json execute(const std::string& cmd, const nlohmann::json& arguments, double timeout_s = 5);

  // Host thread ids of the vCPUs, in vCPU index order.
  std::vector<pid_t> vcpu_threads();

 private:
  nlohmann::json read_message(double timeout_s);
  int fd_ = -1;
  std::string buf_;
};

// Pins host thread `tid` to `cpus`; "" on success, else the reason.
std::string pin_thread(pid_t tid, const std::vector<int>& cpus);

// The CPUs of host NUMA node `node` (from /sys/devices/system/node); empty
// when the node does not exist.
std::vector<int> numa_node_cpus(int node);

}  // namespace kvmbench::host
