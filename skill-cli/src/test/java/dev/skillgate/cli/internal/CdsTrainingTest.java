package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Decision 0824: the class list the launcher's training run loads stays current and inert. */
class CdsTrainingTest {

    @Test
    void everyListedClassStillExistsAndIsListedOnce() {
        List<String> names = CdsTraining.classList();
        assertThat(names).hasSizeGreaterThan(100).contains("dev.skillgate.cli.Main");
        assertThat(new HashSet<>(names)).hasSameSizeAs(names);
        // A renamed or removed class makes this fail: regenerate the list (decision 0824).
        assertThat(CdsTraining.load(names)).isEmpty();
    }

    @Test
    void loadingDoesNotInitialiseAndReportsWhatIsMissing() {
        List<String> missing = CdsTraining.load(
                List.of("dev.skillgate.cli.internal.CdsTrainingTest$NotInitialised", "dev.skillgate.no.SuchClass"));
        assertThat(missing).containsExactly("dev.skillgate.no.SuchClass");
        assertThat(NotInitialisedProbe.initialised).isFalse();
    }

    /**
     * Decision 0887: the training of validate's own archive validates the sample and nothing else,
     * prints only to the stream it is given, and reports an invalid skill by its exit code.
     */
    @Test
    void theValidateOnlyTrainingValidatesAndReportsItsExitCode(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(seen, true, StandardCharsets.UTF_8);
        Path sample = Path.of("..", "examples", "skills", "hello-world");
        assertThat(CdsTraining.validateOnly(sample.toString(), out)).isZero();
        assertThat(seen.toString(StandardCharsets.UTF_8)).contains("Valid skill:");

        Path invalid = Files.createDirectory(dir.resolve("not-a-skill"));
        Files.writeString(invalid.resolve("SKILL.md"), "---\ndescription: no name\n---\nbody\n");
        assertThat(CdsTraining.validateOnly(invalid.toString(), out)).isNotZero();
    }

    /** Records whether {@link NotInitialised}'s static initialiser ran. */
    static final class NotInitialisedProbe {
        static boolean initialised;
    }

    /** A class whose static initialiser must not run when the training loads it. */
    static final class NotInitialised {
        static {
            NotInitialisedProbe.initialised = true;
        }
    }
}
