/* How long joining a cgroup takes, with a pause between joins (a benchmark, not a test).
 *
 * Each round forks a child that writes "0" to CGROUP/cgroup.procs (the move every sandboxed
 * program makes before exec) and reports how long that write took. In the kernel's default mode
 * the move waits for an RCU grace period when no other move happened in the last few
 * milliseconds; with the `favordynmods` mode on it never waits. Note that `judge doctor --tune`
 * (or any judge run with JUDGE_CGROUP_FAVORDYNMODS=1) turns that mode on until reboot, after
 * which this shows no wait; so may a machine busy with other cgroup moves (each move keeps the
 * next ones from waiting for a few milliseconds).
 *
 *   mkdir /sys/fs/cgroup/pids/join-bench            (cgroup v1; on v2 any cgroup folder)
 *   gcc -O2 -o /tmp/cgroup_join bench/cgroup_join.c
 *   sudo /tmp/cgroup_join /sys/fs/cgroup/pids/join-bench 20000 100   (20 ms pauses, 100 rounds)
 *   sudo JOIN_FILE=tasks /tmp/cgroup_join /sys/fs/cgroup/pids/join-bench 20000 100
 *   rmdir /sys/fs/cgroup/pids/join-bench
 *
 * JOIN_FILE=tasks (cgroup v1) writes to `tasks` instead, as the sandbox joins on cgroup v1: it
 * moves only the writing thread (the child is single-threaded) and takes no thread-group lock,
 * so it never waits, whatever the mode.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s CGROUP_FOLDER PAUSE_MICROSECONDS ROUNDS\n", argv[0]);
        return 2;
    }
    char path[4096];
    const char *file = getenv("JOIN_FILE") ? getenv("JOIN_FILE") : "cgroup.procs";
    snprintf(path, sizeof path, "%s/%s", argv[1], file);
    int procs = open(path, O_WRONLY);
    if (procs < 0) {
        perror(path);
        return 2;
    }
    int pause = atoi(argv[2]), rounds = atoi(argv[3]);
    if (rounds < 1 || rounds > 100000) {
        fprintf(stderr, "ROUNDS must be 1..100000\n");
        return 2;
    }
    double *took = calloc(rounds, sizeof *took), total = 0;
    for (int i = 0; i < rounds; i++) {
        usleep(pause);
        int pipefd[2];
        if (pipe(pipefd) != 0) {
            perror("pipe");
            return 2;
        }
        pid_t child = fork();
        if (child == 0) {
            double start = seconds();
            if (write(procs, "0", 1) != 1)
                _exit(1);
            double spent = seconds() - start;
            if (write(pipefd[1], &spent, sizeof spent) != sizeof spent)
                _exit(1);
            _exit(0);
        }
        if (read(pipefd[0], &took[i], sizeof took[i]) != sizeof took[i]) {
            fprintf(stderr, "the child could not join %s\n", argv[1]);
            return 1;
        }
        waitpid(child, NULL, 0);
        close(pipefd[0]);
        close(pipefd[1]);
        total += took[i];
    }
    qsort(took, rounds, sizeof *took, by_value);
    printf("pause %d us, %d joins: median %.1f us, p90 %.1f us, max %.1f us, mean %.1f us\n", pause,
           rounds, took[rounds / 2] * 1e6, took[rounds * 9 / 10] * 1e6, took[rounds - 1] * 1e6,
           total / rounds * 1e6);
    return 0;
}
