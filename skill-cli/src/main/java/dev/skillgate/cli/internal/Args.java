package dev.skillgate.cli.internal;

import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.shared.Text;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A small, strict command-line parser: {@code --flag}, {@code --option VALUE} or
 * {@code --option=VALUE}, and positionals. Unknown options and repeated options are usage errors;
 * {@code --} ends option parsing.
 */
final class Args {
    private final Map<String, String> options = new LinkedHashMap<>();
    private final Map<String, List<String>> repeated = new LinkedHashMap<>();
    private final List<String> positionals = new ArrayList<>();

    private Args() {}

    /**
     * Parses {@code args}.
     *
     * @param flags options that take no value
     * @param valued options that take one value
     */
    static Args parse(List<String> args, Set<String> flags, Set<String> valued) throws UsageException {
        return parse(args, flags, valued, Set.of());
    }

    /**
     * Parses {@code args}; options in {@code repeatable} take one value and may be given several
     * times ({@link #values}).
     */
    static Args parse(List<String> args, Set<String> flags, Set<String> valued, Set<String> repeatable)
            throws UsageException {
        Args parsed = new Args();
        boolean onlyPositionals = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (onlyPositionals || !arg.startsWith("--")) {
                parsed.positionals.add(arg);
                continue;
            }
            if (arg.equals("--")) {
                onlyPositionals = true;
                continue;
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (flags.contains(name)) {
                if (value != null) {
                    throw new UsageException(name + " takes no value");
                }
                value = "";
            } else if (repeatable.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new UsageException(name + " needs a value");
                    }
                    value = args.get(++i);
                }
                parsed.repeated.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
                continue;
            } else if (valued.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new UsageException(name + " needs a value");
                    }
                    value = args.get(++i);
                }
            } else {
                throw new UsageException("unknown option " + printable(name));
            }
            if (parsed.options.put(name, value) != null) {
                throw new UsageException(name + " given twice");
            }
        }
        return parsed;
    }

    boolean has(String flag) {
        return options.containsKey(flag);
    }

    /** Every value of a repeatable option, in order; empty when not given. */
    List<String> values(String option) {
        return List.copyOf(repeated.getOrDefault(option, List.of()));
    }

    Optional<String> value(String option) {
        return Optional.ofNullable(options.get(option));
    }

    /**
     * The option's value as a SHA-256 digest ({@code sha256:} and 64 lowercase hex digits); empty when
     * the option is absent, a usage error when it is malformed.
     */
    Optional<Sha256Digest> digest(String option) throws UsageException {
        Optional<String> v = value(option);
        if (v.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Sha256Digest.parse(v.get()));
        } catch (InvalidValueException e) {
            throw new UsageException(option + " needs sha256: and 64 lowercase hex digits");
        }
    }

    /** The option's value as a revision, with the rules and the message of {@link #digest}. */
    Optional<Revision> revision(String option) throws UsageException {
        Optional<String> v = value(option);
        if (v.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Revision.parse(v.get()));
        } catch (InvalidValueException e) {
            throw new UsageException(option + " needs sha256: and 64 lowercase hex digits");
        }
    }

    List<String> positionals() {
        return List.copyOf(positionals);
    }

    /** An argument made safe to echo: escaped and cut short. */
    static String printable(String arg) {
        return Text.excerpt(arg);
    }

    /** Longest path shown in a message, in code points (decision 0637): generous, still bounded. */
    static final int PATH_MAX = 4096;

    /** A path from the command line or the file system, in full: escaped, cut only past {@value #PATH_MAX}. */
    static String path(String path) {
        return Text.sanitize(path, PATH_MAX);
    }

    /**
     * Whether an argument holds U+FFFD, which is what the JVM makes of bytes that are not UTF-8: such
     * an argument cannot name the file it meant, so it is reported as such, never as "does not exist".
     */
    static boolean notUtf8(String arg) {
        return arg.indexOf('\uFFFD') >= 0;
    }

    /** The message for a {@code what} argument that names nothing: not UTF-8, or does not exist. */
    static String missing(String what, String arg) {
        return notUtf8(arg)
                ? what + " is not valid UTF-8 (the bytes that are not were replaced by U+FFFD, so it names"
                        + " nothing on disk): " + path(arg)
                : what + " does not exist: " + path(arg);
    }

    /**
     * Longer text (a path, a skill name) made safe for a terminal: control and invisible format
     * characters escaped, cut at 4,096 code points.
     */
    static String safe(String text) {
        return Text.sanitize(text, 4096);
    }
}
