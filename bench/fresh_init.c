/* What a fresh run init costs against one init serving many runs (a benchmark, not a test).
 *
 * "fresh": N times, clone an init into new PID, mount and IPC namespaces (as the sandbox makes
 * one for each run), mount /proc, a tmpfs on /tmp and a read-only bind of /usr on /mnt in it,
 * run /bin/true from it and let it exit (its namespaces freed). "reuse": one such init runs
 * /bin/true N times. "bare": N times fork + exec /bin/true. Prints the whole machine's CPU time
 * (/proc/stat) and the wall time, per run; compare the modes within one run of the script.
 * Root only (it mounts in its own mount namespace, which leaves the host's untouched).
 *
 *   gcc -O2 -o /tmp/fresh_init bench/fresh_init.c
 *   for m in bare reuse fresh; do sudo /tmp/fresh_init $m 2000; done
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double busy(void) {
    unsigned long long v[10] = {0}; FILE *f = fopen("/proc/stat", "r");
    fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],&v[1],&v[2],&v[3],&v[4],&v[5],&v[6],&v[7]);
    fclose(f); return (double)(v[0]+v[1]+v[2]+v[5]+v[6]+v[7]) / sysconf(_SC_CLK_TCK);
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec/1e9; }
static void run_true(void) {
    pid_t p = fork();
    if (p == 0) { execl("/bin/true", "true", (char*)0); _exit(127); }
    int st; waitpid(p, &st, 0);
}
static int mounts(void) {
    if (mount(NULL, "/", NULL, MS_REC|MS_PRIVATE, NULL)) return 1;
    if (mount("proc", "/proc", "proc", 0, NULL)) return 2;
    if (mount("tmpfs", "/tmp", "tmpfs", 0, "size=64m")) return 3;
    if (mount("/usr", "/mnt", NULL, MS_BIND|MS_REC, NULL)) return 4;
    if (mount(NULL, "/mnt", NULL, MS_REMOUNT|MS_BIND|MS_RDONLY, NULL)) return 5;
    return 0;
}
static char stack[1<<16];
static int init_one(void *arg) { (void)arg; int r = mounts(); if (r) return r; run_true(); return 0; }
static int init_many(void *arg) { int n = *(int*)arg; int r = mounts(); if (r) return r; for (int i = 0; i < n; i++) run_true(); return 0; }
int main(int argc, char **argv) {
    int n = argc > 2 ? atoi(argv[2]) : 1000; int flags = CLONE_NEWPID|CLONE_NEWNS|CLONE_NEWIPC|SIGCHLD;
    double b0 = busy(), t0 = now();
    if (!strcmp(argv[1], "fresh")) {
        for (int i = 0; i < n; i++) {
            pid_t p = clone(init_one, stack + sizeof stack, flags, NULL);
            if (p < 0) { perror("clone"); return 1; }
            int st; waitpid(p, &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st)) { fprintf(stderr, "init failed %d\n", st); return 1; }
        }
    } else if (!strcmp(argv[1], "reuse")) {
        pid_t p = clone(init_many, stack + sizeof stack, flags, &n);
        int st; waitpid(p, &st, 0);
    } else {
        for (int i = 0; i < n; i++) run_true();
    }
    double b1 = busy(), t1 = now();
    printf("%-6s machine CPU %.3f ms a run, wall %.3f ms a run\n", argv[1], 1000*(b1-b0)/n, 1000*(t1-t0)/n);
    return 0;
}
