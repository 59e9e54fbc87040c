// A QEMU child process that cannot outlive us: it runs in its own process
// group (so Ctrl-C in the terminal reaches only kvmbench, which then decides),
// it gets SIGKILL when the thread that spawned it dies (PR_SET_PDEATHSIG; so
// even a second Ctrl-C, which exits at once, takes QEMU along), and the
// destructor kills the whole group and reaps it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace kvmbench::host {

class ChildProcess {
 public:
  // Starts argv[0] (a path, no PATH search) with argv; stdin is /dev/null,
  // stdout and stderr go to a pipe read by drain_output(). Throws
  // std::runtime_error when it cannot start (exec failure shows as exit 127
  // and a message in output()).
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Non-blocking: true once the child has exited and been reaped.
  bool poll_exit();
  bool exited() const { return reaped_; }
  int exit_code() const { return exit_code_; }  // -1 when killed by a signal
  int signal() const { return signal_; }
  // Reads whatever the child wrote so far (keeps the first 64 KiB).
  void drain_output();
  const std::string& output() const { return output_; }
  // SIGTERM to the group, up to grace_s to exit, then SIGKILL; always reaps.
  void kill_and_reap(double grace_s = 1.0);

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  int exit_code_ = -1;
  int signal_ = 0;
  std::string output_;
};

// A program run to its end under a time limit (no PATH search: argv[0] is a
// path). Never throws: a program that cannot start reads as exit 127 with
// the reason in `output`.
struct ProgramRun {
  int exit_code = -1;   // -1 when killed by a signal or timed out
  int signal = 0;
  bool timed_out = false;
  std::string output;   // stdout and stderr, the first 64 KiB
  bool ok() const { return exit_code == 0; }
  // "exit 2: <last lines of output>", "signal 9", "timed out after 10 s".
  std::string failure() const;
};
ProgramRun run_program(const std::vector<std::string>& argv, double timeout_s);
// The same with argv[0] looked up on PATH, as the shell finds it (exit 127
// when it is not there).
ProgramRun run_program_on_path(const std::vector<std::string>& argv, double timeout_s);

// A program run to its end with this process's stdin, stdout and stderr
// (what it prints is the user's to see), in this process group, so that a
// Ctrl-C reaches it. Its exit code, 128 + N for signal N, 127 when it cannot
// start (the reason on stderr). It is sent SIGTERM when this process dies
// (PR_SET_PDEATHSIG): a killed caller leaves no orphan at work behind a
// lock it no longer holds.
// `timeout_s` > 0: a program still running after that long is sent
// SIGTERM (a kvmbench run ends its run as interrupted and puts its knobs
// back), and SIGKILL `grace_s` later; `*timed_out` says so.
int run_attached(const std::vector<std::string>& argv, double timeout_s = 0, bool* timed_out = nullptr,
                 double grace_s = 60);

}  // namespace kvmbench::host
