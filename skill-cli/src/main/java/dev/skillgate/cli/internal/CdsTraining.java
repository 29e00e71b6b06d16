package dev.skillgate.cli.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The launcher's class-data sharing training run (decisions 0803, 0824): {@code inspect --json} and
 * {@code validate} of the sample skill with their output discarded, then every class named in the {@link #CLASS_LIST}
 * resource loaded without being initialised, so the dynamic archive written at exit holds the
 * classes of {@code run} and {@code validate} too, not only those of {@code inspect}, and their lambda
 * and record call sites, linked without running them ({@link IndyPrelink}, decision 0886).
 *
 * <p>{@code CdsTraining --validate SAMPLE_DIR} trains the archive that {@code validate} with text
 * output alone maps (decision 0887): {@code validate} of the sample, nothing else, so the archive
 * holds about a tenth of the classes and the JVM relocates about a tenth of the pointers when it maps
 * it at start-up.
 *
 * <p>Inert like {@code inspect}: it starts no process, writes nothing but the archive the JVM
 * writes, and runs no static initialiser of a listed class. A name that no longer exists is skipped
 * (the archive is only smaller); {@code CdsTrainingTest} keeps the list current. Not a command: the
 * launcher alone starts it, on the class path, with {@code -XX:ArchiveClassesAtExit}.
 */
public final class CdsTraining {
    /** The resource naming one class per line ({@code #} starts a comment). */
    public static final String CLASS_LIST = "/dev/skillgate/cli/cds-classes.txt";

    private CdsTraining() {}

    /** The first argument that trains the archive of {@code validate} alone. */
    public static final String VALIDATE_ONLY = "--validate";

    /**
     * {@code CdsTraining SAMPLE_DIR}: inspects and validates the sample (output discarded), then loads
     * the listed classes; exits 0 when both commands did, else the first other exit code. {@code
     * CdsTraining --validate SAMPLE_DIR}: validates the sample, and nothing else.
     */
    public static void main(String[] args) {
        PrintStream none = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        if (args.length == 2 && VALIDATE_ONLY.equals(args[0])) {
            System.exit(validateOnly(args[1], none));
        }
        int code = 2;
        if (args.length == 1) {
            // Both inert (they read the sample's files and start nothing); their code paths, lambdas
            // and record methods included, go into the archive.
            code = new Cli(none, none).run(new String[] {"inspect", "--json", args[0]});
            int validated = new Cli(none, none).run(new String[] {"validate", args[0]});
            code = code != 0 ? code : validated;
        }
        List<String> names = classList();
        load(names);
        // Their lambda and record call sites linked too, without running them (decision 0886).
        IndyPrelink.link(names, CdsTraining.class.getClassLoader());
        System.exit(code);
    }

    /**
     * Validates the sample (text output, discarded) after loading the entry point the launcher starts,
     * which this run does not go through; the validation's exit code.
     */
    static int validateOnly(String sample, PrintStream none) {
        load(List.of("dev.skillgate.cli.Main"));
        return new Cli(none, none).run(new String[] {"validate", sample});
    }

    /** The class names of {@link #CLASS_LIST}, in order; empty when the resource is missing. */
    static List<String> classList() {
        List<String> names = new ArrayList<>();
        try (InputStream in = CdsTraining.class.getResourceAsStream(CLASS_LIST)) {
            if (in == null) {
                return names;
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = r.readLine(); line != null && names.size() < 20_000; line = r.readLine()) {
                String name = line.strip();
                if (!name.isEmpty() && !name.startsWith("#")) {
                    names.add(name);
                }
            }
        } catch (IOException e) {
            // What was read is used.
        }
        return names;
    }

    /** Loads each class without initialising it; returns the names that could not be loaded. */
    static List<String> load(List<String> names) {
        List<String> missing = new ArrayList<>();
        ClassLoader loader = CdsTraining.class.getClassLoader();
        for (String name : names) {
            try {
                Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                missing.add(name);
            }
        }
        return missing;
    }
}
