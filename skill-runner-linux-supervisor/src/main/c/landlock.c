/*
 * Landlock, applied by the child to itself just before exec: L1's scoping (signals, abstract unix
 * sockets) and L2's write allow-list and TCP rules. Reads, execution, UDP and named unix sockets
 * are never restricted here; docs/supervision.md ("L2") lists what stays open.
 */
#include "helper.h"

#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif

/* Access rights (uapi/linux/landlock.h), defined here because distribution headers may predate them. */
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

/* Every right that changes the file system; ABI 3 is the first where truncate(2) is among them. */
#define LL_FS_WRITES                                                                                          \
    (LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG \
            | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE)
/* What a rule on a single file (not a directory) may carry. */
#define LL_FS_FILE_WRITES (LL_FS_WRITE_FILE | LL_FS_TRUNCATE)

struct sg_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct sg_net_port {
    uint64_t allowed_access;
    uint64_t port;
};

int landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, SG_LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? -1 : (int)abi;
}

uint32_t confine_available(void) {
    uint32_t parts = 0;
    if (feat.landlock_abi >= LANDLOCK_FS_MIN_ABI) {
        parts |= CONF_FS_WRITES;
    }
    if (feat.landlock_abi >= LANDLOCK_NET_MIN_ABI) {
        parts |= CONF_NET_TCP;
    }
    if (feat.bits & FEAT_PID_NAMESPACE) {
        parts |= CONF_PROCESS;
    }
    return parts;
}

/*
 * Opens every writable directory of the request once, without following a final link, and checks
 * that it is a directory; the child adds its rules from these descriptors, never from the paths.
 * /dev/null is opened too: Node opens it for stdio "ignore".
 */
void open_write_dirs(struct run *r, int *outcome, uint32_t *code, int *err) {
    r->devnull_fd = -1;
    for (uint32_t i = 0; i < r->rq.nwrite; i++) {
        r->write_fds[i] = -1;
    }
    if ((r->parts & CONF_FS_WRITES) == 0) {
        return;
    }
    for (uint32_t i = 0; i < r->rq.nwrite; i++) {
        int fd = open(r->rq.write_dirs[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
            *outcome = OUT_SETUP_FAILED;
            *code = SC_CONFINEMENT_PATH;
            *err = fd < 0 ? errno : ENOTDIR;
            if (fd >= 0) {
                close(fd);
            }
            return;
        }
        r->write_fds[i] = fd;
    }
    int fd = open("/dev/null", O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
        r->devnull_fd = fd;
    } else if (fd >= 0) {
        close(fd);
    }
}

/* In the child, after NO_NEW_PRIVS: one Landlock domain with what the hello announced. 0 or errno. */
int landlock_apply(const struct run *r) {
    bool scope = r->layer >= LAYER_L1;
    bool fs = (r->parts & CONF_FS_WRITES) != 0;
    bool net = (r->parts & CONF_NET_TCP) != 0;
    if (!scope && !fs && !net) {
        return 0;
    }
    struct sg_landlock_ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    if (scope) {
        attr.scoped = SG_LANDLOCK_SCOPE_SIGNAL | SG_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
    }
    if (fs) {
        attr.handled_access_fs = LL_FS_WRITES;
    }
    if (net) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    }
    /* The attribute's size says which fields the kernel must honour; ABI < 6 has no 'scoped'. */
    size_t size = scope ? sizeof attr : offsetof(struct sg_landlock_ruleset_attr, scoped);
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0) {
        return errno;
    }
    int rc = 0;
    if (fs) {
        for (uint32_t i = 0; i < r->rq.nwrite && rc == 0; i++) {
            struct sg_path_beneath pb = {LL_FS_WRITES, r->write_fds[i]};
            if (syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
                rc = errno;
            }
        }
        if (rc == 0 && r->devnull_fd >= 0) {
            struct sg_path_beneath pb = {LL_FS_FILE_WRITES, r->devnull_fd};
            if (syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
                rc = errno;
            }
        }
    }
    if (net) {
        for (uint32_t i = 0; i < r->rq.nports && rc == 0; i++) {
            struct sg_net_port np = {LL_NET_CONNECT_TCP, r->rq.ports[i]};
            if (syscall(SYS_landlock_add_rule, rs, LL_RULE_NET_PORT, &np, 0) < 0) {
                rc = errno;
            }
        }
    }
    if (rc == 0 && syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
        rc = errno;
    }
    close(rs);
    return rc;
}
