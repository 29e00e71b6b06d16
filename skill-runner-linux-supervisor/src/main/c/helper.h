/*
 * Internal declarations shared by the helper's source files (one single-threaded binary).
 * Not a sandbox: see docs/supervision.md.
 */
#ifndef SKILLGATE_HELPER_H
#define SKILLGATE_HELPER_H

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
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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
#define LANDLOCK_FS_MIN_ABI 3
#define LANDLOCK_NET_MIN_ABI 4
#define GO_WAIT_NS (120ull * 1000000000ull)
#define DRAIN_NS (100ull * 1000000ull)
#define READ_CHUNK 65536


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
    /* confinement section (L2) */
    uint8_t l2_policy;
    uint8_t fs_mode;
    uint8_t net_mode;
    uint8_t required; /* CONF_* parts the approval showed as enforced: applied or refused */
    uint32_t nwrite;
    char *write_dirs[REQ_MAX_WRITABLE];
    uint32_t nports;
    uint16_t ports[REQ_MAX_PORTS];
    /* resources (protocol 4): the host's delegated cgroup v2 directory ("" = none) and the limits */
    char *cgroup_dir;
    uint64_t memory_max; /* bytes, 0 = not asked */
    uint32_t pids_max;   /* 0 = not asked */
    uint32_t cpu_quota_us; /* per REQ_CPU_PERIOD_US, 0 = not asked */
};

/* Fields of /proc/<pid>/stat after the command name, which may itself contain ") ". */
struct proc_stat {
    char state;
    long ppid;
    long pgrp;
    long session;
    unsigned long long starttime;
};


struct file_identity {
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
};

struct features {
    uint32_t bits;
    int landlock_abi;
};

/* Shared with the PID namespace's init (MAP_SHARED, before clone); the script loses it at exec. */
struct ns_page {
    volatile uint32_t reaped;      /* processes init reaped, the script included */
    volatile uint32_t alive;       /* live processes besides init at init's last census */
    volatile uint32_t detached;    /* one left the script's session or group, or outlived it */
    volatile uint32_t script_done; /* init reaped the script */
    volatile int32_t script_status;
};

struct run {
    struct request rq;
    int layer;
    uint32_t parts;                   /* L2 parts that apply (CONF_*), announced in the hello */
    int write_fds[REQ_MAX_WRITABLE]; /* O_PATH descriptors of the writable directories */
    int devnull_fd;
    int cg_parent_fd; /* the delegated cgroup directory, opened once; -1 without one */
    int cg_fd;        /* the run's own child cgroup below it; -1 without one */
    char cg_name[64];
    bool cg_empty;    /* cgroup.events said "populated 0" after cgroup.kill */
    struct ns_page *ns; /* non-NULL when the script runs in its own PID namespace */
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

extern struct features feat;
extern pid_t self_pid;
extern uint32_t out_crc;
extern bool sink_broken;

/* util.c */
uint64_t now_ns(void);
void put_u16(uint8_t *p, uint16_t v);
void put_u32(uint8_t *p, uint32_t v);
void put_u64(uint8_t *p, uint64_t v);
uint32_t get_u32(const uint8_t *p);
uint64_t get_u64(const uint8_t *p);
void diag(const char *msg, int err);
bool write_all(int fd, const void *buf, size_t len);
bool read_full(int fd, void *buf, size_t len);
void sleep_ns(uint64_t ns);
int sys_pidfd_open(pid_t pid);
int sys_pidfd_send_signal(int pidfd, int sig);
int sys_close_range(unsigned first, unsigned last, unsigned flags);
int landlock_abi(void);
bool read_proc_stat(const char *path, struct proc_stat *out);
/* frames.c */
void emit(uint8_t type, const void *payload, uint32_t len);
void emit_end(void);
const char *setup_detail(uint32_t code);
void emit_result(struct run *r, int proof);
void finish_nothing_started(struct run *r, int outcome, uint32_t code, int err);
/* request.c */
int parse_request(const uint8_t *body, size_t len, struct request *rq);
/* verify.c */
void identity_of(const struct stat *st, struct file_identity *id);
bool identity_equal(const struct file_identity *a, const struct file_identity *b);
void open_and_verify(struct run *r, int *outcome, uint32_t *code, int *err);
void open_workspace(struct run *r, int *outcome, uint32_t *code, int *err);
/* landlock.c */
int landlock_abi(void);
uint32_t confine_available(void);
void open_write_dirs(struct run *r, int *outcome, uint32_t *code, int *err);
int landlock_apply(const struct run *r);
/* cgroup.c */
uint32_t cgroup_wanted(const struct request *rq);
uint32_t cgroup_prepare(struct run *r, uint32_t wanted, uint32_t *code, int *err);
uint32_t cgroup_missing_code(uint32_t missing);
pid_t cgroup_clone(const struct run *r, uint64_t flags);
void cgroup_kill(struct run *r);
bool cgroup_settle(struct run *r, uint64_t deadline);
void cgroup_release(struct run *r);
/* child.c */
void child_main(struct run *r, int stdin_r, int stdout_w, int stderr_w, int err_w, pid_t parent);
void child_fail(int errfd, uint32_t code, int err);
/* procns.c */
bool procns_available(void);
pid_t procns_spawn(struct run *r, int in_p[2], int out_p[2], int err_p[2], int exec_p[2]);
void procns_settle(struct run *r);
void procns_account(struct run *r);
/* sweep.c */
bool sweep(struct run *r, uint64_t deadline);
/* run.c */
void set_nonblock(int fd);
void drain_signalfd(int sigfd, bool *cancel);
void run_child(struct run *r);

#endif
