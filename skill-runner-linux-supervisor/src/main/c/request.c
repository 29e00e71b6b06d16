/* The request: bounded parsing and checking of every field before anything starts. */
#include "helper.h"

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
int parse_request(const uint8_t *body, size_t len, struct request *rq) {
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
    /* The confinement section (protocol 3): policy, modes, writable directories, TCP ports. */
    rq->l2_policy = cur_u8(&c);
    rq->fs_mode = cur_u8(&c);
    rq->net_mode = cur_u8(&c);
    rq->required = cur_u8(&c);
    uint32_t nwrite = cur_u32(&c);
    if (c.bad) {
        return SC_REQUEST_MALFORMED;
    }
    if (nwrite > REQ_MAX_WRITABLE) {
        return SC_REQUEST_BOUNDS;
    }
    rq->nwrite = nwrite;
    for (uint32_t i = 0; i < nwrite && !c.bad; i++) {
        rq->write_dirs[i] = cur_string(&c, REQ_MAX_PATH, &strings);
    }
    uint32_t nports = cur_u32(&c);
    if (c.bad) {
        return SC_REQUEST_MALFORMED;
    }
    if (nports > REQ_MAX_PORTS) {
        return SC_REQUEST_BOUNDS;
    }
    rq->nports = nports;
    for (uint32_t i = 0; i < nports && !c.bad; i++) {
        uint8_t b[2] = {0, 0};
        cur_bytes(&c, b, 2);
        rq->ports[i] = (uint16_t)((b[0] << 8) | b[1]);
    }
    /* Resources (protocol 4): the host's delegated cgroup ("" = none) and the limits (0 = not asked). */
    rq->cgroup_dir = cur_string(&c, REQ_MAX_PATH, &strings);
    rq->memory_max = cur_u64(&c);
    rq->pids_max = cur_u32(&c);
    rq->cpu_quota_us = cur_u32(&c);
    if (c.bad || c.left != 0 || reserved != 0) {
        return SC_REQUEST_MALFORMED;
    }
    if (rq->policy > POLICY_REQUIRE || rq->verify_mode > VERIFY_IDENTITY || rq->cwd_mode > CWD_CHECK_IDENTITY
            || rq->l2_policy > POLICY_REQUIRE || rq->fs_mode > FS_ALLOW_LIST || rq->net_mode > NET_TCP_ALLOW_LIST) {
        return SC_REQUEST_MALFORMED;
    }
    /* Rules only make sense with their mode; a directory list without the allow-list mode is malformed. */
    if ((rq->fs_mode == FS_UNRESTRICTED && nwrite != 0) || (rq->net_mode == NET_UNRESTRICTED && nports != 0)) {
        return SC_REQUEST_MALFORMED;
    }
    /* A required part must be a known one, and asked for. */
    if ((rq->required & ~(CONF_PROCESS | CONF_FS_WRITES | CONF_NET_TCP | CONF_MEMORY | CONF_PIDS | CONF_CPU
                 | CONF_CGROUP)) != 0
            || ((rq->required & CONF_FS_WRITES) && rq->fs_mode != FS_ALLOW_LIST)
            || ((rq->required & CONF_NET_TCP) && rq->net_mode != NET_TCP_ALLOW_LIST)
            || ((rq->required & ~(CONF_PROCESS | CONF_FS_WRITES | CONF_NET_TCP) & ~cgroup_wanted(rq)) != 0)) {
        return SC_REQUEST_MALFORMED;
    }
    if (rq->cgroup_dir[0] != '\0' && rq->cgroup_dir[0] != '/') {
        return SC_PATH_NOT_ABSOLUTE;
    }
    if (rq->pids_max > REQ_MAX_PIDS
            || (rq->cpu_quota_us != 0
                    && (rq->cpu_quota_us < REQ_MIN_CPU_QUOTA_US || rq->cpu_quota_us > REQ_MAX_CPU_QUOTA_US))) {
        return SC_REQUEST_BOUNDS;
    }
    for (uint32_t i = 0; i < nwrite; i++) {
        if (rq->write_dirs[i][0] != '/') {
            return SC_PATH_NOT_ABSOLUTE;
        }
    }
    for (uint32_t i = 0; i < nports; i++) {
        if (rq->ports[i] == 0) {
            return SC_REQUEST_BOUNDS;
        }
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
