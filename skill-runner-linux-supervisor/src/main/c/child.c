/* The child between fork and exec: session, signals, rlimits, directory, stdio, hardening, exec by fd. */
#include "helper.h"

void child_fail(int errfd, uint32_t code, int err) {
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

/* parent: the pid the child must see as its parent (the helper, or 1 under its namespace's init). */
void child_main(struct run *r, int stdin_r, int stdout_w, int stderr_w, int err_w, pid_t parent) {
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
    /* Reliable here: the helper (or the namespace's init) is single-threaded, so the "parent thread"
       is the parent itself. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
        child_fail(err_w, SC_CHILD_PDEATHSIG, errno);
    }
    if (getppid() != parent) {
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
    int ll = landlock_apply(r);
    if (ll != 0) {
        child_fail(err_w, SC_CHILD_LANDLOCK, ll);
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
