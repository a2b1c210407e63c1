/*
 * cbsample: samples a process tree from /proc at a fixed interval, for concbench.
 *
 *   cbsample ROOT_PID INTERVAL_US OUT_FILE [RSS_LIMIT_BYTES]
 *
 * Each tick appends "t_us rss_bytes threads cpu_ticks root_hwm_kb" to OUT_FILE (fully
 * buffered: the harness reads the file when the run is over). When RSS passes the limit it
 * kills the root's process group with SIGKILL and writes "limit". It ends when the root is
 * gone (reaped) or on SIGTERM. Written in C because a Python thread costs ~3x more CPU per
 * wake-up than this on a VM, and the sampler must stay under 1% of a core at 10 ms.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 256
/* Tree membership is re-read at tick 50 (0.5 s), then every 500: a /proc scan costs more
   than many ticks, and contenders rarely fork after start-up. */
#define REFRESH_TICKS 500
#define HWM_TICKS 5

static volatile sig_atomic_t stop_requested = 0;
static void on_term(int sig) { (void)sig; stop_requested = 1; }

typedef struct { int pid; int fd; } proc_t;
static proc_t procs[MAX_PROCS];
static int nprocs = 0;
static long page_size;

static int open_stat(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    return open(path, O_RDONLY | O_CLOEXEC);
}

static void track(int pid) {
    for (int i = 0; i < nprocs; i++) if (procs[i].pid == pid) return;
    if (nprocs == MAX_PROCS) return;
    int fd = open_stat(pid);
    if (fd >= 0) { procs[nprocs].pid = pid; procs[nprocs].fd = fd; nprocs++; }
}

/* Parses stat: returns 0 and fills rss pages, threads, cpu ticks, ppid; -1 if gone. */
static int read_stat(int fd, long *rss, long *threads, long *ticks, int *ppid) {
    char buf[4096];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    p += 2; /* field 3 (state) */
    if (*p == 'Z' || *p == 'X') return -1; /* exited, not yet reaped: nothing left to sample */
    long field[40];
    int k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(p + 2, " ", &save); tok && k < 40; tok = strtok_r(NULL, " ", &save))
        field[k++] = strtol(tok, NULL, 10);
    /* field[0] is field 4 (ppid): utime=14, stime=15, num_threads=20, rss=24 */
    if (k < 21) return -1;
    *ppid = (int)field[0];
    *ticks = field[10] + field[11];
    *threads = field[16];
    *rss = field[20];
    return 0;
}

/* Adds every descendant of the root found in /proc (cheap: a few hundred entries). */
static void refresh_tree(void) {
    DIR *d = opendir("/proc");
    if (!d) return;
    int pids[4096], ppids[4096], n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 4096) {
        int pid = atoi(e->d_name);
        if (pid <= 0) continue;
        int fd = open_stat(pid);
        if (fd < 0) continue;
        long a, b, c; int ppid;
        if (read_stat(fd, &a, &b, &c, &ppid) == 0) { pids[n] = pid; ppids[n] = ppid; n++; }
        close(fd);
    }
    closedir(d);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            if (!ppids[i]) continue;
            for (int j = 0; j < nprocs; j++)
                if (procs[j].pid == ppids[i]) { track(pids[i]); ppids[i] = 0; changed = 1; break; }
        }
    }
}

static long read_hwm_kb(int fd) {
    char buf[8192];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = 0;
    char *p = strstr(buf, "VmHWM:");
    return p ? strtol(p + 6, NULL, 10) : -1;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: cbsample ROOT_PID INTERVAL_US OUT_FILE [RSS_LIMIT_BYTES]\n");
        return 2;
    }
    int root = atoi(argv[1]);
    long interval_us = atol(argv[2]);
    long long limit = argc > 4 ? atoll(argv[4]) : 0;
    page_size = sysconf(_SC_PAGESIZE);
    FILE *out = fopen(argv[3], "w");
    if (!out) { perror("cbsample: output"); return 1; }
    setvbuf(out, NULL, _IOFBF, 1 << 16);
    signal(SIGTERM, on_term);
    signal(SIGINT, SIG_IGN); /* the harness decides when sampling ends */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", root);
    int status_fd = open(path, O_RDONLY | O_CLOEXEC);
    track(root);
    struct timespec start, next;
    clock_gettime(CLOCK_MONOTONIC, &start);
    next = start;
    long hwm = -1;
    for (long tick = 0; !stop_requested; tick++) {
        if (tick == 50 || (tick > 0 && tick % REFRESH_TICKS == 0)) refresh_tree();
        long rss = 0, threads = 0, ticks = 0, alive = 0;
        for (int i = 0; i < nprocs; i++) {
            long r, t, c; int pp;
            if (procs[i].fd >= 0 && read_stat(procs[i].fd, &r, &t, &c, &pp) == 0) {
                rss += r; threads += t; ticks += c; alive++;
            } else if (procs[i].fd >= 0) {
                close(procs[i].fd); procs[i].fd = -1;
            }
        }
        if (!alive) break;
        /* VmHWM only moves up: every 5th tick is enough next to the sampled RSS */
        if (tick % HWM_TICKS == 0 && status_fd >= 0) hwm = read_hwm_kb(status_fd);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long t_us = (now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000;
        fprintf(out, "%ld %ld %ld %ld %ld\n", t_us, rss * page_size, threads, ticks, hwm);
        if (limit > 0 && rss * page_size > limit) {
            kill(-root, SIGKILL);
            fprintf(out, "limit\n");
            break;
        }
        next.tv_nsec += interval_us * 1000L;
        while (next.tv_nsec >= 1000000000L) { next.tv_nsec -= 1000000000L; next.tv_sec++; }
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now; /* fell behind: skip ahead rather than burst */
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop_requested) {}
    }
    fclose(out);
    return 0;
}
