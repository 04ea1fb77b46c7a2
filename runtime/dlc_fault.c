/* dlc_fault.c - per-thread fault guards: SIGSEGV/SIGBUS/SIGFPE/SIGILL in a model's code -> status. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* siginfo_t, sigsetjmp; set before any system header */
#endif
#include "dlc_fault.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

static const int dlc_fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define DLC_NUM_FAULT_SIGNALS (sizeof(dlc_fault_signals) / sizeof(dlc_fault_signals[0]))

static struct sigaction dlc_previous[DLC_NUM_FAULT_SIGNALS];
static pthread_mutex_t dlc_install_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local dlc_fault_guard_t *dlc_tls_guard;

static int dlc_fault_index(int signo) {
  for (size_t i = 0; i < DLC_NUM_FAULT_SIGNALS; ++i)
    if (dlc_fault_signals[i] == signo)
      return (int)i;
  return -1;
}

/* Restores the default action of `signo` (async-signal-safe). */
static void dlc_fault_default(int signo) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(signo, &dfl, NULL);
}

/* Outside a guard: what would have happened without dlc (the previous handler, or the
 * default action: returning re-executes the faulting instruction, which then ends the
 * process; a signal sent with kill/raise is re-raised). */
static void dlc_fault_chain(int signo, siginfo_t *info, void *context) {
  int i = dlc_fault_index(signo);
  const struct sigaction *prev = i >= 0 ? &dlc_previous[i] : NULL;
  if (prev && (prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction) {
    prev->sa_sigaction(signo, info, context);
    return;
  }
  if (prev && !(prev->sa_flags & SA_SIGINFO) && prev->sa_handler != SIG_DFL &&
      prev->sa_handler != SIG_IGN) {
    prev->sa_handler(signo);
    return;
  }
  dlc_fault_default(signo);
  if (!info || info->si_code <= 0) /* sent, not raised by an instruction */
    raise(signo);
}

static void dlc_fault_handler(int signo, siginfo_t *info, void *context) {
  dlc_fault_guard_t *guard = dlc_tls_guard;
  if (!guard) {
    dlc_fault_chain(signo, info, context);
    return;
  }
  dlc_tls_guard = guard->outer;
  guard->signo = signo;
  guard->addr = info ? info->si_addr : NULL;
  siglongjmp(guard->env, 1); /* SA_NODEFER: the signal is not left blocked */
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DLC_FAULT_UNDER_TSAN 1
#endif
#endif

void dlc_fault_install(void) {
#ifdef DLC_FAULT_UNDER_TSAN
  /* ThreadSanitizer owns signal delivery (a fault reaches no user handler synchronously):
   * a TSan build keeps the default behaviour. */
  return;
#endif
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_sigaction = dlc_fault_handler;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  pthread_mutex_lock(&dlc_install_mutex);
  for (size_t i = 0; i < DLC_NUM_FAULT_SIGNALS; ++i) {
    struct sigaction current;
    if (sigaction(dlc_fault_signals[i], NULL, &current) != 0 ||
        ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == dlc_fault_handler))
      continue;
    sigaction(dlc_fault_signals[i], &action, &dlc_previous[i]);
  }
  pthread_mutex_unlock(&dlc_install_mutex);
}

void dlc_fault_push(dlc_fault_guard_t *guard) {
  guard->signo = 0;
  guard->addr = NULL;
  guard->outer = dlc_tls_guard;
  dlc_tls_guard = guard;
}

void dlc_fault_pop(dlc_fault_guard_t *guard) { dlc_tls_guard = guard->outer; }

void dlc_fault_raise(int signo, void *addr) {
  dlc_fault_guard_t *guard = dlc_tls_guard;
  if (guard) {
    dlc_tls_guard = guard->outer;
    guard->signo = signo;
    guard->addr = addr;
    siglongjmp(guard->env, 1);
  }
  dlc_fault_default(signo);
  raise(signo);
}

const char *dlc_fault_name(int signo) {
  switch (signo) {
  case SIGSEGV: return "SIGSEGV (invalid memory access)";
  case SIGBUS: return "SIGBUS (bus error)";
  case SIGFPE: return "SIGFPE (arithmetic fault)";
  case SIGILL: return "SIGILL (illegal instruction)";
  default: return "a fatal signal";
  }
}
