/* The run: relay output and stdin, enforce deadlines and limits, end, sweep, report. */
#include "helper.h"

void set_nonblock(int fd) {
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
        /* Under a namespace's init, the script's own exit is what init recorded. */
        procns_settle(r);
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

void drain_signalfd(int sigfd, bool *cancel) {
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

void run_child(struct run *r) {
    int in_p[2], out_p[2], err_p[2], exec_p[2];
    if (pipe2(in_p, O_CLOEXEC) < 0 || pipe2(out_p, O_CLOEXEC) < 0 || pipe2(err_p, O_CLOEXEC) < 0
            || pipe2(exec_p, O_CLOEXEC) < 0) {
        finish_nothing_started(r, OUT_SETUP_FAILED, SC_RESOURCE, errno);
    }
    r->spawned_at = now_ns();
    pid_t pid;
    if (r->parts & CONF_PROCESS) {
        /* L2 process reach: the child is the namespace's init, which starts the script (procns.c). */
        pid = procns_spawn(r, in_p, out_p, err_p, exec_p);
    } else {
        pid = (r->parts & CONF_CGROUP) ? cgroup_clone(r, 0) : fork();
        if (pid == 0) {
            close(in_p[1]);
            close(out_p[0]);
            close(err_p[0]);
            close(exec_p[0]);
            child_main(r, in_p[0], out_p[1], err_p[1], exec_p[1], self_pid);
            _exit(127);
        }
    }
    if (pid < 0) {
        /* The hello announced the namespace: failing to create it fails the run, nothing started. */
        int e = errno;
        finish_nothing_started(r, OUT_SETUP_FAILED,
                (r->parts & CONF_CGROUP) ? SC_CHILD_CGROUP : (r->parts & CONF_PROCESS) ? SC_CHILD_NAMESPACE : SC_RESOURCE,
                e);
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
    uint64_t kill_deadline = sweep_start + (uint64_t)r->rq.kill_ms * 1000000ull;
    /* With a run cgroup, the kernel kills everything in it first, descendant or not (cgroup.c). */
    cgroup_kill(r);
    bool proven = sweep(r, kill_deadline);
    /* The additional proof: the run's cgroup reports "populated 0"; without it, nothing is proven. */
    if (r->cg_fd >= 0 && !cgroup_settle(r, kill_deadline)) {
        proven = false;
    }
    r->sweep_ns = now_ns() - sweep_start;
    procns_account(r);
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
