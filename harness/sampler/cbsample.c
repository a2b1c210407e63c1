/*
 * cbsample: samples a process tree from /proc at a fixed interval, for concbench.
 *
 *   cbsample ROOT_PID INTERVAL_US OUT_FILE [RSS_LIMIT_BYTES [TMP_DIR]]
 *
 * Each tick appends "t_us rss_bytes threads cpu_ticks root_hwm_kb" to OUT_FILE (cpu_ticks
 * refreshed every 10th tick) (fully
 * buffered: the harness reads the file when the run is over). When RSS passes the limit it
 * kills the root's process group with SIGKILL and writes "limit". It ends when the root is
 * gone (reaped) or on SIGTERM. Written in C because a Python thread costs ~3x more CPU per
 * wake-up than this on a VM, and the sampler must stay under 1% of a core at 10 ms.
 *
 * It is also the contender's guardian: if the harness dies (even by SIGKILL), the kernel
 * sends the sampler SIGUSR1 (PR_SET_PDEATHSIG), and it kills the root's process group and
 * every process of the tree it knows, so no contender outlives the harness; then it removes
 * TMP_DIR, the run's own temporary directory (proc/private_tmp.py), which the harness would
 * have removed. With a TMP_DIR it ends on SIGTERM only (or the harness's death), even once the
 * tree is gone, so that a harness killed between the tree's end and its clean-up is seen too.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 256
/* Tree membership is re-read at ticks 5, 20, 50 and 100 (when a launcher's children
   appear), then every 500: a /proc scan costs more than many ticks, and contenders rarely
   fork after start-up. */
#define REFRESH_TICKS 500
static int refresh_due(long tick) {
    return tick == 5 || tick == 20 || tick == 50 || tick == 100
        || (tick > 0 && tick % REFRESH_TICKS == 0);
}
/* CPU times come from stat, whose cost grows with the thread count (it sums over every
   thread: ~6 ms at 20 000 threads). They are read every 10th tick, or less often so that
   they cost at most CPU_BUDGET_NS per tick on average. */
#define CPU_TICKS 10
#define CPU_BUDGET_NS 5000L

static volatile sig_atomic_t stop_requested = 0;
static volatile sig_atomic_t orphaned = 0;
static void on_term(int sig) { (void)sig; stop_requested = 1; }
static void on_orphan(int sig) { (void)sig; orphaned = 1; stop_requested = 1; }

typedef struct { int pid; int fd; int status_fd; long ticks; } proc_t;
static proc_t procs[MAX_PROCS];
static int nprocs = 0;

static int open_stat(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    return open(path, O_RDONLY | O_CLOEXEC);
}

static int open_status(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    return open(path, O_RDONLY | O_CLOEXEC);
}

static void track(int pid) {
    for (int i = 0; i < nprocs; i++) if (procs[i].pid == pid) return;
    if (nprocs == MAX_PROCS) return;
    int fd = open_stat(pid), status_fd = open_status(pid);
    if (fd >= 0 && status_fd >= 0) {
        procs[nprocs] = (proc_t){pid, fd, status_fd, 0};
        nprocs++;
    } else {
        if (fd >= 0) close(fd);
        if (status_fd >= 0) close(status_fd);
    }
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

static long thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long field_kb(const char *buf, const char *name) {
    const char *p = strstr(buf, name);
    return p ? strtol(p + strlen(name), NULL, 10) : -1;
}

/* /proc/<pid>/status costs the same whatever the thread count (stat sums CPU over every
   thread): RSS, its high-water mark and the thread count every tick come from here. */
static int read_status(int fd, long *rss_kb, long *hwm_kb, long *threads) {
    char buf[8192];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = 0;
    const char *state = strstr(buf, "State:");
    if (state && (strchr("ZX", state[7]) != NULL)) return -1; /* exited, not reaped yet */
    *rss_kb = field_kb(buf, "VmRSS:");
    *hwm_kb = field_kb(buf, "VmHWM:");
    *threads = field_kb(buf, "Threads:");
    return *threads > 0 ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0; /* go on: remove what can be removed */
}

/* The tree's processes are sent SIGKILL; wait (at most 1 s) until none is left to write. */
static void await_gone(int root) {
    for (int i = 0; i < 100; i++) {
        int alive = kill(-root, 0) == 0;
        for (int j = 0; j < nprocs && !alive; j++) alive = kill(procs[j].pid, 0) == 0;
        if (!alive) return;
        usleep(10000);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: cbsample ROOT_PID INTERVAL_US OUT_FILE [RSS_LIMIT_BYTES [TMP_DIR]]\n");
        return 2;
    }
    const char *tmp_dir = argc > 5 && argv[5][0] ? argv[5] : NULL;
    int root = atoi(argv[1]);
    long interval_us = atol(argv[2]);
    long long limit = argc > 4 ? atoll(argv[4]) : 0;
    FILE *out = fopen(argv[3], "w");
    if (!out) { perror("cbsample: output"); return 1; }
    setvbuf(out, NULL, _IOFBF, 1 << 16);
    signal(SIGTERM, on_term);
    signal(SIGINT, SIG_IGN); /* the harness decides when sampling ends */
    pid_t harness = getppid();
    signal(SIGUSR1, on_orphan);
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    if (getppid() != harness) orphaned = stop_requested = 1; /* it died before prctl */
    track(root);
    struct timespec start, next;
    clock_gettime(CLOCK_MONOTONIC, &start);
    next = start;
    long cpu_every = CPU_TICKS, next_cpu_tick = 0;
    for (long tick = 0; !stop_requested; tick++) {
        int read_cpu = tick >= next_cpu_tick;
        long cpu_started = read_cpu ? thread_cpu_ns() : 0;
        if (refresh_due(tick)) refresh_tree();
        long rss_kb = 0, threads = 0, ticks = 0, alive = 0, hwm = -1;
        for (int i = 0; i < nprocs; i++) {
            proc_t *pr = &procs[i];
            long r, h, t, c, unused_rss, unused_threads; int pp;
            if (pr->fd < 0) continue;
            if (read_status(pr->status_fd, &r, &h, &t) != 0) {
                close(pr->fd); close(pr->status_fd); pr->fd = pr->status_fd = -1;
                continue;
            }
            if (read_cpu && read_stat(pr->fd, &unused_rss, &unused_threads, &c, &pp) == 0)
                pr->ticks = c;
            rss_kb += r; threads += t; ticks += pr->ticks; alive++;
            if (pr->pid == root) hwm = h;
        }
        if (!alive) break;
        if (read_cpu) {
            long cost = thread_cpu_ns() - cpu_started;
            cpu_every = cost / CPU_BUDGET_NS > CPU_TICKS ? cost / CPU_BUDGET_NS : CPU_TICKS;
            next_cpu_tick = tick + cpu_every;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long t_us = (now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000;
        fprintf(out, "%ld %ld %ld %ld %ld\n", t_us, rss_kb * 1024, threads, ticks, hwm);
        if (limit > 0 && rss_kb * 1024 > limit) {
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
    if (tmp_dir) { /* the tree ended first: the harness removes TMP_DIR once it has reaped and
                      swept it; until it says stop, this stays, in case it dies before that */
        sigset_t waited, before;
        sigemptyset(&waited);
        sigaddset(&waited, SIGTERM);
        sigaddset(&waited, SIGUSR1);
        sigprocmask(SIG_BLOCK, &waited, &before);
        while (!stop_requested) sigsuspend(&before);
        sigprocmask(SIG_SETMASK, &before, NULL);
    }
    if (orphaned) { /* the harness is gone: nothing it started may stay */
        refresh_tree();
        kill(-root, SIGKILL);
        for (int i = 0; i < nprocs; i++) kill(procs[i].pid, SIGKILL);
        if (tmp_dir) {
            await_gone(root);
            nftw(tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        }
    }
    fclose(out);
    return 0;
}
