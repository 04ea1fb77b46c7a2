// Peak-RSS launcher for bench/run: `rusage OUTFILE CMD ARGS...` runs CMD and writes
// "<maxrss_kb> <wait status>" to OUTFILE, then exits with CMD's exit code (128+signal if killed).
//
// Why not wait4() from Python directly: Linux carries the parent's high-water RSS into the
// child's ru_maxrss across fork/vfork + exec, so every child of the (large) Python driver would
// report at least the driver's RSS. Forking from this tiny process keeps that floor at ~1 MB.
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: rusage OUTFILE CMD [ARGS...]\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("rusage: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror("rusage: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) {
    perror("rusage: wait4");
    return 2;
  }
  FILE *f = fopen(argv[1], "w");
  if (f) {
    fprintf(f, "%ld %d\n", ru.ru_maxrss, status);
    fclose(f);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
