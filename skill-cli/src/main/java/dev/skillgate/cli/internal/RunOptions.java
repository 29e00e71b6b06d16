package dev.skillgate.cli.internal;

import dev.skillgate.model.Limits;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.linux.ConfinementPolicy;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The options of one {@code skillgate run}, read and checked before anything is created or asked: a
 * malformed option is a {@link UsageException} here, in the order the options are checked, and never
 * a refusal later. Checks only the form of each value and that named directories exist; whether the
 * data directory is safe, and what the Node binary is, are the command's later steps.
 */
final class RunOptions {
    final boolean json;
    final boolean showStderr;
    /** The {@code --root} directories, first root first (decision 0640); empty for {@code run DIR}. */
    final List<Path> roots;
    /** The skill name asked for with {@code --root}; empty for {@code run DIR}. */
    final Optional<String> byName;
    /** The skill directory ({@code run DIR}), or the first root. */
    final Path dir;

    final Path node;
    final ConfinementPolicy confinement;
    final Optional<Path> cgroup;
    final ResourceCeilings ceilings;
    final Optional<Sha256Digest> nodeDigest;
    final Optional<String> givenVersion;
    /** The invocation's bytes; one byte over the bound when the input was larger (the engine refuses it). */
    final byte[] input;

    final Path workspace;
    final Optional<Revision> approve;
    /** The {@code --data-dir} given; empty for a temporary one under {@link #defaultParent}. */
    final Optional<Path> dataDir;
    /** Where a temporary data directory is made; present exactly when {@link #dataDir} is empty. */
    final Optional<Path> defaultParent;

    private RunOptions(
            boolean json,
            boolean showStderr,
            List<Path> roots,
            Optional<String> byName,
            Path dir,
            Path node,
            ConfinementPolicy confinement,
            Optional<Path> cgroup,
            ResourceCeilings ceilings,
            Optional<Sha256Digest> nodeDigest,
            Optional<String> givenVersion,
            byte[] input,
            Path workspace,
            Optional<Revision> approve,
            Optional<Path> dataDir,
            Optional<Path> defaultParent) {
        this.json = json;
        this.showStderr = showStderr;
        this.roots = List.copyOf(roots);
        this.byName = byName;
        this.dir = dir;
        this.node = node;
        this.confinement = confinement;
        this.cgroup = cgroup;
        this.ceilings = ceilings;
        this.nodeDigest = nodeDigest;
        this.givenVersion = givenVersion;
        this.input = input;
        this.workspace = workspace;
        this.approve = approve;
        this.dataDir = dataDir;
        this.defaultParent = defaultParent;
    }

    /**
     * The data directory (given, absolute and normalised) or the parent of the temporary one: the
     * directory whose path no other user may be able to change (decision 0520).
     */
    Path checkedDataDirectory() {
        return dataDir.isPresent() ? dataDir.get() : defaultParent.orElseThrow();
    }

    /**
     * Reads {@code argv}; the invocation is read here too ({@code --input}: the argument, a file, or
     * {@code in}), at most one byte over its bound. {@code environment} gives the default data
     * directory's parent ({@code XDG_STATE_HOME}, {@code HOME}).
     */
    static RunOptions parse(List<String> argv, InputStream in, RawArguments raw, Map<String, String> environment)
            throws UsageException {
        Args args = Args.parse(
                argv,
                Set.of("--json", "--show-stderr"),
                Set.of(
                        "--node",
                        "--node-version",
                        "--node-sha256",
                        "--confinement",
                        "--cgroup",
                        "--memory-max",
                        "--pids-max",
                        "--cpu-max",
                        "--input",
                        "--workspace",
                        "--approve",
                        "--data-dir"),
                Set.of("--root"));
        List<String> positionals = args.positionals();
        if (positionals.size() != 1) {
            throw new UsageException("expected exactly one skill directory (or a NAME with --root DIR)");
        }
        // run NAME --root DIR...: the skill called NAME in those roots, first root first (decision 0640).
        List<Path> roots = new ArrayList<>();
        for (String root : args.values("--root")) {
            roots.add(CommandLineFiles.existingDirectory("--root", root));
        }
        Optional<String> byName = Optional.empty();
        Path dir;
        if (!roots.isEmpty()) {
            if (!SkillName.isValid(positionals.get(0))) {
                throw new UsageException("with --root, the argument is a skill name (a-z, 0-9, single hyphens), not '"
                        + Args.printable(positionals.get(0)) + "'");
            }
            byName = Optional.of(positionals.get(0));
            dir = roots.get(0);
        } else {
            dir = Path.of(positionals.get(0)).toAbsolutePath().normalize();
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new UsageException(Args.missing("skill directory", positionals.get(0)));
            }
        }
        // No lambda here or below: each call site is linked in every cold JVM, ≈ 0.3 ms (decision 0895).
        if (args.value("--node").isEmpty()) {
            throw new UsageException("--node is required");
        }
        Path node = Path.of(args.value("--node").get());
        if (!node.isAbsolute()) {
            throw new UsageException("--node must be an absolute path (it is never looked up on PATH)");
        }
        ConfinementPolicy confinement = ConfinementPolicy.PREFER;
        if (args.value("--confinement").isPresent()) {
            switch (args.value("--confinement").get()) {
                case "require" -> confinement = ConfinementPolicy.REQUIRE;
                case "prefer" -> confinement = ConfinementPolicy.PREFER;
                case "off" -> confinement = ConfinementPolicy.OFF;
                default -> throw new UsageException("--confinement is require, prefer or off");
            }
        }
        Optional<Path> cgroup = Optional.empty();
        if (args.value("--cgroup").isPresent()) {
            cgroup = Optional.of(CommandLineFiles.existingDirectory(
                    "--cgroup", args.value("--cgroup").get()));
        }
        ResourceCeilings ceilings = ceilings(args, cgroup.isPresent());
        Optional<Sha256Digest> nodeDigest = args.digest("--node-sha256");
        if (args.value("--input").isEmpty()) {
            throw new UsageException("--input is required");
        }
        String inputOption = args.value("--input").get();
        if (inputOption.equals("@-") && args.value("--approve").isEmpty()) {
            throw new UsageException("--input @- reads standard input, so the approval cannot be read there; give"
                    + " --approve sha256:REV");
        }
        // A larger input is not read: one byte over the bound is enough for the engine to refuse it
        // with JSON_TOO_LARGE by its size alone.
        Optional<byte[]> read = CommandLineFiles.invocation(inputOption, in, raw);
        byte[] input = read.isPresent() ? read.get() : new byte[Limits.INVOCATION_BYTES + 1];
        Path workspace = CommandLineFiles.existingDirectory(
                "--workspace", args.value("--workspace").orElse("."));
        Optional<Revision> approve = args.revision("--approve");
        Optional<String> dataDirOption = args.value("--data-dir");
        if (dataDirOption.isPresent() && dataDirOption.get().isEmpty()) {
            throw new UsageException("--data-dir must not be empty");
        }
        Optional<Path> dataDir = Optional.empty();
        Optional<Path> defaultParent = Optional.empty();
        if (dataDirOption.isPresent()) {
            // A missing data directory is created (private state); something else in its place is
            // a usage error, not a fault.
            Path given = Path.of(dataDirOption.get());
            if (Files.exists(given, LinkOption.NOFOLLOW_LINKS)
                    && !Files.isDirectory(given, LinkOption.NOFOLLOW_LINKS)) {
                throw new UsageException(
                        "--data-dir is not a directory (links are never followed): " + Args.path(dataDirOption.get()));
            }
            dataDir = Optional.of(given.toAbsolutePath().normalize());
        } else {
            defaultParent = DataDirectories.defaultParent(environment, System.getProperty("user.home"));
            if (defaultParent.isEmpty()) {
                throw new UsageException(
                        "no default data directory: XDG_STATE_HOME and HOME are unset or not absolute; give --data-dir");
            }
        }
        return new RunOptions(
                args.has("--json"),
                args.has("--show-stderr"),
                roots,
                byName,
                dir,
                node,
                confinement,
                cgroup,
                ceilings,
                nodeDigest,
                args.value("--node-version"),
                input,
                workspace,
                approve,
                dataDir,
                defaultParent);
    }

    /**
     * The cgroup limits of {@code --memory-max}, {@code --pids-max} and {@code --cpu-max} as the
     * engine's resource ceilings ({@link ResourceCeilings#NONE} without them). Each needs {@code
     * --cgroup}; a value that is no positive whole number in range is a usage error, so nothing runs.
     */
    static ResourceCeilings ceilings(Args args, boolean cgroup) throws UsageException {
        OptionalLong memory = OptionalLong.empty();
        OptionalLong pids = OptionalLong.empty();
        OptionalLong cpu = OptionalLong.empty();
        for (String option : List.of("--memory-max", "--pids-max", "--cpu-max")) {
            if (args.value(option).isPresent() && !cgroup) {
                throw new UsageException(option + " needs --cgroup DIR (the limit applies in the run's own cgroup)");
            }
        }
        if (args.value("--memory-max").isPresent()) {
            memory = OptionalLong.of(
                    positive("--memory-max", args.value("--memory-max").get(), Long.MAX_VALUE));
        }
        if (args.value("--pids-max").isPresent()) {
            pids = OptionalLong.of(
                    positive("--pids-max", args.value("--pids-max").get(), ResourceCeilings.MAX_PROCESSES));
        }
        if (args.value("--cpu-max").isPresent()) {
            String value = args.value("--cpu-max").get();
            String[] parts = value.split("/", -1);
            if (parts.length != 2) {
                throw new UsageException("--cpu-max is QUOTA/PERIOD in microseconds, e.g. 50000/100000 for half a CPU");
            }
            long quota = positive("--cpu-max", parts[0], 1_000_000_000L);
            long period = positive("--cpu-max", parts[1], 1_000_000L);
            if ((quota * 100) % period != 0
                    || quota * 100 / period < 1
                    || quota * 100 / period > ResourceCeilings.MAX_CPU_PERCENT) {
                throw new UsageException("--cpu-max must be a whole percent of one CPU, 1% to "
                        + ResourceCeilings.MAX_CPU_PERCENT + "% (QUOTA*100/PERIOD)");
            }
            cpu = OptionalLong.of(quota * 100 / period);
        }
        return ResourceCeilings.NONE.withCgroupLimits(memory, pids, cpu);
    }

    private static long positive(String option, String value, long max) throws UsageException {
        if (!value.matches("[1-9][0-9]{0,18}")) {
            throw new UsageException(
                    option + " needs a whole number of 1 or more, not '" + Args.printable(value) + "'");
        }
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            n = Long.MAX_VALUE;
        }
        if (n > max) {
            throw new UsageException(option + " is at most " + max);
        }
        return n;
    }
}
