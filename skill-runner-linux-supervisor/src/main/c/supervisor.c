/*
 * skillgate-supervisor: a single-threaded Linux subreaper that starts one process, relays its
 * output as length-prefixed frames, ends it on exit, deadline, cancel or overflow, and proves
 * that no descendant remains: it reaps until waitpid(-1, WNOHANG|__WALL) reports ECHILD.
 *
 * Not a sandbox. The child runs with the invoking user's files and network. See
 * docs/supervision.md for the protocol (byte for byte), the state machine and the limits.
 *
 * Usage:  skillgate-supervisor            run one request read from stdin
 *         skillgate-supervisor --probe    print version and kernel features, exit 0
 *         skillgate-supervisor --selftest known-answer tests of SHA-256 and CRC-32C
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crc32c.h"
#include "protocol.h"
#include "sha256.h"

/* ---- syscalls that older headers lack (numbers are the generic ones, same on x86_64 and aarch64) ---- */
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#ifndef __WALL
#define __WALL 0x40000000
#endif

/* Landlock ABI 6 (Linux 6.12) scoping; defined here because distribution headers may predate it. */
#define SG_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define SG_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SG_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
struct sg_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

#define LANDLOCK_SCOPE_MIN_ABI 6
#define GO_WAIT_NS (120ull * 1000000000ull)
#define DRAIN_NS (100ull * 1000000ull)
#define READ_CHUNK 65536

/* ================================ small utilities ================================ */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_u64(uint8_t *p, uint64_t v) {
    put_u32(p, (uint32_t)(v >> 32));
    put_u32(p + 4, (uint32_t)v);
}

static uint32_t get_u32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint64_t get_u64(const uint8_t *p) {
    return ((uint64_t)get_u32(p) << 32) | get_u32(p + 4);
}

static void diag(const char *msg, int err) {
    /* Diagnostics go to stderr, which the JVM caps; never any request or child content. */
    if (err != 0) {
        dprintf(2, "skillgate-supervisor: %s: %s\n", msg, strerror(err));
    } else {
        dprintf(2, "skillgate-supervisor: %s\n", msg);
    }
}

static bool write_all(int fd, const void *buf, size_t len) {
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}

static bool read_full(int fd, void *buf, size_t len) {
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        if (n == 0) {
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}

static void sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

static int sys_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int sys_pidfd_send_signal(int pidfd, int sig) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

static int sys_close_range(unsigned first, unsigned last, unsigned flags) {
    return (int)syscall(SYS_close_range, first, last, flags);
}

static int landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, SG_LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? -1 : (int)abi;
}

/* Fields of /proc/<pid>/stat after the command name, which may itself contain ") ". */
struct proc_stat {
    char state;
    long ppid;
    long pgrp;
    long session;
    unsigned long long starttime;
};

static bool read_proc_stat(const char *path, struct proc_stat *out) {
    char buf[1024];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return false;
    }
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL || p[1] != ' ' || p[2] == '\0') {
        return false;
    }
    out->state = p[2];
    p += 3; /* now at field 4 (ppid) */
    char *end;
    long vals[3];
    for (int i = 0; i < 3; i++) {
        errno = 0;
        vals[i] = strtol(p, &end, 10);
        if (end == p || errno != 0) {
            return false;
        }
        p = end;
    }
    out->ppid = vals[0];
    out->pgrp = vals[1];
    out->session = vals[2];
    /* Fields 7..21 are skipped; field 22 is the start time in clock ticks since boot. */
    for (int field = 7; field <= 21; field++) {
        while (*p == ' ') {
            p++;
        }
        while (*p != ' ' && *p != '\0') {
            p++;
        }
    }
    errno = 0;
    out->starttime = strtoull(p, &end, 10);
    return end != p && errno == 0;
}

/* ================================ frames ================================ */

static uint32_t out_crc;
static bool sink_broken;

static void emit(uint8_t type, const void *payload, uint32_t len) {
    uint8_t head[5];
    head[0] = type;
    put_u32(head + 1, len);
    out_crc = crc32c_update(out_crc, head, sizeof head);
    if (len > 0) {
        out_crc = crc32c_update(out_crc, payload, len);
    }
    if (sink_broken) {
        return;
    }
    if (!write_all(1, head, sizeof head) || (len > 0 && !write_all(1, payload, len))) {
        /* The JVM is gone or stopped reading; cleanup still runs to the end. */
        sink_broken = true;
    }
}

static void emit_end(void) {
    uint8_t crc[4];
    put_u32(crc, out_crc);
    uint8_t head[5];
    head[0] = FRAME_END;
    put_u32(head + 1, 4);
    if (!sink_broken) {
        if (!write_all(1, head, sizeof head) || !write_all(1, crc, sizeof crc)) {
            sink_broken = true;
        }
    }
}

/* ================================ request ================================ */

struct request {
    uint8_t policy;
    uint8_t verify_mode;
    uint8_t cwd_mode;
    uint8_t digest[32];
    uint64_t id_dev, id_ino, id_size;
    int64_t id_mtime_s, id_mtime_ns, id_ctime_s, id_ctime_ns;
    uint64_t cwd_dev, cwd_ino;
    uint32_t wall_ms, grace_ms, kill_ms, stdout_max, stderr_max;
    uint64_t cpu_s, data_bytes, fsize_bytes, nofile;
    char *exe;
    char *cwd;
    char **argv; /* argv[0] = exe, NULL-terminated */
    uint32_t argc;
    char **envp; /* NULL-terminated */
    uint32_t envc;
    uint8_t *stdin_data;
    uint32_t stdin_len;
};

struct cursor {
    const uint8_t *p;
    size_t left;
    bool bad;
};

static uint8_t cur_u8(struct cursor *c) {
    if (c->bad || c->left < 1) {
        c->bad = true;
        return 0;
    }
    uint8_t v = c->p[0];
    c->p += 1;
    c->left -= 1;
    return v;
}

static uint32_t cur_u32(struct cursor *c) {
    if (c->bad || c->left < 4) {
        c->bad = true;
        return 0;
    }
    uint32_t v = get_u32(c->p);
    c->p += 4;
    c->left -= 4;
    return v;
}

static uint64_t cur_u64(struct cursor *c) {
    if (c->bad || c->left < 8) {
        c->bad = true;
        return 0;
    }
    uint64_t v = get_u64(c->p);
    c->p += 8;
    c->left -= 8;
    return v;
}

static void cur_bytes(struct cursor *c, uint8_t *out, size_t n) {
    if (c->bad || c->left < n) {
        c->bad = true;
        return;
    }
    memcpy(out, c->p, n);
    c->p += n;
    c->left -= n;
}

/* A length-prefixed string without NUL bytes, copied and NUL-terminated. */
static char *cur_string(struct cursor *c, uint32_t max, size_t *total) {
    uint32_t len = cur_u32(c);
    if (c->bad || len > max || len > c->left) {
        c->bad = true;
        return NULL;
    }
    if (memchr(c->p, '\0', len) != NULL) {
        c->bad = true;
        return NULL;
    }
    char *s = malloc((size_t)len + 1);
    if (s == NULL) {
        c->bad = true;
        return NULL;
    }
    memcpy(s, c->p, len);
    s[len] = '\0';
    c->p += len;
    c->left -= len;
    *total += len;
    return s;
}

static bool starts_with_ci(const char *s, const char *prefix) {
    for (; *prefix != '\0'; s++, prefix++) {
        char a = *s, b = *prefix;
        if (a >= 'a' && a <= 'z') {
            a = (char)(a - 'a' + 'A');
        }
        if (a != b) {
            return false;
        }
    }
    return true;
}

/* Second line of defence: keys that load code or change trust in the dynamic loader, libc or Node. */
static bool env_key_denied(const char *key, size_t key_len) {
    static const char *const prefixes[] = {
            "NODE_", "UV_", "OPENSSL_", "SSL_CERT_", "LD_", "MALLOC_", "DYLD_", "NPM_",
    };
    static const char *const exact[] = {
            "GLIBC_TUNABLES", "GCONV_PATH", "LOCPATH", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        if (starts_with_ci(key, prefixes[i])) {
            return true;
        }
    }
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        size_t n = strlen(exact[i]);
        if (key_len == n && starts_with_ci(key, exact[i])) {
            return true;
        }
    }
    /* *_PROXY, any case (http_proxy is honoured by many tools). */
    if (key_len >= 6 && starts_with_ci(key + key_len - 6, "_PROXY")) {
        return true;
    }
    return false;
}

/* Parses and checks the request body; returns SC_NONE or the setup code that rejects it. */
static int parse_request(const uint8_t *body, size_t len, struct request *rq) {
    struct cursor c = {body, len, false};
    size_t strings = 0;
    memset(rq, 0, sizeof *rq);
    rq->policy = cur_u8(&c);
    rq->verify_mode = cur_u8(&c);
    rq->cwd_mode = cur_u8(&c);
    uint8_t reserved = cur_u8(&c);
    cur_bytes(&c, rq->digest, sizeof rq->digest);
    rq->id_dev = cur_u64(&c);
    rq->id_ino = cur_u64(&c);
    rq->id_size = cur_u64(&c);
    rq->id_mtime_s = (int64_t)cur_u64(&c);
    rq->id_mtime_ns = (int64_t)cur_u64(&c);
    rq->id_ctime_s = (int64_t)cur_u64(&c);
    rq->id_ctime_ns = (int64_t)cur_u64(&c);
    rq->cwd_dev = cur_u64(&c);
    rq->cwd_ino = cur_u64(&c);
    rq->wall_ms = cur_u32(&c);
    rq->grace_ms = cur_u32(&c);
    rq->kill_ms = cur_u32(&c);
    rq->stdout_max = cur_u32(&c);
    rq->stderr_max = cur_u32(&c);
    rq->cpu_s = cur_u64(&c);
    rq->data_bytes = cur_u64(&c);
    rq->fsize_bytes = cur_u64(&c);
    rq->nofile = cur_u64(&c);
    rq->exe = cur_string(&c, REQ_MAX_PATH, &strings);
    rq->cwd = cur_string(&c, REQ_MAX_PATH, &strings);
    uint32_t nargs = cur_u32(&c);
    if (c.bad) {
        return SC_REQUEST_MALFORMED;
    }
    if (nargs > REQ_MAX_ARGS) {
        return SC_REQUEST_BOUNDS;
    }
    rq->argv = calloc((size_t)nargs + 2, sizeof(char *));
    if (rq->argv == NULL) {
        return SC_RESOURCE;
    }
    rq->argv[0] = rq->exe;
    rq->argc = nargs + 1;
    for (uint32_t i = 0; i < nargs && !c.bad; i++) {
        rq->argv[i + 1] = cur_string(&c, REQ_MAX_STRING, &strings);
    }
    uint32_t nenv = cur_u32(&c);
    if (c.bad) {
        return SC_REQUEST_MALFORMED;
    }
    if (nenv > REQ_MAX_ENV) {
        return SC_REQUEST_BOUNDS;
    }
    rq->envp = calloc((size_t)nenv + 1, sizeof(char *));
    if (rq->envp == NULL) {
        return SC_RESOURCE;
    }
    rq->envc = nenv;
    for (uint32_t i = 0; i < nenv && !c.bad; i++) {
        rq->envp[i] = cur_string(&c, REQ_MAX_STRING, &strings);
    }
    rq->stdin_len = cur_u32(&c);
    if (c.bad) {
        return SC_REQUEST_MALFORMED;
    }
    if (rq->stdin_len > REQ_MAX_STDIN) {
        return SC_REQUEST_BOUNDS;
    }
    if (rq->stdin_len > c.left) {
        return SC_REQUEST_MALFORMED;
    }
    rq->stdin_data = (uint8_t *)c.p;
    c.p += rq->stdin_len;
    c.left -= rq->stdin_len;
    if (c.left != 0 || reserved != 0) {
        return SC_REQUEST_MALFORMED;
    }
    if (rq->policy > POLICY_REQUIRE || rq->verify_mode > VERIFY_IDENTITY || rq->cwd_mode > CWD_CHECK_IDENTITY) {
        return SC_REQUEST_MALFORMED;
    }
    if (strings > REQ_MAX_STRINGS_TOTAL) {
        return SC_REQUEST_BOUNDS;
    }
    if (rq->wall_ms < 1 || rq->wall_ms > REQ_MAX_WALL_MS || rq->grace_ms > REQ_MAX_GRACE_MS || rq->kill_ms < 1
            || rq->kill_ms > REQ_MAX_KILL_MS || rq->stdout_max < 1 || rq->stdout_max > REQ_MAX_STDOUT
            || rq->stderr_max < 1 || rq->stderr_max > REQ_MAX_STDERR) {
        return SC_REQUEST_BOUNDS;
    }
    if (rq->nofile > 1048576u || rq->cpu_s > 86400u) {
        return SC_REQUEST_BOUNDS;
    }
    if (rq->exe[0] != '/' || rq->cwd[0] != '/') {
        return SC_PATH_NOT_ABSOLUTE;
    }
    for (uint32_t i = 0; i < nenv; i++) {
        const char *e = rq->envp[i];
        const char *eq = strchr(e, '=');
        if (eq == NULL || eq == e) {
            return SC_ENV_MALFORMED;
        }
        size_t key_len = (size_t)(eq - e);
        for (uint32_t j = 0; j < i; j++) {
            if (strncmp(rq->envp[j], e, key_len + 1) == 0) {
                return SC_ENV_MALFORMED; /* duplicate key: which one wins would be ambiguous */
            }
        }
        if (env_key_denied(e, key_len)) {
            return SC_ENV_DENIED;
        }
    }
    return SC_NONE;
}

/* ================================ executable verification ================================ */

struct file_identity {
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
};

static void identity_of(const struct stat *st, struct file_identity *id) {
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_s = (int64_t)st->st_mtim.tv_sec;
    id->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
    id->ctime_s = (int64_t)st->st_ctim.tv_sec;
    id->ctime_ns = (int64_t)st->st_ctim.tv_nsec;
}

static bool identity_equal(const struct file_identity *a, const struct file_identity *b) {
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_s == b->mtime_s
            && a->mtime_ns == b->mtime_ns && a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns;
}

static bool hash_fd(int fd, uint8_t out[32]) {
    static uint8_t buf[1 << 20];
    sha256_ctx ctx;
    sha256_init(&ctx);
    off_t off = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, off);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        if (n == 0) {
            break;
        }
        sha256_update(&ctx, buf, (size_t)n);
        off += n;
    }
    sha256_final(&ctx, out);
    return true;
}

static bool digest_equal(const uint8_t *a, const uint8_t *b) {
    uint8_t diff = 0;
    for (int i = 0; i < 32; i++) {
        diff |= (uint8_t)(a[i] ^ b[i]);
    }
    return diff == 0;
}

/* ================================ process state ================================ */

struct features {
    uint32_t bits;
    int landlock_abi;
};

static struct features feat;
static pid_t self_pid;

struct run {
    struct request rq;
    int layer;
    int exe_fd;
    int cwd_fd; /* the working directory, opened (and checked) once; the child fchdir()s to it */
    int verification;
    struct file_identity exe_id;
    pid_t child;
    int child_pidfd;
    int sigfd;
    int stdin_w, stdout_r, stderr_r, err_r;
    uint32_t stdin_off;
    uint64_t spawned_at;
    uint64_t exec_confirmed_ns;
    bool exec_confirmed;
    int outcome;          /* 0 while running */
    bool child_exited;    /* observed with WNOWAIT, not reaped */
    bool exited_on_its_own;
    int exit_kind;
    int32_t exit_value;
    uint32_t setup_code;
    int32_t err_no;
    uint64_t stdout_total, stderr_total;
    bool stdout_overflow, stderr_overflow;
    /* sweep */
    uint32_t seen, killed, rounds;
    bool detached;
    uint64_t sweep_ns;
    uint32_t pipes_left_open;
};

/* ================================ result ================================ */

static const char *setup_detail(uint32_t code) {
    switch (code) {
        case SC_REQUEST_MALFORMED: return "request malformed";
        case SC_REQUEST_BOUNDS: return "request bound out of range";
        case SC_PATH_NOT_ABSOLUTE: return "executable or working directory not absolute";
        case SC_ENV_DENIED: return "environment key matches a denied prefix";
        case SC_ENV_MALFORMED: return "environment entry malformed or duplicated";
        case SC_DIGEST_MISMATCH: return "executable digest mismatch";
        case SC_EXEC_OPEN: return "executable could not be opened";
        case SC_EXEC_NOT_REGULAR: return "executable is not a regular file";
        case SC_HARDENING_UNAVAILABLE: return "required Landlock scoping unavailable";
        case SC_SUBREAPER: return "subreaper could not be set or verified";
        case SC_RESOURCE: return "helper resource exhausted";
        case SC_LIFELINE_PROTOCOL: return "unexpected lifeline byte";
        case SC_WORKSPACE_CHANGED: return "working directory is not the approved directory";
        case SC_CHILD_SETSID: return "setsid failed";
        case SC_CHILD_SIGNALS: return "signal reset failed";
        case SC_CHILD_PDEATHSIG: return "parent-death signal failed";
        case SC_CHILD_RLIMIT: return "setrlimit failed";
        case SC_CHILD_CHDIR: return "working directory unusable";
        case SC_CHILD_DUP: return "stdio setup failed";
        case SC_CHILD_NO_NEW_PRIVS: return "no_new_privs failed";
        case SC_CHILD_LANDLOCK: return "Landlock restriction failed";
        case SC_CHILD_VERIFY: return "executable changed after verification";
        case SC_CHILD_EXEC: return "exec failed";
        default: return "";
    }
}

static void emit_result(struct run *r, int proof) {
    uint8_t b[512];
    memset(b, 0, sizeof b);
    b[0] = (uint8_t)r->outcome;
    b[1] = (uint8_t)proof;
    b[2] = (uint8_t)r->exit_kind;
    uint8_t flags = 0;
    if (r->detached) {
        flags |= RFLAG_DETACHED;
    }
    if (r->stdout_overflow) {
        flags |= RFLAG_STDOUT_OVERFLOW;
    }
    if (r->stderr_overflow) {
        flags |= RFLAG_STDERR_OVERFLOW;
    }
    if (sink_broken) {
        flags |= RFLAG_SINK_BROKEN;
    }
    b[3] = flags;
    put_u32(b + 4, (uint32_t)r->exit_value);
    put_u32(b + 8, r->setup_code);
    put_u32(b + 12, (uint32_t)r->err_no);
    put_u32(b + 16, r->seen);
    put_u32(b + 20, r->killed);
    put_u32(b + 24, r->rounds);
    put_u32(b + 28, r->pipes_left_open);
    put_u64(b + 32, r->stdout_total);
    put_u64(b + 40, r->stderr_total);
    uint64_t run_ns = r->spawned_at != 0 ? now_ns() - r->spawned_at : 0;
    put_u64(b + 48, run_ns);
    put_u64(b + 56, r->sweep_ns);
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_CHILDREN, &ru);
    put_u64(b + 64, (uint64_t)ru.ru_utime.tv_sec * 1000000ull + (uint64_t)ru.ru_utime.tv_usec);
    put_u64(b + 72, (uint64_t)ru.ru_stime.tv_sec * 1000000ull + (uint64_t)ru.ru_stime.tv_usec);
    put_u64(b + 80, (uint64_t)ru.ru_maxrss);
    const char *detail = setup_detail(r->setup_code);
    size_t dl = strlen(detail);
    put_u16(b + 88, (uint16_t)dl);
    memcpy(b + 90, detail, dl);
    emit(FRAME_RESULT, b, (uint32_t)(90 + dl));
}

/* Ends a run in which nothing was started: result, end frame, exit. */
static void finish_nothing_started(struct run *r, int outcome, uint32_t code, int err) {
    r->outcome = outcome;
    r->setup_code = code;
    r->err_no = err;
    emit_result(r, PROOF_NOTHING_STARTED);
    emit_end();
    exit(HELPER_EXIT_PROVEN);
}

/* ================================ the child ================================ */

static void child_fail(int errfd, uint32_t code, int err) {
    uint8_t b[8];
    put_u32(b, code);
    put_u32(b + 4, (uint32_t)err);
    ssize_t ignored = write(errfd, b, sizeof b);
    (void)ignored;
    _exit(127);
}

struct kernel_sigaction_dfl {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};

static void reset_signal_state(void) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int s = 1; s < NSIG; s++) {
        if (s == SIGKILL || s == SIGSTOP) {
            continue;
        }
        if (sigaction(s, &dfl, NULL) < 0) {
#if defined(__x86_64__) || defined(__aarch64__)
            /* glibc refuses its two internal signals; an inherited SIG_IGN on them would survive exec. */
            struct kernel_sigaction_dfl k = {0};
            syscall(SYS_rt_sigaction, s, &k, NULL, sizeof(uint64_t));
#endif
        }
    }
}

static void set_limit(int errfd, int resource, uint64_t value) {
    struct rlimit cur;
    if (getrlimit(resource, &cur) < 0) {
        child_fail(errfd, SC_CHILD_RLIMIT, errno);
    }
    rlim_t v = (rlim_t)value;
    struct rlimit want = {v, v};
    if (resource == RLIMIT_CPU) {
        /* Soft limit: SIGXCPU; one second later the hard limit: SIGKILL. */
        want.rlim_max = v + 1;
    }
    /* Never raise: an unprivileged caller cannot, and a lower host limit is stricter anyway. */
    if (cur.rlim_max != RLIM_INFINITY && want.rlim_max > cur.rlim_max) {
        want.rlim_max = cur.rlim_max;
    }
    if (want.rlim_cur > want.rlim_max) {
        want.rlim_cur = want.rlim_max;
    }
    if (setrlimit(resource, &want) < 0) {
        child_fail(errfd, SC_CHILD_RLIMIT, errno);
    }
}

static void child_main(struct run *r, int stdin_r, int stdout_w, int stderr_w, int err_w) {
    const struct request *rq = &r->rq;
    if (setsid() < 0) {
        child_fail(err_w, SC_CHILD_SETSID, errno);
    }
    reset_signal_state();
    sigset_t empty;
    sigemptyset(&empty);
    if (sigprocmask(SIG_SETMASK, &empty, NULL) < 0) {
        child_fail(err_w, SC_CHILD_SIGNALS, errno);
    }
    /* Reliable here: the helper is single-threaded, so the "parent thread" is the helper itself. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
        child_fail(err_w, SC_CHILD_PDEATHSIG, errno);
    }
    if (getppid() != self_pid) {
        _exit(127);
    }
    struct rlimit core0 = {0, 0};
    if (setrlimit(RLIMIT_CORE, &core0) < 0) {
        child_fail(err_w, SC_CHILD_RLIMIT, errno);
    }
    if (rq->nofile > 0) {
        set_limit(err_w, RLIMIT_NOFILE, rq->nofile);
    }
    if (rq->fsize_bytes > 0) {
        set_limit(err_w, RLIMIT_FSIZE, rq->fsize_bytes);
    }
    if (rq->cpu_s > 0) {
        set_limit(err_w, RLIMIT_CPU, rq->cpu_s);
    }
    if (rq->data_bytes > 0) {
        set_limit(err_w, RLIMIT_DATA, rq->data_bytes);
    }
    /* The directory the helper opened and checked, never the path looked up again. */
    if (fchdir(r->cwd_fd) < 0) {
        child_fail(err_w, SC_CHILD_CHDIR, errno);
    }
    if (dup2(stdin_r, 0) < 0 || dup2(stdout_w, 1) < 0 || dup2(stderr_w, 2) < 0) {
        child_fail(err_w, SC_CHILD_DUP, errno);
    }
    /* Everything above 2 closes at exec (the error pipe and the executable stay usable until then). */
    if (sys_close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0 && errno != ENOSYS && errno != EINVAL) {
        child_fail(err_w, SC_CHILD_DUP, errno);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        child_fail(err_w, SC_CHILD_NO_NEW_PRIVS, errno);
    }
    if (r->layer == LAYER_L1) {
        struct sg_landlock_ruleset_attr attr;
        memset(&attr, 0, sizeof attr);
        attr.scoped = SG_LANDLOCK_SCOPE_SIGNAL | SG_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
        int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
        if (rs < 0) {
            child_fail(err_w, SC_CHILD_LANDLOCK, errno);
        }
        if (syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
            child_fail(err_w, SC_CHILD_LANDLOCK, errno);
        }
        close(rs);
    }
    if (r->verification != VERIFY_NONE) {
        /* Narrows the window between verification and exec: any write since then changes ctime. */
        struct stat st;
        struct file_identity now_id;
        if (fstat(r->exe_fd, &st) < 0) {
            child_fail(err_w, SC_CHILD_VERIFY, errno);
        }
        identity_of(&st, &now_id);
        if (!identity_equal(&now_id, &r->exe_id)) {
            child_fail(err_w, SC_CHILD_VERIFY, 0);
        }
    }
    syscall(SYS_execveat, r->exe_fd, "", rq->argv, rq->envp, AT_EMPTY_PATH);
    if (errno == ENOSYS) {
        fexecve(r->exe_fd, rq->argv, rq->envp);
    }
    child_fail(err_w, SC_CHILD_EXEC, errno);
}

/* ================================ the sweep ================================ */

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
static bool sweep(struct run *r, uint64_t deadline) {
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

/* ================================ the run ================================ */

static void set_nonblock(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) {
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    }
}

static void close_fd(int *fd) {
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static void begin_end(struct run *r, int outcome) {
    if (r->outcome == 0) {
        r->outcome = outcome;
        uint8_t reason = (uint8_t)outcome;
        emit(FRAME_TERMINATING, &reason, 1);
    }
}

/* Relays one chunk of the child's stdout or stderr, enforcing its limit. Returns false on EOF. */
static bool relay(struct run *r, int *fd, bool is_stdout) {
    static uint8_t buf[READ_CHUNK];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) {
            return true;
        }
        close_fd(fd);
        return false;
    }
    if (n == 0) {
        close_fd(fd);
        return false;
    }
    uint64_t *total = is_stdout ? &r->stdout_total : &r->stderr_total;
    uint32_t max = is_stdout ? r->rq.stdout_max : r->rq.stderr_max;
    bool *overflow = is_stdout ? &r->stdout_overflow : &r->stderr_overflow;
    uint64_t before = *total;
    *total += (uint64_t)n;
    if (before < max) {
        uint64_t keep = (uint64_t)n;
        if (before + keep > max) {
            keep = max - before;
        }
        emit(is_stdout ? FRAME_STDOUT : FRAME_STDERR, buf, (uint32_t)keep);
    }
    if (*total > max && !*overflow) {
        *overflow = true;
    }
    return true;
}

static void check_child(struct run *r) {
    if (r->child_exited) {
        return;
    }
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)r->child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == r->child) {
        r->child_exited = true;
        if (si.si_code == CLD_EXITED) {
            r->exit_kind = EXIT_CODE;
            r->exit_value = si.si_status;
        } else {
            r->exit_kind = EXIT_SIGNAL;
            r->exit_value = si.si_status;
        }
    }
}

static bool lifeline_cancels(int fd) {
    uint8_t b[64];
    ssize_t n = read(fd, b, sizeof b);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return false;
    }
    /* 'C', EOF, an error or any unexpected byte: the JVM is gone or wants out. */
    return true;
}

static void drain_signalfd(int sigfd, bool *cancel) {
    struct signalfd_siginfo si;
    while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT || si.ssi_signo == SIGHUP) {
            *cancel = true;
        }
    }
}

static void spawned_frame(struct run *r) {
    uint8_t b[72];
    memset(b, 0, sizeof b);
    put_u32(b, (uint32_t)r->child);
    b[4] = (uint8_t)r->verification;
    put_u64(b + 8, r->exec_confirmed_ns - r->spawned_at);
    put_u64(b + 16, r->exe_id.dev);
    put_u64(b + 24, r->exe_id.ino);
    put_u64(b + 32, r->exe_id.size);
    put_u64(b + 40, (uint64_t)r->exe_id.mtime_s);
    put_u64(b + 48, (uint64_t)r->exe_id.mtime_ns);
    put_u64(b + 56, (uint64_t)r->exe_id.ctime_s);
    put_u64(b + 64, (uint64_t)r->exe_id.ctime_ns);
    emit(FRAME_SPAWNED, b, sizeof b);
}

static void run_child(struct run *r) {
    int in_p[2], out_p[2], err_p[2], exec_p[2];
    if (pipe2(in_p, O_CLOEXEC) < 0 || pipe2(out_p, O_CLOEXEC) < 0 || pipe2(err_p, O_CLOEXEC) < 0
            || pipe2(exec_p, O_CLOEXEC) < 0) {
        finish_nothing_started(r, OUT_SETUP_FAILED, SC_RESOURCE, errno);
    }
    r->spawned_at = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        finish_nothing_started(r, OUT_SETUP_FAILED, SC_RESOURCE, errno);
    }
    if (pid == 0) {
        close(in_p[1]);
        close(out_p[0]);
        close(err_p[0]);
        close(exec_p[0]);
        child_main(r, in_p[0], out_p[1], err_p[1], exec_p[1]);
        _exit(127);
    }
    r->child = pid;
    close(in_p[0]);
    close(out_p[1]);
    close(err_p[1]);
    close(exec_p[1]);
    close_fd(&r->exe_fd);
    close_fd(&r->cwd_fd);
    r->stdin_w = in_p[1];
    r->stdout_r = out_p[0];
    r->stderr_r = err_p[0];
    r->err_r = exec_p[0];
    set_nonblock(r->stdin_w);
    set_nonblock(r->stdout_r);
    set_nonblock(r->stderr_r);
    set_nonblock(r->err_r);
    r->child_pidfd = sys_pidfd_open(pid);
    if (r->rq.stdin_len == 0) {
        close_fd(&r->stdin_w);
    }

    uint64_t wall_deadline = r->spawned_at + (uint64_t)r->rq.wall_ms * 1000000ull;
    uint64_t grace_deadline = 0;
    bool terminating = false;
    bool lifeline_open = true;
    uint8_t errbuf[8];
    size_t errlen = 0;

    for (;;) {
        /* 1. Decide whether the run is over or must be ended. */
        check_child(r);
        if (r->child_exited && r->err_r < 0) {
            if (r->outcome == 0) {
                r->exited_on_its_own = true;
                r->outcome = r->exit_kind == EXIT_CODE ? OUT_EXITED : OUT_SIGNALED;
            }
            break;
        }
        /* A child that exited with its error pipe still open: the pipe reaches EOF now; read it first. */
        uint64_t t = now_ns();
        bool cancel = false;
        if (r->outcome == 0 && t >= wall_deadline) {
            begin_end(r, OUT_TIMED_OUT);
        } else if (r->outcome == 0 && r->stdout_overflow) {
            begin_end(r, OUT_STDOUT_LIMIT);
        } else if (r->outcome == 0 && r->stderr_overflow) {
            begin_end(r, OUT_STDERR_LIMIT);
        }
        if (r->outcome != 0 && !terminating && r->outcome != OUT_SPAWN_FAILED && r->outcome != OUT_SETUP_FAILED) {
            terminating = true;
            grace_deadline = t + (uint64_t)r->rq.grace_ms * 1000000ull;
            /* Courtesy SIGTERM to the script's group: its pgid stays reserved while we hold the zombie. */
            kill(-r->child, SIGTERM);
            if (r->child_pidfd >= 0) {
                sys_pidfd_send_signal(r->child_pidfd, SIGTERM);
            } else {
                kill(r->child, SIGTERM);
            }
            close_fd(&r->stdin_w);
        }
        if (terminating && t >= grace_deadline) {
            break;
        }

        /* 2. Wait for something to happen. */
        struct pollfd p[7];
        int np = 0;
        int i_life = -1, i_sig = -1, i_err = -1, i_out = -1, i_errout = -1, i_in = -1, i_pid = -1;
        if (lifeline_open) {
            i_life = np;
            p[np++] = (struct pollfd){0, POLLIN, 0};
        }
        i_sig = np;
        p[np++] = (struct pollfd){r->sigfd, POLLIN, 0};
        if (r->err_r >= 0) {
            i_err = np;
            p[np++] = (struct pollfd){r->err_r, POLLIN, 0};
        }
        if (r->stdout_r >= 0) {
            i_out = np;
            p[np++] = (struct pollfd){r->stdout_r, POLLIN, 0};
        }
        if (r->stderr_r >= 0) {
            i_errout = np;
            p[np++] = (struct pollfd){r->stderr_r, POLLIN, 0};
        }
        if (r->stdin_w >= 0) {
            i_in = np;
            p[np++] = (struct pollfd){r->stdin_w, POLLOUT, 0};
        }
        if (r->child_pidfd >= 0 && !r->child_exited) {
            i_pid = np;
            p[np++] = (struct pollfd){r->child_pidfd, POLLIN, 0};
        }
        uint64_t until = terminating ? grace_deadline : wall_deadline;
        t = now_ns();
        uint64_t left = until > t ? until - t : 0;
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        int rc = ppoll(p, (nfds_t)np, &ts, NULL);
        if (rc < 0 && errno != EINTR) {
            diag("ppoll", errno);
            sleep_ns(1000000);
            continue;
        }
        if (rc <= 0) {
            continue;
        }

        /* 3. Handle what happened. The error pipe first: it says whether exec happened at all. */
        if (i_err >= 0 && p[i_err].revents != 0) {
            ssize_t n = read(r->err_r, errbuf + errlen, sizeof errbuf - errlen);
            if (n > 0) {
                errlen += (size_t)n;
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(&r->err_r);
                if (errlen == sizeof errbuf) {
                    uint32_t code = get_u32(errbuf);
                    r->setup_code = code;
                    r->err_no = (int32_t)get_u32(errbuf + 4);
                    r->outcome = (code == SC_CHILD_EXEC || code == SC_CHILD_CHDIR) ? OUT_SPAWN_FAILED
                                                                                  : OUT_SETUP_FAILED;
                } else if (errlen == 0 && !r->exec_confirmed) {
                    /* EOF without a report: exec happened (the pipe was close-on-exec). */
                    r->exec_confirmed = true;
                    r->exec_confirmed_ns = now_ns();
                    spawned_frame(r);
                } else {
                    r->setup_code = SC_CHILD_EXEC;
                    r->outcome = OUT_SETUP_FAILED;
                }
            }
        }
        if (i_out >= 0 && p[i_out].revents != 0) {
            relay(r, &r->stdout_r, true);
        }
        if (i_errout >= 0 && p[i_errout].revents != 0) {
            relay(r, &r->stderr_r, false);
        }
        if (i_in >= 0 && p[i_in].revents != 0) {
            if (p[i_in].revents & (POLLERR | POLLHUP)) {
                close_fd(&r->stdin_w); /* the script closed its stdin; its own result stands */
            } else {
                ssize_t n = write(r->stdin_w, r->rq.stdin_data + r->stdin_off, r->rq.stdin_len - r->stdin_off);
                if (n > 0) {
                    r->stdin_off += (uint32_t)n;
                    if (r->stdin_off == r->rq.stdin_len) {
                        close_fd(&r->stdin_w);
                    }
                } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                    close_fd(&r->stdin_w);
                }
            }
        }
        if (i_life >= 0 && p[i_life].revents != 0) {
            if (lifeline_cancels(0)) {
                cancel = true;
                lifeline_open = false;
            }
        }
        if (p[i_sig].revents != 0) {
            drain_signalfd(r->sigfd, &cancel);
        }
        (void)i_pid; /* the pidfd only wakes the loop; check_child decides */
        if (cancel && r->outcome == 0) {
            begin_end(r, OUT_CANCELLED);
        }
    }
    close_fd(&r->stdin_w);

    /* 4. Kill and prove. Always runs, also after a normal exit: survivors get SIGKILL at once. */
    uint64_t sweep_start = now_ns();
    bool proven = sweep(r, sweep_start + (uint64_t)r->rq.kill_ms * 1000000ull);
    r->sweep_ns = now_ns() - sweep_start;
    if (r->outcome == 0) {
        r->outcome = r->exit_kind == EXIT_SIGNAL ? OUT_SIGNALED : OUT_EXITED;
    }

    /* 5. Drain what the dead tree left in the pipes, bounded: an outside holder may keep them open. */
    uint64_t drain_deadline = now_ns() + DRAIN_NS;
    while (r->stdout_r >= 0 || r->stderr_r >= 0) {
        struct pollfd p[2];
        int np = 0;
        int io = -1, ie = -1;
        if (r->stdout_r >= 0) {
            io = np;
            p[np++] = (struct pollfd){r->stdout_r, POLLIN, 0};
        }
        if (r->stderr_r >= 0) {
            ie = np;
            p[np++] = (struct pollfd){r->stderr_r, POLLIN, 0};
        }
        uint64_t t = now_ns();
        if (t >= drain_deadline) {
            break;
        }
        uint64_t left = drain_deadline - t;
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        int rc = ppoll(p, (nfds_t)np, &ts, NULL);
        if (rc <= 0) {
            continue;
        }
        if (io >= 0 && p[io].revents != 0) {
            relay(r, &r->stdout_r, true);
        }
        if (ie >= 0 && p[ie].revents != 0) {
            relay(r, &r->stderr_r, false);
        }
    }
    r->pipes_left_open = (uint32_t)((r->stdout_r >= 0) + (r->stderr_r >= 0));
    close_fd(&r->stdout_r);
    close_fd(&r->stderr_r);
    close_fd(&r->err_r);
    /* Output past a limit is never success, even when the excess only showed up in the drain. */
    if (r->outcome == OUT_EXITED || r->outcome == OUT_SIGNALED) {
        if (r->stdout_overflow) {
            r->outcome = OUT_STDOUT_LIMIT;
        } else if (r->stderr_overflow) {
            r->outcome = OUT_STDERR_LIMIT;
        }
    }
    emit_result(r, proven ? PROOF_ECHILD : PROOF_NONE);
    emit_end();
    exit(proven ? HELPER_EXIT_PROVEN : HELPER_EXIT_UNPROVEN);
}

/* Opens the executable once and verifies the bytes of this open file; exec uses exactly this file. */
static void open_and_verify(struct run *r, int *outcome, uint32_t *code, int *err) {
    r->exe_fd = open(r->rq.exe, O_RDONLY | O_CLOEXEC);
    if (r->exe_fd < 0) {
        *outcome = OUT_SPAWN_FAILED;
        *code = SC_EXEC_OPEN;
        *err = errno;
        return;
    }
    struct stat st;
    if (fstat(r->exe_fd, &st) < 0) {
        *outcome = OUT_SPAWN_FAILED;
        *code = SC_EXEC_OPEN;
        *err = errno;
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        *outcome = OUT_SPAWN_FAILED;
        *code = SC_EXEC_NOT_REGULAR;
        *err = EACCES;
        return;
    }
    identity_of(&st, &r->exe_id);
    r->verification = VERIFY_NONE;
    if (r->rq.verify_mode == VERIFY_NONE) {
        return;
    }
    struct file_identity claimed = {r->rq.id_dev, r->rq.id_ino, r->rq.id_size, r->rq.id_mtime_s, r->rq.id_mtime_ns,
            r->rq.id_ctime_s, r->rq.id_ctime_ns};
    if (r->rq.verify_mode == VERIFY_IDENTITY && identity_equal(&claimed, &r->exe_id)) {
        /* The same inode, unchanged since this helper last hashed it in full for the same digest. */
        r->verification = VERIFY_IDENTITY;
        return;
    }
    uint8_t got[32];
    if (!hash_fd(r->exe_fd, got)) {
        *outcome = OUT_SPAWN_FAILED;
        *code = SC_EXEC_OPEN;
        *err = errno;
        return;
    }
    struct stat after;
    struct file_identity after_id;
    if (fstat(r->exe_fd, &after) < 0) {
        *outcome = OUT_SPAWN_FAILED;
        *code = SC_EXEC_OPEN;
        *err = errno;
        return;
    }
    identity_of(&after, &after_id);
    if (!digest_equal(got, r->rq.digest) || !identity_equal(&after_id, &r->exe_id)) {
        *outcome = OUT_SETUP_FAILED;
        *code = SC_DIGEST_MISMATCH;
        *err = 0;
        return;
    }
    r->verification = VERIFY_FULL;
}

/*
 * Opens the working directory once (O_PATH: the same search-permission rule as chdir) and, when the
 * request binds it, refuses unless the directory opened has the bound device and inode. The child
 * fchdir()s to this descriptor, so a directory renamed away and replaced after this check is never
 * the one the script gets (docs/supervision.md, "Working directory").
 */
static void open_workspace(struct run *r, int *outcome, uint32_t *code, int *err) {
    r->cwd_fd = open(r->rq.cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (r->cwd_fd < 0) {
        *outcome = OUT_SPAWN_FAILED;
        *code = SC_CHILD_CHDIR;
        *err = errno;
        return;
    }
    struct stat st;
    if (fstat(r->cwd_fd, &st) < 0) {
        *outcome = OUT_SPAWN_FAILED;
        *code = SC_CHILD_CHDIR;
        *err = errno;
        return;
    }
    if (r->rq.cwd_mode == CWD_CHECK_IDENTITY
            && ((uint64_t)st.st_dev != r->rq.cwd_dev || (uint64_t)st.st_ino != r->rq.cwd_ino)) {
        *outcome = OUT_SETUP_FAILED;
        *code = SC_WORKSPACE_CHANGED;
        *err = 0;
    }
}

/* ================================ start-up ================================ */

static void read_boot_id(char out[36]) {
    memset(out, '0', 36);
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[64];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n >= 36) {
            memcpy(out, buf, 36);
        }
        close(fd);
    }
}

static void detect_features(void) {
    feat.bits = 0;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0) {
        int v = 0;
        if (prctl(PR_GET_CHILD_SUBREAPER, &v) == 0 && v == 1) {
            feat.bits |= FEAT_SUBREAPER;
        }
    }
    int fd = sys_pidfd_open(getpid());
    if (fd >= 0) {
        feat.bits |= FEAT_PIDFD;
        close(fd);
    }
    if (sys_close_range((unsigned)INT_MAX, (unsigned)INT_MAX, 0) == 0) {
        feat.bits |= FEAT_CLOSE_RANGE;
    }
    feat.landlock_abi = landlock_abi();
    if (feat.landlock_abi >= LANDLOCK_SCOPE_MIN_ABI) {
        feat.bits |= FEAT_LANDLOCK_SCOPE;
    }
    if (prctl(PR_GET_DUMPABLE) == 0) {
        feat.bits |= FEAT_NOT_DUMPABLE;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    if (access(path, R_OK) == 0) {
        feat.bits |= FEAT_PROC_CHILDREN;
    }
}

static int selftest(void) {
    static const struct {
        const char *msg;
        const char *hex;
    } vectors[] = {
            {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
            {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
            {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
            {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnop"
             "qrstnopqrstu",
                    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    int failures = 0;
    for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
        uint8_t out[32];
        sha256_ctx ctx;
        sha256_init(&ctx);
        /* Feed in uneven pieces so the block-boundary logic is exercised. */
        const char *m = vectors[v].msg;
        size_t len = strlen(m);
        for (size_t off = 0; off < len;) {
            size_t step = 1 + (off % 7);
            if (off + step > len) {
                step = len - off;
            }
            sha256_update(&ctx, m + off, step);
            off += step;
        }
        sha256_final(&ctx, out);
        char hex[65];
        for (int i = 0; i < 32; i++) {
            snprintf(hex + 2 * i, 3, "%02x", out[i]);
        }
        if (strcmp(hex, vectors[v].hex) != 0) {
            failures++;
        }
    }
    /* One million 'a' (FIPS 180-2 appendix B.3). */
    {
        static uint8_t block[1000];
        memset(block, 'a', sizeof block);
        sha256_ctx ctx;
        sha256_init(&ctx);
        for (int i = 0; i < 1000; i++) {
            sha256_update(&ctx, block, sizeof block);
        }
        uint8_t out[32];
        sha256_final(&ctx, out);
        static const uint8_t want[32] = {0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7,
                0xe2, 0x84, 0xd7, 0x3e, 0x67, 0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e, 0x04, 0x6d,
                0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0};
        if (memcmp(out, want, 32) != 0) {
            failures++;
        }
    }
    if (crc32c_update(0, "123456789", 9) != 0xE3069283u) {
        failures++;
    }
    /* Continuation must equal one pass. */
    if (crc32c_update(crc32c_update(0, "1234", 4), "56789", 5) != 0xE3069283u) {
        failures++;
    }
    return failures;
}

/*
 * Blocks until the JVM's seal byte: until then this process stays dumpable, so that the JVM may
 * check through /proc/<pid>/exe that the process runs the inode it verified. Then non-dumpable: a
 * same-user script cannot ptrace us or open /proc/<helper>/fd/1 to forge frames.
 */
static bool await_seal(void) {
    uint8_t b = 0;
    bool sealed = read_full(0, &b, 1) && b == SEAL_VERIFIED;
    prctl(PR_SET_DUMPABLE, 0);
    return sealed;
}

static int probe(void) {
    if (!await_seal()) {
        return 1;
    }
    detect_features();
    int st = selftest();
    printf("skillgate-supervisor %s\n", SV_VERSION);
    printf("protocol %d\n", SV_PROTOCOL);
    printf("subreaper %s\n", (feat.bits & FEAT_SUBREAPER) ? "yes" : "no");
    printf("pidfd %s\n", (feat.bits & FEAT_PIDFD) ? "yes" : "no");
    printf("close_range %s\n", (feat.bits & FEAT_CLOSE_RANGE) ? "yes" : "no");
    printf("proc_children %s\n", (feat.bits & FEAT_PROC_CHILDREN) ? "yes" : "no");
    printf("landlock_abi %d\n", feat.landlock_abi);
    printf("landlock_scope %s\n", (feat.bits & FEAT_LANDLOCK_SCOPE) ? "yes" : "no");
    printf("selftest %s\n", st == 0 ? "ok" : "failed");
    return fflush(stdout) == 0 && st == 0 ? 0 : 1;
}

static void harden_self(void) {
    /* Close whatever the launcher leaked beyond stdio before opening anything of our own. */
    if (sys_close_range(3, ~0U, 0) < 0) {
        for (int fd = 3; fd < 1024; fd++) {
            close(fd);
        }
    }
    struct rlimit core0 = {0, 0};
    setrlimit(RLIMIT_CORE, &core0);
    /* JDK 17 starts processes with SIGQUIT blocked; start from a known signal state. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) {
        if (s != SIGKILL && s != SIGSTOP) {
            sigaction(s, &dfl, NULL);
        }
    }
    /* SIGCHLD must stay SIG_DFL: an ignored SIGCHLD auto-reaps children and voids the proof. */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, NULL);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--probe") == 0) {
        return probe();
    }
    if (argc == 2 && strcmp(argv[1], "--selftest") == 0) {
        int failures = selftest();
        printf("selftest %s\n", failures == 0 ? "ok" : "failed");
        return failures == 0 ? 0 : 1;
    }
    if (argc != 1) {
        dprintf(2, "usage: skillgate-supervisor [--probe|--selftest]\n");
        return HELPER_EXIT_USAGE;
    }

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGCHLD);
    sigprocmask(SIG_SETMASK, &mask, NULL);
    harden_self();
    bool sealed = await_seal();
    self_pid = getpid();
    detect_features();

    static struct run r;
    memset(&r, 0, sizeof r);
    r.exe_fd = -1;
    r.cwd_fd = -1;
    r.child_pidfd = -1;
    r.stdin_w = r.stdout_r = r.stderr_r = r.err_r = -1;
    r.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (r.sigfd >= 0) {
        feat.bits |= FEAT_SIGNALFD;
    }

    /* Read the request completely; nothing is started before it is whole and checked. */
    uint8_t head[9];
    uint32_t setup = SC_NONE;
    uint8_t *body = NULL;
    if (!sealed) {
        setup = SC_REQUEST_MALFORMED;
    } else if (!read_full(0, head, sizeof head)) {
        setup = SC_REQUEST_MALFORMED;
    } else if (memcmp(head, REQ_MAGIC, 4) != 0 || head[4] != SV_PROTOCOL) {
        setup = SC_REQUEST_MALFORMED;
    } else {
        uint32_t len = get_u32(head + 5);
        if (len > REQ_MAX_BODY) {
            setup = SC_REQUEST_BOUNDS;
        } else if ((body = malloc(len == 0 ? 1 : len)) == NULL) {
            setup = SC_RESOURCE;
        } else if (!read_full(0, body, len)) {
            setup = SC_REQUEST_MALFORMED;
        } else {
            setup = (uint32_t)parse_request(body, len, &r.rq);
        }
    }

    /* Decide the hardening layer before saying hello, so the hello states what will apply. */
    r.layer = LAYER_L0;
    if (setup == SC_NONE) {
        bool scope = (feat.bits & FEAT_LANDLOCK_SCOPE) != 0;
        if (r.rq.policy == POLICY_REQUIRE && !scope) {
            setup = SC_HARDENING_UNAVAILABLE;
        } else if (r.rq.policy != POLICY_OFF && scope) {
            r.layer = LAYER_L1;
        }
    }
    if (setup == SC_NONE && ((feat.bits & FEAT_SUBREAPER) == 0 || r.sigfd < 0)) {
        setup = SC_SUBREAPER;
    }
    /* Verify before saying hello: a hello with a layer means "ready, waiting for GO". */
    int setup_outcome = OUT_SETUP_FAILED;
    int setup_errno = 0;
    if (setup == SC_NONE) {
        open_and_verify(&r, &setup_outcome, &setup, &setup_errno);
    }
    if (setup == SC_NONE) {
        open_workspace(&r, &setup_outcome, &setup, &setup_errno);
    }

    struct proc_stat me;
    memset(&me, 0, sizeof me);
    read_proc_stat("/proc/self/stat", &me);
    uint8_t hello[128];
    memset(hello, 0, sizeof hello);
    hello[0] = SV_PROTOCOL;
    hello[1] = (uint8_t)(setup == SC_NONE ? r.layer : LAYER_NONE);
    hello[2] = setup == SC_NONE ? r.rq.policy : 0;
    put_u32(hello + 4, (uint32_t)self_pid);
    put_u64(hello + 8, (uint64_t)me.starttime);
    put_u32(hello + 16, (uint32_t)feat.landlock_abi);
    put_u32(hello + 20, feat.bits);
    read_boot_id((char *)hello + 24);
    size_t vlen = strlen(SV_VERSION);
    put_u16(hello + 60, (uint16_t)vlen);
    memcpy(hello + 62, SV_VERSION, vlen);
    emit(FRAME_HELLO, hello, (uint32_t)(62 + vlen));
    if (setup != SC_NONE) {
        diag(setup_detail(setup), setup_errno);
        finish_nothing_started(&r, setup_outcome, setup, setup_errno);
    }

    /* Start barrier: the JVM records our identity durably, then sends GO. */
    uint64_t go_deadline = now_ns() + GO_WAIT_NS;
    for (;;) {
        struct pollfd p[2] = {{0, POLLIN, 0}, {r.sigfd, POLLIN, 0}};
        uint64_t t = now_ns();
        if (t >= go_deadline) {
            finish_nothing_started(&r, OUT_CANCELLED, SC_NONE, 0);
        }
        uint64_t left = go_deadline - t;
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        int rc = ppoll(p, 2, &ts, NULL);
        if (rc <= 0) {
            continue;
        }
        if (p[1].revents != 0) {
            bool cancel = false;
            drain_signalfd(r.sigfd, &cancel);
            if (cancel) {
                finish_nothing_started(&r, OUT_CANCELLED, SC_NONE, 0);
            }
        }
        if (p[0].revents != 0) {
            uint8_t b;
            ssize_t n = read(0, &b, 1);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
                continue;
            }
            if (n == 1 && b == LIFELINE_GO) {
                break;
            }
            if (n == 1 && b != LIFELINE_CANCEL) {
                finish_nothing_started(&r, OUT_SETUP_FAILED, SC_LIFELINE_PROTOCOL, 0);
            }
            finish_nothing_started(&r, OUT_CANCELLED, SC_NONE, 0);
        }
    }
    set_nonblock(0);
    run_child(&r);
    return HELPER_EXIT_INTERNAL;
}
