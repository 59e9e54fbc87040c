#include "hostlib/os/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace kvmbench::host {

static std::atomic<int> g_signal{0};
static std::atomic<void (*)() noexcept> g_second_hook{nullptr};

static void on_signal(int sig) {
  if (g_signal.exchange(sig) != 0) {
    static const char msg[] = "kvmbench: second interrupt, exiting now\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    if (auto hook = g_second_hook.load()) hook();
    _exit(128 + sig);
  }
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR so loops notice
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() { return g_signal.load() != 0; }

void set_second_interrupt_hook(void (*hook)() noexcept) { g_second_hook.store(hook); }

}  // namespace kvmbench::host
