// Runs a program with an argument vector (no shell), captures stdout and
// stderr, and kills it after a timeout. Used by the integration tests to run
// the real build/kvmbench binary. Also the small file helpers tests share.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvmbench::test_support {

// In a forked child: execv(argv) or _exit(127).
[[noreturn]] inline void exec_or_exit(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

struct CommandResult {
  int exit_code = -1;     // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  std::string out, err;
};

inline CommandResult run_command(const std::vector<std::string>& argv, double timeout_s = 60,
                                 const std::string& stdin_text = "",
                                 const std::vector<std::string>& extra_env = {},
                                 int send_signal = 0, double signal_after_s = 0) {
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(in_pipe, O_CLOEXEC))
    throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (auto& e : extra_env) putenv(const_cast<char*>(e.c_str()));
    exec_or_exit(argv);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  if (!stdin_text.empty()) {
    ssize_t ignored = write(in_pipe[1], stdin_text.data(), stdin_text.size());
    (void)ignored;
  }
  close(in_pipe[1]);
  CommandResult r;
  const auto started = std::chrono::steady_clock::now();
  bool signalled = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (send_signal && !signalled) {
      double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (since >= signal_after_s) {
        kill(pid, send_signal);
        signalled = true;
      } else {
        left = std::min(left, std::chrono::milliseconds(static_cast<long>((signal_after_s - since) * 1000) + 1));
      }
    }
    int n = poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t k = read(fds[i].fd, buf, sizeof buf);
      if (k <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(k));
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

// Starts a program in its own process group (extra_env added) and waits up
// to `timeout_s` until its stdout says `ready`. Its pid, or -1 (it is
// killed) when it never does. For commands that hold something until they
// are signalled (`kvmbench test-hold-knob`). `seen`, where given, gets what
// its stdout said meanwhile (for the failure's message).
inline pid_t start_until_ready(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                               const std::string& ready, double timeout_s = 30, std::string* seen = nullptr) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return -1;
  std::vector<std::string> env = extra_env;  // putenv keeps the pointers
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out[1], 1);
    for (auto& e : env) putenv(e.data());
    exec_or_exit(argv);
  }
  close(out[1]);
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (got.find(ready) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{out[0], POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[256];
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  close(out[0]);
  if (seen) *seen = got;
  if (got.find(ready) == std::string::npos) {
    kill(-pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return -1;
  }
  return pid;
}

// The whole text of a file ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `text` to `p`, creating its parent directories.
inline void write_text(const std::filesystem::path& p, const std::string& text) {
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// `text` with its line breaks and runs of spaces folded into single spaces,
// so that a phrase is found wherever an 80-column wrap fell.
inline std::string unwrapped(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The lines of a command's output, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The names listed under "Subcommands:" in a help text ("  run    Run ...").
inline std::vector<std::string> subcommands_in(const std::string& help) {
  std::vector<std::string> names;
  bool in_list = false;
  for (const std::string& line : lines_of(help)) {
    if (line == "Subcommands:") {
      in_list = true;
    } else if (in_list && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (in_list && !line.empty() && line[0] != ' ') {
      in_list = false;
    }
  }
  return names;
}

// How many times `what` occurs in `text`, without overlaps.
inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

// An environment entry giving a test process its own kvmbench state
// directory (run lock, knob journal), so that tests running at once do not
// take each other's run lock.
inline std::string private_state_dir_env() {
  return "KVMBENCH_STATE_DIR=/tmp/kvmbench-test-state-" + std::to_string(::getpid());
}

#ifdef KVMBENCH_BINARY
// Runs build/kvmbench with the given arguments.
inline CommandResult run_kvmbench(std::vector<std::string> args, double timeout_s = 60,
                                  const std::string& stdin_text = "",
                                  const std::vector<std::string>& extra_env = {},
                                  int send_signal = 0, double signal_after_s = 0) {
  args.insert(args.begin(), KVMBENCH_BINARY);
  return run_command(args, timeout_s, stdin_text, extra_env, send_signal, signal_after_s);
}
#endif

// `run ...` of a short live run that any host can do (no guest, no hardware
// feature: rmpopt's host preset over 1 GiB, one layout, one strategy, one
// repetition), its runs under `out`; `wait_lock` ("" none) goes before the
// suite, where a bare flag takes no value.
inline std::vector<std::string> short_live_run(const std::filesystem::path& out, const std::string& wait_lock = "") {
  std::vector<std::string> args = {"run"};
  if (!wait_lock.empty()) args.push_back(wait_lock);
  args.insert(args.end(), {"rmpopt", "--preset", "host", "-r", "1", "--set", "ram=1G", "--set", "layouts=none",
                           "--set", "strategies=one-cpu", "--out", out.string()});
  return args;
}

// A fresh empty temporary directory, removed by the destructor.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kvmbench-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace kvmbench::test_support
