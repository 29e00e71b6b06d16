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

#include "helper.h"

struct features feat;
pid_t self_pid;

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
    /* Tried, not guessed: sysctls, LSMs and containers can each forbid user namespaces or a /proc mount. */
    if (procns_available()) {
        feat.bits |= FEAT_PID_NAMESPACE;
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
    printf("landlock_fs %s\n", feat.landlock_abi >= LANDLOCK_FS_MIN_ABI ? "yes" : "no");
    printf("landlock_net %s\n", feat.landlock_abi >= LANDLOCK_NET_MIN_ABI ? "yes" : "no");
    printf("pid_namespace %s\n", (feat.bits & FEAT_PID_NAMESPACE) ? "yes" : "no");
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
    r.devnull_fd = -1;
    r.cg_parent_fd = -1;
    r.cg_fd = -1;
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
    /* L2: each part the request asks for, where the kernel offers it; under REQUIRE all or nothing. */
    r.parts = 0;
    int setup_outcome = OUT_SETUP_FAILED;
    int setup_errno = 0;
    uint32_t offered = confine_available();
    uint32_t cg_wanted = cgroup_wanted(&r.rq);
    if (setup == SC_NONE && r.rq.l2_policy == POLICY_OFF && r.rq.required != 0) {
        setup = SC_CONFINEMENT_UNAVAILABLE;
    }
    /* Resources: only in a cgroup the host delegated and named; its child is created now, so the
       hello can say which limits really apply (and is removed again if nothing runs). */
    if (setup == SC_NONE && r.rq.l2_policy != POLICY_OFF && cg_wanted != 0) {
        offered |= cgroup_prepare(&r, cg_wanted, &setup, &setup_errno);
    }
    /* A limit is only as good as the script's inability to rewrite it: the run's cgroup files belong
       to this user, so without the Landlock write allow-list (which keeps the script out of cgroupfs)
       the limits are written but never reported as enforced. */
    uint32_t limits = CONF_MEMORY | CONF_PIDS | CONF_CPU;
    bool guarded = r.rq.fs_mode == FS_ALLOW_LIST && (offered & CONF_FS_WRITES) != 0;
    uint32_t controllers_missing = cg_wanted & limits & ~offered;
    if (!guarded) {
        offered &= ~limits;
    }
    /* What the approval showed as enforced is enforced, or nothing runs — whatever the policy. */
    if (setup == SC_NONE && (r.rq.required & ~offered) != 0) {
        uint32_t missing = r.rq.required & ~offered;
        setup = (missing & controllers_missing) ? cgroup_missing_code(missing & controllers_missing)
                : (missing & limits)            ? SC_CGROUP_UNGUARDED
                                                : SC_CONFINEMENT_UNAVAILABLE;
    }
    if (setup == SC_NONE && r.rq.l2_policy != POLICY_OFF) {
        uint32_t wanted = CONF_PROCESS | cg_wanted;
        if (r.rq.fs_mode == FS_ALLOW_LIST) {
            wanted |= CONF_FS_WRITES;
        }
        if (r.rq.net_mode == NET_TCP_ALLOW_LIST) {
            wanted |= CONF_NET_TCP;
        }
        uint32_t missing = wanted & ~offered;
        if (r.rq.l2_policy == POLICY_REQUIRE && missing != 0) {
            setup = (missing & controllers_missing) ? cgroup_missing_code(missing & controllers_missing)
                    : (missing & limits)            ? SC_CGROUP_UNGUARDED
                                                    : SC_CONFINEMENT_UNAVAILABLE;
        } else {
            r.parts = wanted & offered;
        }
    }
    if (setup == SC_NONE && r.layer == LAYER_L1 && r.parts != 0) {
        r.layer = LAYER_L2;
    }
    if (setup == SC_NONE && ((feat.bits & FEAT_SUBREAPER) == 0 || r.sigfd < 0)) {
        setup = SC_SUBREAPER;
    }
    /* Verify before saying hello: a hello with a layer means "ready, waiting for GO". */
    if (setup == SC_NONE) {
        open_and_verify(&r, &setup_outcome, &setup, &setup_errno);
    }
    if (setup == SC_NONE) {
        open_workspace(&r, &setup_outcome, &setup, &setup_errno);
    }
    if (setup == SC_NONE) {
        open_write_dirs(&r, &setup_outcome, &setup, &setup_errno);
    }

    struct proc_stat me;
    memset(&me, 0, sizeof me);
    read_proc_stat("/proc/self/stat", &me);
    uint8_t hello[128];
    memset(hello, 0, sizeof hello);
    hello[0] = SV_PROTOCOL;
    hello[1] = (uint8_t)(setup == SC_NONE ? r.layer : LAYER_NONE);
    hello[2] = setup == SC_NONE ? r.rq.policy : 0;
    hello[3] = (uint8_t)(setup == SC_NONE ? r.parts : 0);
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
