/* Frames to the JVM (type, length, payload, running CRC-32C) and the result frame. */
#include "helper.h"

uint32_t out_crc;
bool sink_broken;

void emit(uint8_t type, const void *payload, uint32_t len) {
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

void emit_end(void) {
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


const char *setup_detail(uint32_t code) {
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
        case SC_CONFINEMENT_UNAVAILABLE: return "required confinement part unavailable";
        case SC_CONFINEMENT_PATH: return "writable directory unusable";
        case SC_CGROUP_UNUSABLE: return "delegated cgroup unusable";
        case SC_CGROUP_NO_MEMORY: return "controller memory not available in the delegated cgroup";
        case SC_CGROUP_NO_PIDS: return "controller pids not available in the delegated cgroup";
        case SC_CGROUP_NO_CPU: return "controller cpu not available in the delegated cgroup";
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
        case SC_CHILD_NAMESPACE: return "user or PID namespace setup failed";
        case SC_CHILD_CGROUP: return "start in the run's cgroup failed";
        case SC_CGROUP_UNGUARDED: return "cgroup limits need the file-write allow-list (else the script could rewrite them)";
        default: return "";
    }
}

void emit_result(struct run *r, int proof) {
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
    if (r->cg_empty) {
        flags |= RFLAG_CGROUP_EMPTY;
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
void finish_nothing_started(struct run *r, int outcome, uint32_t code, int err) {
    r->outcome = outcome;
    r->setup_code = code;
    r->err_no = err;
    cgroup_release(r);
    emit_result(r, PROOF_NOTHING_STARTED);
    emit_end();
    exit(HELPER_EXIT_PROVEN);
}
