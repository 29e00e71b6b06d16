/* Small utilities: clocks, byte order, full reads and writes, raw syscalls, /proc/<pid>/stat. */
#include "helper.h"

uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void put_u64(uint8_t *p, uint64_t v) {
    put_u32(p, (uint32_t)(v >> 32));
    put_u32(p + 4, (uint32_t)v);
}

uint32_t get_u32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

uint64_t get_u64(const uint8_t *p) {
    return ((uint64_t)get_u32(p) << 32) | get_u32(p + 4);
}

void diag(const char *msg, int err) {
    /* Diagnostics go to stderr, which the JVM caps; never any request or child content. */
    if (err != 0) {
        dprintf(2, "skillgate-supervisor: %s: %s\n", msg, strerror(err));
    } else {
        dprintf(2, "skillgate-supervisor: %s\n", msg);
    }
}

bool write_all(int fd, const void *buf, size_t len) {
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

bool read_full(int fd, void *buf, size_t len) {
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

void sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

int sys_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int sys_pidfd_send_signal(int pidfd, int sig) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int sys_close_range(unsigned first, unsigned last, unsigned flags) {
    return (int)syscall(SYS_close_range, first, last, flags);
}

bool read_proc_stat(const char *path, struct proc_stat *out) {
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
