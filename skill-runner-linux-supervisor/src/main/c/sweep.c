/* The sweep and its proof: kill every descendant, reap until waitpid reports ECHILD. */
#include "helper.h"

/* An open-addressing set of pids already signalled in the sweep (0 marks an empty slot). */
struct pidset {
    pid_t *slots;
    size_t cap;
    size_t count;
};

static size_t pid_hash(pid_t p, size_t cap) {
    return ((uint32_t)p * 2654435761u) & (cap - 1);
}

static bool pidset_has(const struct pidset *s, pid_t p) {
    for (size_t i = pid_hash(p, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == 0) {
            return false;
        }
        if (s->slots[i] == p) {
            return true;
        }
    }
}


static bool pidset_add(struct pidset *s, pid_t p);

static bool pidset_grow(struct pidset *s) {
    struct pidset bigger = {calloc(s->cap * 2, sizeof(pid_t)), s->cap * 2, 0};
    if (bigger.slots == NULL) {
        return false;
    }
    for (size_t i = 0; i < s->cap; i++) {
        if (s->slots[i] != 0) {
            pidset_add(&bigger, s->slots[i]);
        }
    }
    free(s->slots);
    *s = bigger;
    return true;
}

static bool pidset_add(struct pidset *s, pid_t p) {
    if ((s->count + 1) * 2 > s->cap && !pidset_grow(s)) {
        return false;
    }
    size_t i = pid_hash(p, s->cap);
    while (s->slots[i] != 0) {
        if (s->slots[i] == p) {
            return true;
        }
        i = (i + 1) & (s->cap - 1);
    }
    s->slots[i] = p;
    s->count++;
    return true;
}

static void pidset_remove(struct pidset *s, pid_t p) {
    size_t mask = s->cap - 1;
    size_t i = pid_hash(p, s->cap);
    while (s->slots[i] != p) {
        if (s->slots[i] == 0) {
            return;
        }
        i = (i + 1) & mask;
    }
    /* Backward-shift deletion keeps every probe chain intact without tombstones. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (s->slots[j] == 0) {
            break;
        }
        size_t k = pid_hash(s->slots[j], s->cap);
        bool move = (j > i) ? (k <= i || k > j) : (k <= i && k > j);
        if (move) {
            s->slots[i] = s->slots[j];
            i = j;
        }
    }
    s->slots[i] = 0;
    s->count--;
}

struct pidlist {
    pid_t *v;
    size_t n;
    size_t cap;
};

static bool pidlist_push(struct pidlist *l, pid_t p) {
    if (l->n == l->cap) {
        size_t cap = l->cap == 0 ? 256 : l->cap * 2;
        pid_t *v = realloc(l->v, cap * sizeof(pid_t));
        if (v == NULL) {
            return false;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = p;
    return true;
}

/* Our children per the kernel's children file: a hint, never the proof (proc_tid_children(5)). */
static bool read_children(struct pidlist *out, bool *available) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)self_pid);
    out->n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *available = false;
        return true;
    }
    *available = true;
    char buf[8192];
    long cur = -1;
    bool ok = true;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            char ch = buf[i];
            if (ch >= '0' && ch <= '9') {
                cur = (cur < 0 ? 0 : cur * 10) + (ch - '0');
            } else if (cur >= 0) {
                ok = ok && pidlist_push(out, (pid_t)cur);
                cur = -1;
            }
        }
    }
    if (cur >= 0) {
        ok = ok && pidlist_push(out, (pid_t)cur);
    }
    close(fd);
    return ok;
}

/* Every process whose parent is the helper, from a full /proc walk (used when the hint missed one). */
static bool scan_proc_children(struct pidlist *out) {
    out->n = 0;
    DIR *d = opendir("/proc");
    if (d == NULL) {
        return false;
    }
    bool ok = true;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0) {
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        struct proc_stat ps;
        if (read_proc_stat(path, &ps) && ps.ppid == self_pid) {
            ok = ok && pidlist_push(out, (pid_t)pid);
        }
    }
    closedir(d);
    return ok;
}

/* Waits until pid (our child) is dead but unreaped; returns false at the deadline. */
static bool wait_dead(pid_t pid, int pidfd, uint64_t deadline) {
    for (uint64_t backoff = 20000;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0) {
            if (si.si_pid == pid) {
                return true;
            }
        } else if (errno == ECHILD) {
            return true;
        }
        uint64_t t = now_ns();
        if (t >= deadline) {
            return false;
        }
        if (pidfd >= 0) {
            uint64_t left = deadline - t;
            struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
            struct pollfd p = {pidfd, POLLIN, 0};
            ppoll(&p, 1, &ts, NULL);
        } else {
            sleep_ns(backoff);
            if (backoff < 1000000) {
                backoff *= 2;
            }
        }
    }
}

/* Kills every pid of batch not yet handled; waits for each to be dead (not reaped). */
static size_t kill_batch(struct run *r, struct pidset *handled, const struct pidlist *batch, uint64_t deadline,
        bool *alloc_failed) {
    size_t fresh = 0;
    for (size_t start = 0; start < batch->n; start += 256) {
        size_t end = start + 256 < batch->n ? start + 256 : batch->n;
        pid_t pids[256];
        int fds[256];
        size_t m = 0;
        for (size_t i = start; i < end; i++) {
            pid_t pid = batch->v[i];
            if (pid <= 0 || pidset_has(handled, pid)) {
                continue;
            }
            if (!pidset_add(handled, pid)) {
                *alloc_failed = true;
                return fresh;
            }
            fresh++;
            char path[64];
            snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
            struct proc_stat ps;
            bool have_stat = read_proc_stat(path, &ps);
            bool zombie = have_stat && ps.state == 'Z';
            if (pid != r->child && have_stat) {
                if (ps.session != r->child || ps.pgrp != r->child) {
                    r->detached = true; /* it left the script's session or process group */
                }
                if (r->exited_on_its_own && !zombie) {
                    r->detached = true; /* it outlived the script */
                }
            }
            int fd = sys_pidfd_open(pid);
            /* Our own unreaped child: its pid cannot be recycled, so plain kill() is race-free too. */
            if (fd >= 0) {
                sys_pidfd_send_signal(fd, SIGKILL);
            } else {
                kill(pid, SIGKILL);
            }
            if (!zombie) {
                r->killed++;
            }
            pids[m] = pid;
            fds[m] = fd;
            m++;
        }
        for (size_t i = 0; i < m; i++) {
            wait_dead(pids[i], fds[i], deadline);
            if (fds[i] >= 0) {
                close(fds[i]);
            }
        }
    }
    if (fresh > 0) {
        r->rounds++;
    }
    return fresh;
}

static void note_child_status(struct run *r, int status) {
    if (r->exit_kind != EXIT_NONE) {
        return;
    }
    if (WIFEXITED(status)) {
        r->exit_kind = EXIT_CODE;
        r->exit_value = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->exit_kind = EXIT_SIGNAL;
        r->exit_value = WTERMSIG(status);
    }
}

/* Kills every descendant and reaps until ECHILD. Returns true only on that proof, within the deadline. */
bool sweep(struct run *r, uint64_t deadline) {
    struct pidset handled = {calloc(1024, sizeof(pid_t)), 1024, 0};
    struct pidlist kids = {NULL, 0, 0};
    bool proven = false;
    bool alloc_failed = handled.slots == NULL;
    bool scanned = false;
    while (!alloc_failed) {
        bool hint_available = true;
        if (!read_children(&kids, &hint_available)) {
            alloc_failed = true;
            break;
        }
        if (!hint_available) {
            if (!scan_proc_children(&kids)) {
                alloc_failed = true;
                break;
            }
            scanned = true;
        }
        if (kill_batch(r, &handled, &kids, deadline, &alloc_failed) > 0) {
            scanned = false;
            continue;
        }
        if (alloc_failed) {
            break;
        }
        /* Every visible child is dead: reap. ECHILD is the kernel saying no descendant is left. */
        bool echild = false;
        for (;;) {
            int status;
            pid_t got = waitpid(-1, &status, WNOHANG | __WALL);
            if (got > 0) {
                pidset_remove(&handled, got);
                r->seen++;
                if (got == r->child) {
                    note_child_status(r, status);
                }
                continue;
            }
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got < 0 && errno == ECHILD) {
                echild = true;
            }
            break; /* 0: a live child that neither the hint nor the last scan showed */
        }
        if (echild) {
            proven = true;
            break;
        }
        if (now_ns() >= deadline) {
            break;
        }
        if (!scanned) {
            if (!scan_proc_children(&kids)) {
                alloc_failed = true;
                break;
            }
            scanned = true;
            if (kill_batch(r, &handled, &kids, deadline, &alloc_failed) > 0) {
                scanned = false;
            }
        } else {
            sleep_ns(1000000);
            scanned = false;
        }
    }
    free(handled.slots);
    free(kids.v);
    return proven;
}
