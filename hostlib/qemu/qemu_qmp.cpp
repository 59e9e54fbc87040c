#include "hostlib/qemu/qemu_qmp.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "analysis/model/json_input.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/os/cpu_list.h"

namespace kvmbench::host {

using Clock = std::chrono::steady_clock;

QmpClient::QmpClient(const std::filesystem::path& socket, double timeout_s) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = socket.string();
  if (path.size() >= sizeof addr.sun_path) throw std::runtime_error("QMP socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) break;
    ::close(fd_);
    fd_ = -1;
    if (Clock::now() > deadline) throw std::runtime_error("QMP socket " + path + " did not come up");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  nlohmann::json greeting = read_message(timeout_s);
  if (!greeting.contains("QMP")) throw std::runtime_error("no QMP greeting");
  execute("qmp_capabilities", timeout_s);
}

QmpClient::~QmpClient() {
  if (fd_ >= 0) ::close(fd_);
}

nlohmann::json QmpClient::read_message(double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (auto nl = buf_.find('\n'); nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
      try {
        return parse_json_input(line);
      } catch (const std::exception&) {
        throw std::runtime_error("QMP sent invalid JSON: " + line.substr(0, 200));
      }
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) throw std::runtime_error("QMP timed out");
    pollfd pfd{fd_, POLLIN, 0};
    int n = ::poll(&pfd, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    char tmp[4096];
    ssize_t k = ::read(fd_, tmp, sizeof tmp);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw std::runtime_error("QMP connection closed");
    buf_.append(tmp, static_cast<std::size_t>(k));
  }
}

nlohmann::json QmpClient::execute(const std::string& cmd, double timeout_s) {
  return execute(cmd, nullptr, timeout_s);
}

nlohmann::json QmpClient::execute(const std::string& cmd, const nlohmann::json& arguments, double timeout_s) {
  nlohmann::json request = {{"execute", cmd}};
  if (!arguments.is_null()) request["arguments"] = arguments;
  std::string msg = request.dump() + "\n";
  if (::send(fd_, msg.data(), msg.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(msg.size()))
    throw std::runtime_error("QMP send failed");
  for (;;) {
    nlohmann::json j = read_message(timeout_s);
    if (j.contains("return")) return j["return"];
    if (j.contains("error"))
      throw std::runtime_error("QMP " + cmd + ": " + j["error"].value("desc", j["error"].dump()));
    // An asynchronous event: skip it.
  }
}

std::vector<pid_t> QmpClient::vcpu_threads() {
  nlohmann::json cpus = execute("query-cpus-fast");
  std::vector<std::pair<int, pid_t>> byindex;
  for (const auto& c : cpus) byindex.emplace_back(c.value("cpu-index", 0), c.value("thread-id", 0));
  std::sort(byindex.begin(), byindex.end());
  std::vector<pid_t> out;
  for (auto& [i, tid] : byindex) out.push_back(tid);
  return out;
}

std::string pin_thread(pid_t tid, const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c < 0 || c >= CPU_SETSIZE) return "CPU " + std::to_string(c) + " out of range";
    CPU_SET(c, &set);
  }
  if (sched_setaffinity(tid, sizeof set, &set) != 0)
    return "sched_setaffinity(" + std::to_string(tid) + "): " + std::strerror(errno);
  return "";
}

std::vector<int> numa_node_cpus(int node) {
  const auto list = read_kernel_value("/sys/devices/system/node/node" + std::to_string(node) + "/cpulist");
  if (!list) return {};
  try {
    return parse_cpu_list(*list);
  } catch (const std::invalid_argument&) {
    return {};
  }
}

}  // namespace kvmbench::host
