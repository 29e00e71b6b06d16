/*
 * Resources (L2): only when the host delegated a cgroup v2 directory and named it in the request.
 * Per run the helper creates one child cgroup below it, writes memory.max, pids.max and cpu.max
 * there where the controller is available (enabling it in the delegated directory's
 * cgroup.subtree_control if the host allows), starts its child directly inside it
 * (clone3 CLONE_INTO_CGROUP), and at the end writes cgroup.kill and waits for cgroup.events to say
 * "populated 0" — a proof beside the ECHILD one — before it removes the child cgroup.
 *
 * Nothing is written into a cgroup the host did not name. The delegated directory is opened once
 * (a final link refused), checked to be on cgroup2 (statfs magic) and owned by this user, and every
 * later access is relative to that descriptor. docs/supervision.md ("L2, resources").
 */
#include "helper.h"

#include <sys/statfs.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#define SG_CLONE_INTO_CGROUP 0x200000000ULL

struct sg_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size,
            cgroup;
};

static const struct {
    uint32_t bit;
    const char *controller;
    uint32_t missing_code;
} LIMITS[] = {
        {CONF_MEMORY, "memory", SC_CGROUP_NO_MEMORY},
        {CONF_PIDS, "pids", SC_CGROUP_NO_PIDS},
        {CONF_CPU, "cpu", SC_CGROUP_NO_CPU},
};
#define NLIMITS (sizeof LIMITS / sizeof LIMITS[0])

uint32_t cgroup_wanted(const struct request *rq) {
    if (rq->cgroup_dir == NULL || rq->cgroup_dir[0] == '\0') {
        return 0;
    }
    uint32_t w = CONF_CGROUP;
    if (rq->memory_max > 0) {
        w |= CONF_MEMORY;
    }
    if (rq->pids_max > 0) {
        w |= CONF_PIDS;
    }
    if (rq->cpu_quota_us > 0) {
        w |= CONF_CPU;
    }
    return w;
}

uint32_t cgroup_missing_code(uint32_t missing) {
    for (size_t i = 0; i < NLIMITS; i++) {
        if (missing & LIMITS[i].bit) {
            return LIMITS[i].missing_code;
        }
    }
    return SC_CONFINEMENT_UNAVAILABLE;
}

/* Reads a small cgroup file relative to dirfd (never following a link); false on any error. */
static bool read_at(int dirfd, const char *name, char *buf, size_t size) {
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0) {
        return false;
    }
    buf[n] = '\0';
    return true;
}

static bool write_at(int dirfd, const char *name, const char *text) {
    int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    bool ok = write_all(fd, text, strlen(text));
    int saved = errno;
    close(fd);
    errno = saved;
    return ok;
}

/* Whether the space-separated list in dirfd/name contains word. */
static bool listed(int dirfd, const char *name, const char *word) {
    char buf[512];
    if (!read_at(dirfd, name, buf, sizeof buf)) {
        return false;
    }
    size_t wl = strlen(word);
    for (char *p = buf; *p != '\0';) {
        while (*p == ' ' || *p == '\n') {
            p++;
        }
        size_t n = strcspn(p, " \n");
        if (n == wl && strncmp(p, word, wl) == 0) {
            return true;
        }
        p += n;
    }
    return false;
}

/* The delegated directory: cgroup2, a directory owned by us, cgroup.procs ours too. 0 or errno. */
static int open_delegated(const char *path, int *out) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    struct statfs sfs;
    struct stat st, procs;
    int err = 0;
    if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0) {
        err = errno;
    } else if ((unsigned long)sfs.f_type != (unsigned long)CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
        err = ENOTDIR;
    } else if (st.st_uid != geteuid()) {
        err = EPERM;
    } else if (fstatat(fd, "cgroup.procs", &procs, AT_SYMLINK_NOFOLLOW) < 0) {
        err = errno;
    } else if (procs.st_uid != geteuid() || !S_ISREG(procs.st_mode)) {
        err = EPERM;
    }
    if (err != 0) {
        close(fd);
        return err;
    }
    *out = fd;
    return 0;
}

static bool write_limit(int cgfd, uint32_t bit, const struct request *rq) {
    char text[64];
    switch (bit) {
        case CONF_MEMORY:
            snprintf(text, sizeof text, "%llu\n", (unsigned long long)rq->memory_max);
            if (!write_at(cgfd, "memory.max", text)) {
                return false;
            }
            /* Without this the limit could be outgrown into swap; absent without swap accounting. */
            write_at(cgfd, "memory.swap.max", "0\n");
            return true;
        case CONF_PIDS:
            snprintf(text, sizeof text, "%u\n", rq->pids_max);
            return write_at(cgfd, "pids.max", text);
        default:
            snprintf(text, sizeof text, "%u %u\n", rq->cpu_quota_us, REQ_CPU_PERIOD_US);
            return write_at(cgfd, "cpu.max", text);
    }
}

/*
 * Before the hello: opens the delegated directory, creates the run's child cgroup and writes every
 * wanted limit whose controller is available there. Returns the CONF_* bits that will apply. A
 * delegated directory that is unusable sets *code (nothing may run: the host asked for it).
 */
uint32_t cgroup_prepare(struct run *r, uint32_t wanted, uint32_t *code, int *err) {
    if ((wanted & CONF_CGROUP) == 0) {
        return 0;
    }
    int e = open_delegated(r->rq.cgroup_dir, &r->cg_parent_fd);
    if (e == 0) {
        snprintf(r->cg_name, sizeof r->cg_name, "skillgate-%d-%llx", (int)self_pid, (unsigned long long)now_ns());
        if (mkdirat(r->cg_parent_fd, r->cg_name, 0700) < 0) {
            e = errno;
            r->cg_name[0] = '\0';
        } else {
            r->cg_fd = openat(r->cg_parent_fd, r->cg_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (r->cg_fd < 0) {
                e = errno;
            }
        }
    }
    if (e != 0) {
        *code = SC_CGROUP_UNUSABLE;
        *err = e;
        return 0;
    }
    uint32_t offered = CONF_CGROUP;
    for (size_t i = 0; i < NLIMITS; i++) {
        if ((wanted & LIMITS[i].bit) == 0) {
            continue;
        }
        const char *c = LIMITS[i].controller;
        if (!listed(r->cg_fd, "cgroup.controllers", c) && listed(r->cg_parent_fd, "cgroup.controllers", c)) {
            char plus[32];
            snprintf(plus, sizeof plus, "+%s\n", c);
            /* Refused (EBUSY) when the delegated cgroup holds processes itself: then not available. */
            write_at(r->cg_parent_fd, "cgroup.subtree_control", plus);
        }
        if (listed(r->cg_fd, "cgroup.controllers", c) && write_limit(r->cg_fd, LIMITS[i].bit, &r->rq)) {
            offered |= LIMITS[i].bit;
        }
    }
    return offered;
}

/* fork()-like clone3, into the run's cgroup when it has one; flags adds namespaces. */
pid_t cgroup_clone(const struct run *r, uint64_t flags) {
    struct sg_clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = flags;
    a.exit_signal = SIGCHLD;
    if (r->cg_fd >= 0 && (r->parts & CONF_CGROUP)) {
        a.flags |= SG_CLONE_INTO_CGROUP;
        a.cgroup = (uint64_t)r->cg_fd;
    }
    return (pid_t)syscall(SYS_clone3, &a, sizeof a);
}

void cgroup_kill(struct run *r) {
    if (r->cg_fd >= 0 && !write_at(r->cg_fd, "cgroup.kill", "1\n")) {
        diag("cgroup.kill", errno);
    }
}

static bool populated_zero(int fd) {
    char buf[256];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) {
        return false;
    }
    buf[n] = '\0';
    for (char *p = buf; p != NULL && *p != '\0';) {
        if (strncmp(p, "populated ", 10) == 0) {
            return p[10] == '0';
        }
        p = strchr(p, '\n');
        if (p != NULL) {
            p++;
        }
    }
    return false;
}

/*
 * After cgroup.kill and the sweep: waits (poll, bounded by deadline) until cgroup.events says
 * "populated 0", then removes the run's cgroup. True when "populated 0" was observed.
 */
bool cgroup_settle(struct run *r, uint64_t deadline) {
    if (r->cg_fd < 0) {
        return true;
    }
    int ev = openat(r->cg_fd, "cgroup.events", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (ev >= 0) {
        for (;;) {
            if (populated_zero(ev)) {
                r->cg_empty = true;
                break;
            }
            uint64_t t = now_ns();
            if (t >= deadline) {
                break;
            }
            uint64_t left = deadline - t;
            struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
            struct pollfd p = {ev, POLLPRI, 0};
            ppoll(&p, 1, &ts, NULL);
        }
        close(ev);
    }
    cgroup_release(r);
    return r->cg_empty;
}

/* Removes the run's cgroup (empty by now, or nothing ever ran in it) and closes both descriptors. */
void cgroup_release(struct run *r) {
    if (r->cg_fd >= 0) {
        close(r->cg_fd);
        r->cg_fd = -1;
    }
    if (r->cg_parent_fd >= 0 && r->cg_name[0] != '\0') {
        for (int i = 0; i < 100 && unlinkat(r->cg_parent_fd, r->cg_name, AT_REMOVEDIR) < 0 && errno == EBUSY; i++) {
            sleep_ns(1000000);
        }
        r->cg_name[0] = '\0';
    }
    if (r->cg_parent_fd >= 0) {
        close(r->cg_parent_fd);
        r->cg_parent_fd = -1;
    }
}
