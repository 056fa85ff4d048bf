// The floor of the isolation benchmark: the cheapest honest judge loop. For each test it forks,
// execs the solution with stdin from the .in file and stdout into a pipe, waits for it, and compares
// the output byte for byte with the .ans file. Usage: floor SOLUTION TESTS_DIR COUNT
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static size_t slurp(int fd, char *buf, size_t cap) {
    size_t n = 0;
    ssize_t r;
    while (n < cap && (r = read(fd, buf + n, cap - n)) > 0) n += (size_t)r;
    return n;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: floor SOLUTION TESTS_DIR COUNT\n"); return 2; }
    int count = atoi(argv[3]);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 1; i <= count; i++) {
        char in[4096], ans[4096];
        snprintf(in, sizeof in, "%s/%d.in", argv[2], i);
        snprintf(ans, sizeof ans, "%s/%d.ans", argv[2], i);
        int input = open(in, O_RDONLY);
        int pipefd[2];
        if (input < 0 || pipe(pipefd) != 0) { perror(in); return 2; }
        pid_t pid = fork();
        if (pid == 0) {
            dup2(input, 0);
            dup2(pipefd[1], 1);
            close(pipefd[0]);
            execl(argv[1], argv[1], (char *)0);
            _exit(127);
        }
        close(pipefd[1]);
        char out[4096], expected[4096];
        size_t n = slurp(pipefd[0], out, sizeof out);
        int status;
        waitpid(pid, &status, 0);
        close(pipefd[0]);
        close(input);
        int answer = open(ans, O_RDONLY);
        size_t m = slurp(answer, expected, sizeof expected);
        close(answer);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n != m || memcmp(out, expected, n) != 0) {
            fprintf(stderr, "test %d failed\n", i);
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.6f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
