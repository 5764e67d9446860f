#include "core/run/interrupt.hpp"

#include <csignal>

namespace poreflow {

namespace {

volatile std::sig_atomic_t g_signal = 0;
struct sigaction g_old_int, g_old_term;

extern "C" void on_signal(int sig) { g_signal = sig; }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;  // the next one takes the default action; no EINTR in writes
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

int interrupt_signal() { return g_signal; }
void request_interrupt(int sig) { g_signal = sig; }

}  // namespace poreflow
