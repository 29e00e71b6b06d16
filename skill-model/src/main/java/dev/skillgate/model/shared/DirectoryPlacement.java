package dev.skillgate.model.shared;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Whether another local user or group could change what Skillgate keeps in a directory: the OpenSSH
 * {@code StrictModes} rule, applied to data and staging directories before anything is kept or run
 * there (decision 0520).
 *
 * <p>The path is walked from {@code /} component by component, as the kernel resolves it, without
 * ever following a link blindly: every directory passed through, and every link's target chain, is
 * examined with {@code lstat}. Each directory on the way must be owned by root or by this process's
 * user and must not be writable by group or others — except a <b>root-owned sticky</b> directory
 * such as {@code /tmp}, whose sticky bit stops others from renaming or deleting the entries of this
 * user. Below such a directory every component (links included) must be owned by this user. The
 * directory itself must be owned by this user and writable by nobody else. A component that does
 * not exist ends the walk: what the caller then creates there is created by this user, and must be
 * checked again once it exists. A component that is not a directory also ends the walk: nothing can
 * be kept there, and the caller's use fails with its own code.
 *
 * <p>What it does not do: it does not stop this user's own processes (or root) from changing
 * anything — the check is about other users. It is a check by path, so it is repeated wherever a
 * directory is opened for use (admin, audit log, policy store, staging, CLI), and a co-tenant cannot
 * make a checked directory unsafe afterwards without root: every directory on the path is this
 * user's or root's and closed to others. Where the file system has no {@code unix} attribute view
 * nothing can be checked and the directory is accepted; where the process's user cannot be learned
 * (no {@code /proc/self}), ownership is not checked, only modes. POSIX ACLs show in the group bits
 * (the ACL mask), so an ACL granting write to someone else is refused like a group-writable mode.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class DirectoryPlacement {

    /** Most links followed in one walk (the kernel's {@code ELOOP} bound). */
    public static final int MAX_LINKS = 40;

    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFLNK = 0120000;
    private static final int S_ISVTX = 01000;
    private static final int GROUP_OTHER_WRITE = 0022;

    private static final Optional<Integer> CURRENT_UID = currentUid();

    private DirectoryPlacement() {}

    /**
     * Checks {@code directory} (absolute) and every directory on its path.
     *
     * @param directory the data or staging directory; it may not exist yet
     * @param what what the directory is, for the message ({@code "data directory"})
     * @return empty when no other user or group can change it; otherwise a {@code
     *     DATA_DIRECTORY_UNSAFE} error located at the component that fails, its message naming the
     *     directory
     * @throws IllegalArgumentException when {@code directory} is not absolute
     */
    public static Optional<Diagnostic> check(Path directory, String what) {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(what, "what");
        if (!directory.isAbsolute()) {
            throw new IllegalArgumentException("the directory must be absolute");
        }
        if (!directory.getFileSystem().supportedFileAttributeViews().contains("unix")) {
            return Optional.empty();
        }
        return new Walk(directory.normalize(), what).run();
    }

    /** The process's effective uid, when it can be learned. */
    static Optional<Integer> currentUid() {
        // /proc/self is owned by the process's effective uid on Linux; elsewhere ownership is not checked.
        try {
            Object uid = java.nio.file.Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return uid instanceof Integer i ? Optional.of(i) : Optional.empty();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** One component's {@code lstat}: type and permission bits, owner. */
    private record Stat(int mode, int uid) {
        boolean isDirectory() {
            return (mode & S_IFMT) == S_IFDIR;
        }

        boolean isLink() {
            return (mode & S_IFMT) == S_IFLNK;
        }

        boolean writableByOthers() {
            return (mode & GROUP_OTHER_WRITE) != 0;
        }

        boolean sticky() {
            return (mode & S_ISVTX) != 0;
        }

        String octal() {
            return String.format("%04o", mode & 07777);
        }
    }

    /** A resolved directory on the walk and the root-owned sticky directory above it, if any. */
    private record Step(Path path, Optional<Path> sticky) {}

    private static final class Walk {
        private final Path directory;
        private final String what;
        private final Deque<String> todo = new ArrayDeque<>();
        private final List<Step> stack = new ArrayList<>();
        private int links;
        private boolean incomplete;

        Walk(Path directory, String what) {
            this.directory = directory;
            this.what = what;
            for (Path name : directory) {
                todo.add(name.toString());
            }
        }

        Optional<Diagnostic> run() {
            Path root = directory.getRoot();
            Optional<Diagnostic> problem = enter(root, Optional.empty(), todo.isEmpty());
            if (problem.isPresent()) {
                return problem;
            }
            while (!todo.isEmpty()) {
                String name = todo.removeFirst();
                if (name.isEmpty() || name.equals(".")) {
                    continue;
                }
                if (name.equals("..")) {
                    if (stack.size() > 1) {
                        stack.remove(stack.size() - 1);
                    }
                    continue;
                }
                Step here = stack.get(stack.size() - 1);
                Path next = here.path().resolve(name);
                Stat st;
                try {
                    st = stat(next);
                } catch (NoSuchFileException e) {
                    // The rest does not exist yet: the caller creates it as this user and checks again.
                    incomplete = true;
                    return Optional.empty();
                } catch (IOException e) {
                    return refuse(next, "cannot be examined (" + e.getClass().getSimpleName() + ")");
                }
                if (st.isLink()) {
                    Optional<Diagnostic> owner = owner(next, st, here.sticky(), false);
                    if (owner.isPresent()) {
                        return owner;
                    }
                    if (++links > MAX_LINKS) {
                        return refuse(next, "is one of more than " + MAX_LINKS + " links on the path");
                    }
                    Path target;
                    try {
                        target = java.nio.file.Files.readSymbolicLink(next);
                    } catch (IOException | UnsupportedOperationException e) {
                        return refuse(next, "is a link that cannot be read");
                    }
                    List<String> names = new ArrayList<>();
                    for (Path part : target) {
                        names.add(part.toString());
                    }
                    for (int i = names.size() - 1; i >= 0; i--) {
                        todo.addFirst(names.get(i));
                    }
                    if (target.isAbsolute()) {
                        Step top = stack.get(0);
                        stack.clear();
                        stack.add(top);
                    }
                    continue;
                }
                problem = enter(next, st, here.sticky(), todo.isEmpty());
                if (problem.isPresent()) {
                    return problem;
                }
            }
            return incomplete ? Optional.empty() : finalDirectory();
        }

        /**
         * The directory the walk ended at must be this user's and writable by nobody else. Judged
         * again here because a link target ending in {@code ..} can end the walk at a directory that
         * was passed through as an ancestor ({@code link -> /tmp/x/..} is {@code /tmp}).
         */
        private Optional<Diagnostic> finalDirectory() {
            Path top = stack.get(stack.size() - 1).path();
            Stat st;
            try {
                st = stat(top);
            } catch (IOException e) {
                return refuse(top, "cannot be examined (" + e.getClass().getSimpleName() + ")");
            }
            if (CURRENT_UID.isPresent() && st.uid() != CURRENT_UID.get()) {
                return refuse(
                        top, "is owned by uid " + st.uid() + ", not by this user (uid " + CURRENT_UID.get() + ")");
            }
            if (st.writableByOthers()) {
                return refuse(top, "is writable by group or others (mode " + st.octal() + ")");
            }
            return Optional.empty();
        }

        private Optional<Diagnostic> enter(Path path, Optional<Path> stickyAbove, boolean last) {
            Stat st;
            try {
                st = stat(path);
            } catch (IOException e) {
                return refuse(path, "cannot be examined (" + e.getClass().getSimpleName() + ")");
            }
            return enter(path, st, stickyAbove, last);
        }

        /** Judges one directory the walk passes through (or ends at) and pushes it. */
        private Optional<Diagnostic> enter(Path path, Stat st, Optional<Path> stickyAbove, boolean last) {
            if (!st.isDirectory()) {
                // Nothing can be kept below a file (or in place of the directory): the caller's own use
                // fails, with its own code; that is not a question of who else can change it.
                todo.clear();
                incomplete = true;
                return Optional.empty();
            }
            Optional<Diagnostic> owner = owner(path, st, stickyAbove, last);
            if (owner.isPresent()) {
                return owner;
            }
            Optional<Path> sticky = stickyAbove;
            if (st.writableByOthers()) {
                if (last) {
                    return refuse(path, "is writable by group or others (mode " + st.octal() + ")");
                }
                if (!st.sticky() || st.uid() != 0) {
                    return refuse(
                            path,
                            "is writable by group or others (mode " + st.octal()
                                    + ") and is not a root-owned sticky directory");
                }
                sticky = Optional.of(path);
            }
            stack.add(new Step(path, sticky));
            return Optional.empty();
        }

        /** The ownership rule for a component (a directory, or a link passed through). */
        private Optional<Diagnostic> owner(Path path, Stat st, Optional<Path> stickyAbove, boolean last) {
            if (CURRENT_UID.isEmpty()) {
                return Optional.empty();
            }
            int me = CURRENT_UID.get();
            if (st.uid() == me) {
                return Optional.empty();
            }
            if (last && !st.isLink()) {
                return refuse(path, "is owned by uid " + st.uid() + ", not by this user (uid " + me + ")");
            }
            if (stickyAbove.isPresent()) {
                return refuse(
                        path,
                        "is owned by uid " + st.uid() + ", below the shared sticky directory " + stickyAbove.get()
                                + " where every component must be this user's (uid " + me + ")");
            }
            if (st.uid() != 0) {
                return refuse(path, "is owned by another user (uid " + st.uid() + ")");
            }
            return Optional.empty();
        }

        /**
         * The refusal, located at {@code component}. The message names the directory first and then
         * the component, unless that would not fit a diagnostic; then the component is only the location.
         */
        private Optional<Diagnostic> refuse(Path component, String why) {
            String head = "the " + what + " " + directory + " can be changed by another user: ";
            String named = head + component + " " + why;
            String message = named.length() <= Diagnostic.MAX_MESSAGE_LENGTH
                    ? named
                    : head + (component.equals(directory) ? "it" : "a directory on its path (the location)") + " "
                            + why;
            return Optional.of(Diagnostic.error(ErrorCode.DATA_DIRECTORY_UNSAFE, component.toString(), message));
        }

        private static Stat stat(Path p) throws IOException {
            Map<String, Object> a = java.nio.file.Files.readAttributes(p, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
            if (!(a.get("mode") instanceof Integer mode) || !(a.get("uid") instanceof Integer uid)) {
                throw new IOException("no mode or owner");
            }
            return new Stat(mode, uid);
        }
    }
}
