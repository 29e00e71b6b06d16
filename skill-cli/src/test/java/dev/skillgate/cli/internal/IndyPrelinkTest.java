package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Decision 0886: the training run links a class's lambda and record call sites from its class file
 * without running any of its code, and a class file it cannot read is skipped, never a failure.
 */
class IndyPrelinkTest {
    private static final ClassLoader LOADER = IndyPrelinkTest.class.getClassLoader();
    private static final String SITES = "dev.skillgate.cli.internal.IndyPrelinkTest$Sites";

    @Test
    void everyLambdaMethodReferenceAndRecordSiteIsLinkedAndNothingOfTheClassRuns() throws IOException {
        IndyPrelink.ClassFile file = IndyPrelink.ClassFile.read(bytes(SITES));
        // Two lambdas, one method reference, one constructor reference; the nested record's sites
        // (toString, hashCode, equals) are in its own class file.
        assertThat(file.sites()).hasSize(4);
        assertThat(IndyPrelink.ClassFile.read(bytes(SITES + "$Pair")).sites()).hasSize(3);

        int linked = IndyPrelink.link(List.of(SITES, SITES + "$Pair"), LOADER);

        assertThat(linked).isEqualTo(7);
        assertThat(Probe.initialised).as("no static initialiser ran").isFalse();
        assertThat(Probe.lambdaRan).as("no lambda body ran").isFalse();
    }

    @Test
    void aJdkClassAMissingClassAndAClassWithoutSitesLinkNothing() {
        assertThat(IndyPrelink.link(
                        List.of(
                                "java.lang.String",
                                "dev.skillgate.no.SuchClass",
                                "dev.skillgate.cli.internal.IndyPrelinkTest$Probe"),
                        LOADER))
                .isZero();
    }

    @Test
    void aDamagedClassFileIsRefusedWithAnIoOrArgumentErrorOnly() throws IOException {
        byte[] good = bytes(SITES);
        assertThatThrownBy(() -> IndyPrelink.ClassFile.read(new byte[] {1, 2, 3, 4, 5, 6}))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> IndyPrelink.ClassFile.read(java.util.Arrays.copyOf(good, good.length / 2)))
                .isInstanceOf(IOException.class);
        SplittableRandom random = new SplittableRandom(0x0886L);
        for (int round = 0; round < 2_000; round++) {
            byte[] damaged = good.clone();
            int flips = 1 + random.nextInt(8);
            for (int f = 0; f < flips; f++) {
                damaged[8 + random.nextInt(damaged.length - 8)] = (byte) random.nextInt(256);
            }
            try {
                IndyPrelink.ClassFile file = IndyPrelink.ClassFile.read(damaged);
                for (IndyPrelink.ClassFile.Site site : file.sites()) {
                    try {
                        file.entry(site.nameAndType());
                    } catch (IllegalArgumentException expected) {
                        // an index out of the pool: refused by name
                    }
                }
            } catch (IOException | IllegalArgumentException expected) {
                // refused
            }
        }
    }

    private static byte[] bytes(String name) throws IOException {
        try (InputStream in = LOADER.getResourceAsStream(name.replace('.', '/') + ".class")) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    /** What {@link Sites} would record if any of its code ran. */
    static final class Probe {
        static volatile boolean initialised;
        static volatile boolean lambdaRan;
    }

    /** Four call sites; its static initialiser and its lambdas must never run during linking. */
    @SuppressWarnings("unused")
    static final class Sites {
        static {
            Probe.initialised = true;
        }

        record Pair(String a, int b) {}

        static Supplier<String> supplier() {
            return () -> {
                Probe.lambdaRan = true;
                return "x";
            };
        }

        Function<String, Integer> capturing(int add) {
            return s -> {
                Probe.lambdaRan = true;
                return s.length() + add + hashCode();
            };
        }

        static Function<String, Integer> length() {
            return String::length;
        }

        static Function<String, StringBuilder> builder() {
            return StringBuilder::new;
        }
    }
}
