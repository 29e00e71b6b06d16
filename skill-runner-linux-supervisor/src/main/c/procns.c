/*
 * Process reach (L2): the script runs in its own user, PID and mount namespace, with a private
 * /proc. The helper's child is the namespace's init — helper code, never the script — which starts
 * the script as PID 2, forwards the helper's SIGTERM, reaps orphans and counts what it saw. From
 * inside, the helper, the JVM and every other process of the host have no PID the script can name:
 * kill, prlimit, setpriority, sched_setaffinity and ptrace of them fail with ESRCH.
 *
 * The cleanup proof is unchanged and stronger: every process of the run is in the namespace; when
 * its init dies the kernel SIGKILLs all of them and init only becomes a zombie once they are gone
 * (zap_pid_ns_processes), so the helper's waitpid(-1) reporting ECHILD after it reaped init still
 * means no descendant is left. PR_SET_PDEATHSIG on init also takes the whole run down with the
 * helper if the helper is killed from outside. docs/supervision.md ("L2, process reach").
 */
#include "helper.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>

#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif
#ifndef CLONE_NEWPID
#define CLONE_NEWPID 0x20000000
#endif
#ifndef CLONE_NEWNS
#define CLONE_NEWNS 0x00020000
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS)
#define SCRIPT_NS_PID 2

static bool write_text(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    bool ok = write_all(fd, text, strlen(text));
    int saved = errno;
    close(fd);
    errno = saved;
    return ok;
}

/*
 * Maps the helper's own uid and gid (nothing else), then a private /proc over the host's; with a run
 * cgroup, a cgroup namespace rooted at it (init is already inside it): the kernel then refuses the
 * script every move to a cgroup outside its run (cgroup.procs writes outside the root: ENOENT). 0 or errno.
 */
static int enter_namespace(uid_t uid, gid_t gid, bool cgroup_root) {
    char map[64];
    if (!write_text("/proc/self/setgroups", "deny")) {
        return errno;
    }
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    if (!write_text("/proc/self/uid_map", map)) {
        return errno;
    }
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    if (!write_text("/proc/self/gid_map", map)) {
        return errno;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        return errno;
    }
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
        return errno;
    }
    if (cgroup_root && unshare(CLONE_NEWCGROUP) < 0) {
        return errno;
    }
    return 0;
}

static pid_t clone_namespace(void) {
    /* Raw clone with a NULL stack behaves like fork; the argument order of the rest differs by
       architecture, but they are all NULL. */
    return (pid_t)syscall(SYS_clone, NS_FLAGS | SIGCHLD, NULL, NULL, NULL, NULL);
}

bool procns_available(void) {
    uid_t uid = getuid();
    gid_t gid = getgid();
    pid_t pid = clone_namespace();
    if (pid < 0) {
        return false;
    }
    if (pid == 0) {
        _exit(enter_namespace(uid, gid, false) == 0 ? 0 : 1);
    }
    int status = 0;
    while (waitpid(pid, &status, __WALL) < 0) {
        if (errno != EINTR) {
            return false;
        }
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Counts the live processes of the namespace other than init (its private /proc) and notes one
 * that left the script's session or process group, or, once the script is gone, any that outlived it.
 */
static void census(struct ns_page *page, bool script_gone, bool terminating) {
    DIR *d = opendir("/proc");
    if (d == NULL) {
        return;
    }
    uint32_t alive = 0;
    bool detached = false;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 1) {
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        struct proc_stat ps;
        if (!read_proc_stat(path, &ps) || ps.state == 'Z') {
            continue;
        }
        alive++;
        if (pid != SCRIPT_NS_PID && (ps.session != SCRIPT_NS_PID || ps.pgrp != SCRIPT_NS_PID)) {
            detached = true;
        }
    }
    closedir(d);
    if (script_gone && !terminating && alive > 0) {
        detached = true;
    }
    page->alive = alive;
    if (detached) {
        page->detached = 1;
    }
}

/* PID 1 of the namespace: signals only through sigwaitinfo, so nothing but SIGKILL from outside ends it. */
static void init_loop(struct ns_page *page) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    sigset_t wait_for;
    sigemptyset(&wait_for);
    sigaddset(&wait_for, SIGCHLD);
    sigaddset(&wait_for, SIGTERM);
    bool terminating = false;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int sig = sigwaitinfo(&wait_for, &si);
        /* si_pid 0: sent from outside the namespace (the helper's courtesy SIGTERM); the script's own
           signals to its init are not a request to end the run. */
        if (sig == SIGTERM && si.si_pid == 0 && !terminating && !page->script_done) {
            terminating = true;
            census(page, false, false);
            kill(-SCRIPT_NS_PID, SIGTERM);
            kill(SCRIPT_NS_PID, SIGTERM);
        }
        for (;;) {
            int status;
            pid_t got = waitpid(-1, &status, WNOHANG | __WALL);
            if (got > 0) {
                page->reaped++;
                if (got == SCRIPT_NS_PID) {
                    page->script_status = status;
                    page->script_done = 1;
                }
                continue;
            }
            if (got < 0 && errno == EINTR) {
                continue;
            }
            break;
        }
        if (page->script_done) {
            census(page, true, terminating);
            /* Our exit makes the kernel SIGKILL whatever is left and wait for all of it. */
            _exit(0);
        }
    }
}

static void init_main(struct run *r, uid_t uid, gid_t gid, int stdin_r, int stdout_w, int stderr_w, int err_w) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
        child_fail(err_w, SC_CHILD_PDEATHSIG, errno);
    }
    /* Our parent is outside the namespace (getppid() is 0 here); the helper is alive exactly while
       the read end of the error pipe is open, which poll reports as POLLERR on this end. */
    struct pollfd pf = {err_w, 0, 0};
    if (poll(&pf, 1, 0) < 0 || (pf.revents & POLLERR) != 0) {
        _exit(127);
    }
    int err = enter_namespace(uid, gid, (r->parts & CONF_CGROUP) != 0);
    if (err != 0) {
        child_fail(err_w, SC_CHILD_NAMESPACE, err);
    }
    pid_t script = fork();
    if (script < 0) {
        child_fail(err_w, SC_CHILD_NAMESPACE, errno);
    }
    if (script == 0) {
        child_main(r, stdin_r, stdout_w, stderr_w, err_w, 1);
        _exit(127);
    }
    /* Init keeps nothing of the script's: exec is confirmed when the last write end of the error
       pipe closes, and the script's pipes reach EOF only without us. */
    close(stdin_r);
    close(stdout_w);
    close(stderr_w);
    close(err_w);
    close(r->exe_fd);
    close(r->cwd_fd);
    for (uint32_t i = 0; i < r->rq.nwrite; i++) {
        if (r->write_fds[i] >= 0) {
            close(r->write_fds[i]);
        }
    }
    if (r->devnull_fd >= 0) {
        close(r->devnull_fd);
    }
    if (r->cg_fd >= 0) {
        close(r->cg_fd);
    }
    if (r->cg_parent_fd >= 0) {
        close(r->cg_parent_fd);
    }
    if (r->sigfd >= 0) {
        close(r->sigfd);
    }
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        close(null);
    }
    init_loop(r->ns);
}

pid_t procns_spawn(struct run *r, int in_p[2], int out_p[2], int err_p[2], int exec_p[2]) {
    void *page = mmap(NULL, sizeof(struct ns_page), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        return -1;
    }
    r->ns = page;
    memset(r->ns, 0, sizeof *r->ns);
    uid_t uid = getuid();
    gid_t gid = getgid();
    /* With a run cgroup, init is created inside it, so the script and all it starts are too. */
    pid_t pid = (r->parts & CONF_CGROUP) ? cgroup_clone(r, NS_FLAGS) : clone_namespace();
    if (pid == 0) {
        close(in_p[1]);
        close(out_p[0]);
        close(err_p[0]);
        close(exec_p[0]);
        init_main(r, uid, gid, in_p[0], out_p[1], err_p[1], exec_p[1]);
        _exit(127);
    }
    return pid;
}

void procns_settle(struct run *r) {
    if (r->ns == NULL) {
        return;
    }
    if (r->ns->script_done) {
        int st = r->ns->script_status;
        if (WIFEXITED(st)) {
            r->exit_kind = EXIT_CODE;
            r->exit_value = WEXITSTATUS(st);
        } else if (WIFSIGNALED(st)) {
            r->exit_kind = EXIT_SIGNAL;
            r->exit_value = WTERMSIG(st);
        }
    }
}

void procns_account(struct run *r) {
    if (r->ns == NULL) {
        return;
    }
    /* The helper itself only ever saw init; the run's processes are what init reaped and what was
       still alive at its last census, which the kernel killed when init died. */
    uint32_t seen = r->ns->reaped + r->ns->alive;
    r->seen = seen > 0 ? seen : 1;
    r->killed = r->ns->alive;
    if (r->ns->detached) {
        r->detached = true;
    }
}
