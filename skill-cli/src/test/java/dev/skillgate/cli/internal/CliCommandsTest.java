package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Decision 0834: only the command a command line names is made; help still lists them all. */
class CliCommandsTest {

    @Test
    void everyNameMakesTheCommandOfThatNameAndNothingElseMakesOne() {
        for (String name : Cli.NAMES) {
            assertThat(Cli.make(name))
                    .hasValueSatisfying(c -> assertThat(c.name()).isEqualTo(name));
        }
        assertThat(Cli.make("help")).isEmpty();
        assertThat(Cli.make("")).isEmpty();
        assertThat(Cli.make("Validate")).isEmpty();
        assertThat(Cli.commands()).extracting(Command::name).containsExactlyElementsOf(Cli.NAMES);
    }

    @Test
    void helpListsEveryCommandInOrder() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        assertThat(new Cli(print, print).run(new String[] {"--help"})).isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        int at = 0;
        for (String name : Cli.NAMES) {
            int found = text.indexOf("  " + name + " ", at);
            assertThat(found).as(name).isGreaterThan(at);
            at = found;
        }
    }

    @Test
    void aCommandLineLoadsOnlyTheCommandItNames() throws Exception {
        try (Isolated loader = new Isolated()) {
            Class<?> cli = Class.forName("dev.skillgate.cli.Main", true, loader);
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            PrintStream print = new PrintStream(sink, true, StandardCharsets.UTF_8);
            Path missing = Path.of("target", "no-such-skill-" + System.nanoTime());
            Object code = cli.getMethod("run", String[].class, PrintStream.class, PrintStream.class)
                    .invoke(null, new String[] {"validate", missing.toString()}, print, print);
            assertThat(code).isNotEqualTo(0);
            assertThat(loader.loaded("dev.skillgate.cli.internal.ValidateCommand"))
                    .isTrue();
            for (String other :
                    List.of("RunCommand", "SignCommand", "AuditCommand", "ProjectCommand", "TrustCommand")) {
                assertThat(loader.loaded("dev.skillgate.cli.internal." + other))
                        .as(other)
                        .isFalse();
            }
        }
    }

    /** A loader of this test's class path that defines the CLI's classes itself. */
    private static final class Isolated extends URLClassLoader {
        Isolated() throws MalformedURLException {
            super(urls(), ClassLoader.getPlatformClassLoader());
        }

        boolean loaded(String name) {
            return findLoadedClass(name) != null;
        }

        private static URL[] urls() throws MalformedURLException {
            List<URL> urls = new ArrayList<>();
            // Surefire may put the modules on the module path: both paths, as plain class path here.
            for (String property : List.of("jdk.module.path", "java.class.path")) {
                for (String entry : System.getProperty(property, "").split(File.pathSeparator)) {
                    if (!entry.isEmpty()) {
                        urls.add(Path.of(entry).toUri().toURL());
                    }
                }
            }
            return urls.toArray(URL[]::new);
        }
    }
}
