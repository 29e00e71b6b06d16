package dev.skillgate.inspect;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.SkillName;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * The skill roots of the Agent Skills client conventions, in precedence order, for {@link
 * DiscoveryOptions} (decision 0639).
 *
 * <p><b>Project roots</b>: {@code .<client>/skills/} then {@code .agents/skills/} in the project
 * directory, then in each parent up to the repository root (the nearest directory holding {@code
 * .git}, a directory or a file); without a repository root only the project directory itself. They
 * are used only after the host's explicit decision that the project is trusted ({@link
 * ProjectTrust#TRUSTED}, the client guide's trust check: a project may be an untrusted clone); an
 * untrusted project's roots that exist are returned in {@link Resolution#untrusted()} so the host
 * can say so, never searched. <b>User roots</b>: {@code ~/.<client>/skills/} then {@code
 * ~/.agents/skills/}. Project roots come before user roots (project over user), nearer directories
 * before their parents, and for each directory the clients in the order given before {@code
 * .agents}. A path that is the same as an earlier one is listed once.
 *
 * <p>Resolution only asks whether each candidate path exists (without following a link at the last
 * component; a linked root is returned and discovery reports it and does not follow it). It reads
 * no file, runs nothing, and is not a snapshot: the tree may change before discovery walks it.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class StandardRoots {
    /** Whether the host decided that the project's own skills may be used. */
    public enum ProjectTrust {
        /** The user or host marked this project trusted: its roots are searched. */
        TRUSTED,
        /** Not trusted (or not decided): its roots are reported, never searched. */
        UNTRUSTED
    }

    /** Whose root it is. */
    public enum Scope {
        /** In the project or an ancestor up to its repository root. */
        PROJECT,
        /** In the user's home directory. */
        USER
    }

    /**
     * One root that exists.
     *
     * @param path the root, absolute and normalised (not resolved through links)
     * @param scope project or user
     * @param client the client directory it belongs to ({@code agents} for {@code .agents})
     */
    public record Root(Path path, Scope scope, String client) {
        public Root {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(client, "client");
        }
    }

    /**
     * What resolution found.
     *
     * @param roots the roots to search, in precedence order
     * @param untrusted project roots that exist but were not used: the project is not trusted
     * @param repositoryRoot the repository root the project walk stopped at, when one was found
     */
    public record Resolution(List<Root> roots, List<Root> untrusted, Optional<Path> repositoryRoot) {
        public Resolution {
            roots = List.copyOf(roots);
            untrusted = List.copyOf(untrusted);
            Objects.requireNonNull(repositoryRoot, "repositoryRoot");
        }

        /** The root paths in precedence order, for {@link DiscoveryOptions.Builder#roots}. */
        public List<Path> paths() {
            return roots.stream().map(Root::path).toList();
        }
    }

    private final List<String> clients;
    private final Optional<Path> project;
    private final ProjectTrust trust;
    private final Optional<Path> home;

    private StandardRoots(Builder b) {
        this.clients = List.copyOf(b.clients);
        this.project = b.project;
        this.trust = b.trust;
        this.home = b.home;
    }

    /** A builder: no clients beyond {@code .agents}, no project, no home. */
    public static Builder builder() {
        return new Builder();
    }

    /** Resolves the roots that exist now. */
    public Resolution resolve() {
        Set<Path> seen = new LinkedHashSet<>();
        List<Root> roots = new ArrayList<>();
        List<Root> untrusted = new ArrayList<>();
        Optional<Path> repository = Optional.empty();
        if (project.isPresent()) {
            List<Path> dirs = new ArrayList<>();
            Path dir = project.get();
            Path top = null;
            for (Path d = dir; d != null; d = d.getParent()) {
                if (exists(d.resolve(".git"))) {
                    top = d;
                    break;
                }
            }
            if (top == null) {
                dirs.add(dir);
            } else {
                repository = Optional.of(top);
                for (Path d = dir; d != null; d = d.getParent()) {
                    dirs.add(d);
                    if (d.equals(top)) {
                        break;
                    }
                }
            }
            for (Path d : dirs) {
                for (String client : withAgents()) {
                    Path candidate = d.resolve("." + client).resolve("skills");
                    if (exists(candidate) && seen.add(candidate)) {
                        Root root = new Root(candidate, Scope.PROJECT, client);
                        (trust == ProjectTrust.TRUSTED ? roots : untrusted).add(root);
                    }
                }
            }
        }
        if (home.isPresent()) {
            for (String client : withAgents()) {
                Path candidate = home.get().resolve("." + client).resolve("skills");
                if (exists(candidate) && seen.add(candidate)) {
                    roots.add(new Root(candidate, Scope.USER, client));
                }
            }
        }
        return new Resolution(roots, untrusted, repository);
    }

    private List<String> withAgents() {
        List<String> out = new ArrayList<>(clients);
        out.remove("agents");
        out.add("agents");
        return out;
    }

    private static boolean exists(Path p) {
        try {
            return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
        } catch (SecurityException e) {
            return false;
        }
    }

    /** Configures {@link StandardRoots}. */
    public static final class Builder {
        private final List<String> clients = new ArrayList<>();
        private Optional<Path> project = Optional.empty();
        private ProjectTrust trust = ProjectTrust.UNTRUSTED;
        private Optional<Path> home = Optional.empty();

        private Builder() {}

        /**
         * Adds a client whose {@code .<client>/skills/} directories are searched before {@code
         * .agents/skills/} (e.g. {@code claude}, {@code codex}, {@code opencode}); a skill-style name
         * (lowercase letters, digits, single hyphens), so it can never name another directory.
         *
         * @throws InvalidValueException ({@code NAME_*}) for any other name
         */
        public Builder client(String name) {
            Objects.requireNonNull(name, "name");
            if (!SkillName.isValid(name)) {
                throw new InvalidValueException(
                        ErrorCode.NAME_CHARSET, "a client name is a skill-style name (a-z, 0-9, single hyphens)");
            }
            if (!clients.contains(name)) {
                clients.add(name);
            }
            return this;
        }

        /**
         * The project directory (usually the working directory) and the host's explicit decision
         * whether it is trusted; there is no default decision.
         */
        public Builder project(Path directory, ProjectTrust trust) {
            this.project = Optional.of(directory.toAbsolutePath().normalize());
            this.trust = Objects.requireNonNull(trust, "trust");
            return this;
        }

        /** The user's home directory, for the user roots. */
        public Builder home(Path directory) {
            this.home = Optional.of(directory.toAbsolutePath().normalize());
            return this;
        }

        /** The resolver. */
        public StandardRoots build() {
            return new StandardRoots(this);
        }
    }

    /** For a host that reads the home directory from the environment: {@code $HOME} when absolute. */
    public static Optional<Path> homeFromEnvironment(java.util.Map<String, String> environment) {
        String value = environment.get("HOME");
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            Path p = Path.of(value);
            return p.isAbsolute() ? Optional.of(p.normalize()) : Optional.empty();
        } catch (java.nio.file.InvalidPathException e) {
            return Optional.empty();
        }
    }
}
