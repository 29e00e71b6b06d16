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
                        file.bootstrapMethod(site);
                    } catch (IllegalArgumentException expected) {
                        // an index out of the pool or of the wrong kind: refused by name
                    }
                }
            } catch (IOException | IllegalArgumentException expected) {
                // refused
            }
            try {
                IndyPrelink.lambdaSites(damaged); // the count NoLambdaOnRunPathTest relies on
            } catch (IOException | IllegalArgumentException expected) {
                // refused, never an index or cast error
            }
        }
    }

    @Test
    void aBootstrapNamingAConstantOfTheWrongKindIsRefusedByName() throws IOException {
        byte[] good = bytes(SITES);
        IndyPrelink.ClassFile file = IndyPrelink.ClassFile.read(good);
        IndyPrelink.ClassFile.Site first = file.sites().get(0);
        int[] bootstrap = file.bootstrap(first);
        int utf8 = 1;
        while (file.entry(utf8)[0] != 1) {
            utf8++;
        }
        // The BootstrapMethods attribute: u2 count, then u2 handle, u2 argument count, arguments.
        int at = -1;
        for (int i = good.length - 6; i >= 0 && at < 0; i--) {
            int count = i >= 2 ? u2(good, i - 2) : 0;
            if (u2(good, i) == bootstrap[0] && u2(good, i + 2) == bootstrap.length - 1 && count > 0 && count < 64) {
                at = i;
            }
        }
        assertThat(at).as("the first bootstrap's handle in the class file").isPositive();
        byte[] damaged = good.clone();
        damaged[at] = (byte) (utf8 >> 8);
        damaged[at + 1] = (byte) utf8;
        IndyPrelink.ClassFile wrong = IndyPrelink.ClassFile.read(damaged);
        IndyPrelink.ClassFile.Site site = wrong.sites().get(0);
        assertThatThrownBy(() -> wrong.bootstrapMethod(site))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a method handle");
        assertThatThrownBy(() -> IndyPrelink.lambdaSites(damaged)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> file.bootstrapMethod(new IndyPrelink.ClassFile.Site(1_000, first.nameAndType())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no bootstrap method");
    }

    private static int u2(byte[] b, int i) {
        return ((b[i] & 0xff) << 8) | (b[i + 1] & 0xff);
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
