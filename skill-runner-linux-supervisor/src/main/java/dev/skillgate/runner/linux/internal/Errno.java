package dev.skillgate.runner.linux.internal;

/** Names of the errno values the helper reports most often (generic Linux numbering). */
final class Errno {
    private Errno() {}

    static String name(int errno) {
        switch (errno) {
            case 0:
                return "";
            case 1:
                return "EPERM";
            case 2:
                return "ENOENT";
            case 7:
                return "E2BIG";
            case 8:
                return "ENOEXEC";
            case 11:
                return "EAGAIN";
            case 12:
                return "ENOMEM";
            case 13:
                return "EACCES";
            case 20:
                return "ENOTDIR";
            case 21:
                return "EISDIR";
            case 22:
                return "EINVAL";
            case 24:
                return "EMFILE";
            case 26:
                return "ETXTBSY";
            case 38:
                return "ENOSYS";
            case 40:
                return "ELOOP";
            default:
                return "errno " + errno;
        }
    }
}
