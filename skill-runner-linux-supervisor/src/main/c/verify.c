/* The executable and the working directory: opened once, verified on the open file. */
#include "helper.h"

void identity_of(const struct stat *st, struct file_identity *id) {
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_s = (int64_t)st->st_mtim.tv_sec;
    id->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
    id->ctime_s = (int64_t)st->st_ctim.tv_sec;
    id->ctime_ns = (int64_t)st->st_ctim.tv_nsec;
}

bool identity_equal(const struct file_identity *a, const struct file_identity *b) {
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

/* Opens the executable once and verifies the bytes of this open file; exec uses exactly this file. */
void open_and_verify(struct run *r, int *outcome, uint32_t *code, int *err) {
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
void open_workspace(struct run *r, int *outcome, uint32_t *code, int *err) {
    r->cwd_fd = open(r->rq.cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (r->cwd_fd < 0 && r->rq.cwd_mode == CWD_CHECK_IDENTITY && (errno == ENOENT || errno == ENOTDIR)) {
        /* The bound directory is no longer at its path (renamed away, not yet or never replaced):
         * the same refusal as a replacement, not a spawn failure. */
        *outcome = OUT_SETUP_FAILED;
        *code = SC_WORKSPACE_CHANGED;
        *err = 0;
        return;
    }
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
