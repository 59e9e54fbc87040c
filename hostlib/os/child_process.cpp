#include "hostlib/os/child_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace kvmbench::host {

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::runtime_error("empty argv");
  // Everything the child needs is prepared before fork: after fork in a
  // threaded process only async-signal-safe calls are allowed.
  std::vector<char*> args;
  for (auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);  // the parent died before prctl
    // Default dispositions and an empty mask for QEMU, whatever we had.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    execv(args[0], args.data());
    static const char msg[] = "exec failed\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so the group exists before we ever signal it
  pid_ = pid;
  close(pipefd[1]);
  out_fd_ = pipefd[0];
  fcntl(out_fd_, F_SETFL, fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  if (!reaped_ && pid_ > 0) kill_and_reap(0.5);
  if (out_fd_ >= 0) close(out_fd_);
}

void ChildProcess::drain_output() {
  if (out_fd_ < 0) return;
  char buf[4096];
  for (;;) {
    ssize_t k = read(out_fd_, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) {
        close(out_fd_);
        out_fd_ = -1;
      }
      return;
    }
    if (output_.size() < 65536) output_.append(buf, static_cast<std::size_t>(k));
  }
}

bool ChildProcess::poll_exit() {
  if (reaped_) return true;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) signal_ = WTERMSIG(status);
    drain_output();
  }
  return reaped_;
}

void ChildProcess::kill_and_reap(double grace_s) {
  if (reaped_) return;
  kill(-pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (poll_exit()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) signal_ = WTERMSIG(status);
  drain_output();
}

ProgramRun run_program(const std::vector<std::string>& argv, double timeout_s) {
  ProgramRun r;
  try {
    ChildProcess p(argv);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!p.poll_exit()) {
      if (std::chrono::steady_clock::now() >= deadline) {
        p.kill_and_reap(0.2);
        r.timed_out = true;
        r.output = p.output();
        return r;
      }
      p.drain_output();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    r.exit_code = p.exit_code();
    r.signal = p.signal();
    r.output = p.output();
  } catch (const std::exception& e) {
    r.exit_code = 127;
    r.output = e.what();
  }
  return r;
}

ProgramRun run_program_on_path(const std::vector<std::string>& argv, double timeout_s) {
  std::vector<std::string> sh = {"/bin/sh", "-c", "exec \"$@\"", "sh"};
  sh.insert(sh.end(), argv.begin(), argv.end());
  return run_program(sh, timeout_s);
}

int run_attached(const std::vector<std::string>& argv, double timeout_s, bool* timed_out, double grace_s) {
  if (timed_out) *timed_out = false;
  if (argv.empty()) return 127;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    // The caller may already be gone (killed between fork and here).
    if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent) ::_exit(128 + SIGTERM);
    ::execv(args[0], args.data());
    const char* why = std::strerror(errno);
    (void)!::write(2, "kvmbench: cannot start ", 23);
    (void)!::write(2, args[0], std::strlen(args[0]));
    (void)!::write(2, ": ", 2);
    (void)!::write(2, why, std::strlen(why));
    (void)!::write(2, "\n", 1);
    ::_exit(127);
  }
  int status = 0;
  if (timeout_s > 0) {
    // Polled: the time is the point, and a child that ends is seen within
    // 0.1 s.
    const auto t0 = std::chrono::steady_clock::now();
    const auto waited = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    bool termed = false, killed = false;
    for (;;) {
      const pid_t got = ::waitpid(pid, &status, WNOHANG);
      if (got == pid) break;
      if (got < 0 && errno != EINTR) return 127;
      if (!termed && waited() > timeout_s) {
        termed = true;
        if (timed_out) *timed_out = true;
        ::kill(pid, SIGTERM);
      } else if (termed && !killed && waited() > timeout_s + grace_s) {
        killed = true;
        ::kill(pid, SIGKILL);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  } else {
    while (::waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) return 127;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::string ProgramRun::failure() const {
  if (timed_out) return "did not finish in time";
  std::string out = output;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  const std::string what = signal ? "signal " + std::to_string(signal) : "exit " + std::to_string(exit_code);
  return out.empty() ? what : what + ": " + out;
}

}  // namespace kvmbench::host
