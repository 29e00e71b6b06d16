package dev.skillgate.testkit.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySettings;
import dev.skillgate.consent.spi.PolicyStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The policy-store TCK can fail: the built-in file store, bent in one way each, is run through the
 * contract test that should catch it, with the JUnit launcher.
 */
class PolicyStoreContractSelfCheckTest {

    private static void assertFails(Class<?> testClass, String method) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectMethod(testClass, method))
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        assertThat(summary.getTestsFoundCount())
                .as("the contract test was found")
                .isEqualTo(1);
        assertThat(summary.getTestsFailedCount())
                .as(testClass.getSimpleName() + " must fail " + method)
                .isEqualTo(1);
    }

    /** The built-in store with the built-in test's faults; subclasses bend one rule of the store. */
    abstract static class Bent extends FilePolicyStoreContractTest {
        abstract PolicyStore bend(PolicyStore real, Path location);

        @Override
        protected PolicyStore openStore(Path location) {
            return bend(super.openStore(location), location);
        }
    }

    /** Deletes the old file before writing the new one: not atomic. */
    static class DeletesFirst extends Bent {
        @Override
        PolicyStore bend(PolicyStore real, Path location) {
            return new PolicyStore() {
                @Override
                public PolicyLoad load() {
                    return real.load();
                }

                @Override
                public void replace(PolicySettings settings) throws IOException {
                    Files.deleteIfExists(location.resolve("policy.json"));
                    real.replace(settings);
                }
            };
        }
    }

    /** Reports a corrupt store as "nothing stored": fails open to ask-each-time. */
    static class CorruptIsAbsent extends Bent {
        @Override
        PolicyStore bend(PolicyStore real, Path location) {
            return new PolicyStore() {
                @Override
                public PolicyLoad load() {
                    PolicyLoad load = real.load();
                    return load.status() == PolicyLoad.Status.UNUSABLE ? PolicyLoad.absent() : load;
                }

                @Override
                public void replace(PolicySettings settings) throws IOException {
                    real.replace(settings);
                }
            };
        }
    }

    /** Throws for a corrupt store instead of reporting it. */
    static class ThrowsOnCorrupt extends Bent {
        @Override
        PolicyStore bend(PolicyStore real, Path location) {
            return new PolicyStore() {
                @Override
                public PolicyLoad load() {
                    PolicyLoad load = real.load();
                    if (load.status() == PolicyLoad.Status.UNUSABLE) {
                        throw new IllegalStateException("corrupt");
                    }
                    return load;
                }

                @Override
                public void replace(PolicySettings settings) throws IOException {
                    real.replace(settings);
                }
            };
        }
    }

    /** Caches its first load. */
    static class Caches extends Bent {
        @Override
        PolicyStore bend(PolicyStore real, Path location) {
            return new PolicyStore() {
                private PolicyLoad cached;

                @Override
                public synchronized PolicyLoad load() {
                    if (cached == null) {
                        cached = real.load();
                    }
                    return cached;
                }

                @Override
                public void replace(PolicySettings settings) throws IOException {
                    real.replace(settings);
                }
            };
        }
    }

    /** Keeps everything in memory: a restart loses it. */
    static class MemoryOnly extends Bent {
        @Override
        PolicyStore bend(PolicyStore real, Path location) {
            return new PolicyStore() {
                private volatile PolicyLoad stored = PolicyLoad.absent();

                @Override
                public PolicyLoad load() {
                    return stored;
                }

                @Override
                public void replace(PolicySettings settings) {
                    stored = PolicyLoad.found(settings);
                }
            };
        }

        @Override
        protected Optional<AutoCloseable> failReplaces(Path location) {
            return Optional.empty();
        }
    }

    @Test
    void aStoreThatIsNotAtomicFails() {
        // Deterministic: the fault lands after the delete. (The concurrent-reader test would usually
        // catch it too, but only when a reader hits the window, so it is not used as a self-check.)
        assertFails(DeletesFirst.class, "aFailedReplaceLeavesThePreviousPolicyInForce");
    }

    @Test
    void aStoreThatFailsOpenOrThrowsOnCorruptionFails() {
        assertFails(CorruptIsAbsent.class, "aCorruptStoreLoadsUnusableAndThePolicyIsBlocked");
        assertFails(ThrowsOnCorrupt.class, "aCorruptStoreLoadsUnusableAndThePolicyIsBlocked");
    }

    @Test
    void aStoreThatCachesOrForgetsFails() {
        assertFails(Caches.class, "loadRereadsWhatAnotherInstanceSaved");
        assertFails(MemoryOnly.class, "receiptsSurviveARestartAndRevocationStays");
        assertFails(MemoryOnly.class, "whatIsReplacedLoadsBackEqualFromTheSameAndANewInstance");
    }
}
