/* dlc_fault.h - fatal signals raised by a model's code become statuses (private to the runtime). */
#ifndef DLC_FAULT_H
#define DLC_FAULT_H

#include <setjmp.h>
#include <signal.h>

/* A region of a thread where a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) returns to
 * `env` instead of killing the process. Use:
 *
 *   dlc_fault_guard_t g;
 *   if (sigsetjmp(g.env, 0) == 0) {
 *     dlc_fault_push(&g);
 *     ... code that may fault ...
 *     dlc_fault_pop(&g);
 *   } else {
 *     ... g.signo, g.addr: the guard is already popped ...
 *   }
 *
 * Guards nest per thread (the innermost catches). dlc_fault_install (called by
 * dlc_session_create, never per run) installs the handlers where they are not already
 * installed; the handlers they replace are kept and called for faults outside any guard,
 * and where there was none the default action is restored, so a fault anywhere else still
 * ends the process as it would have. A host that installs its own handler for these
 * signals after creating its sessions turns the conversion off until the next session.
 * A stack overflow is not caught (the handler would need an alternate stack on every
 * thread). */
typedef struct dlc_fault_guard {
  sigjmp_buf env;
  struct dlc_fault_guard *outer;
  volatile sig_atomic_t signo;
  void *volatile addr;
} dlc_fault_guard_t;

void dlc_fault_install(void);
void dlc_fault_push(dlc_fault_guard_t *guard);
void dlc_fault_pop(dlc_fault_guard_t *guard);

/* Delivers a fault caught elsewhere (on a pool worker) to this thread's innermost guard;
 * with none, ends the process with `signo`'s default action. */
void dlc_fault_raise(int signo, void *addr);

/* "SIGSEGV (invalid memory access)" and the like. */
const char *dlc_fault_name(int signo);

#endif /* DLC_FAULT_H */
