/*
 * A same-uid attacker of the workspace binding, driven by inotify: once armed, at the first directory
 * created in STAGING (a run being staged - after every check the engine and the runner make by path),
 * it renames WORKSPACE to WORKSPACE.approved and creates a new, empty directory at WORKSPACE, so that
 * a launch that went by path would run in a directory nobody approved.
 *
 * Commands on stdin, one per line: "arm", "quit". Replies: "armed", "acted ok|error".
 * Usage: workspace-swapper STAGING WORKSPACE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: workspace-swapper STAGING WORKSPACE\n");
        return 64;
    }
    const char *workspace = argv[2];
    char away[PATH_MAX + 16];
    snprintf(away, sizeof away, "%s.approved", workspace);
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (in < 0 || inotify_add_watch(in, argv[1], IN_CREATE) < 0) {
        perror("inotify");
        return 2;
    }
    bool armed = false;
    char line[64];
    size_t len = 0;
    for (;;) {
        struct pollfd p[2] = {{0, POLLIN, 0}, {in, POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return 2;
        }
        if (p[1].revents & POLLIN) {
            char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
            ssize_t n;
            bool created = false;
            while ((n = read(in, buf, sizeof buf)) > 0) {
                for (char *q = buf; q < buf + n;) {
                    struct inotify_event *ev = (struct inotify_event *)q;
                    q += sizeof *ev + ev->len;
                    created |= (ev->mask & IN_ISDIR) != 0;
                }
            }
            if (armed && created) {
                armed = false;
                bool ok = rename(workspace, away) == 0 && mkdir(workspace, 0755) == 0;
                printf("acted %s\n", ok ? "ok" : "error");
                fflush(stdout);
            }
        }
        if (p[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(0, line + len, sizeof line - 1 - len);
            if (n <= 0) {
                return 0;
            }
            len += (size_t)n;
            char *nl;
            while ((nl = memchr(line, '\n', len)) != NULL) {
                *nl = '\0';
                if (strcmp(line, "arm") == 0) {
                    char drain[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
                    while (read(in, drain, sizeof drain) > 0) {
                    }
                    armed = true;
                    printf("armed\n");
                    fflush(stdout);
                } else if (strcmp(line, "quit") == 0) {
                    return 0;
                }
                len -= (size_t)(nl + 1 - line);
                memmove(line, nl + 1, len);
            }
        }
    }
}
