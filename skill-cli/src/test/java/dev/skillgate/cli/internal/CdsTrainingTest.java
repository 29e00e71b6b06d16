package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

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
