package dev.skillgate.inspect;

import static dev.skillgate.inspect.Bundles.skillMd;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile inputs of the acceptance list: each gives a specific diagnostic, in both
 * profiles, through validation and through discovery; nothing hangs (each test has a timeout), nothing
 * throws, and nothing is read past its bound.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HostileInputsTest {
    @TempDir
    Path root;

    static void mkfifo(Path path) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("mkfifo", path.toString()).start();
        assertThat(p.waitFor()).as("mkfifo").isZero();
    }

    /** Validates in both profiles and through discovery; returns the strict report. */
    private ValidationReport expect(Path dir, ErrorCode code) {
        for (ValidationProfile p : ValidationProfile.values()) {
            ValidationReport r = SkillValidator.validate(dir, p);
            assertThat(r.diagnostics())
                    .as("%s %s", p, r.diagnostics())
                    .anySatisfy(d -> assertThat(d.code()).isEqualTo(code));
            assertThat(r.portable()).isFalse();
            assertThat(r.loadable()).isFalse();
        }
        DiscoveryResult found = SkillDiscovery.discover(DiscoveryOptions.of(List.of(dir.getParent())));
        assertThat(found.skills()).isEmpty();
        return SkillValidator.validate(dir, ValidationProfile.STRICT);
    }

    @Test
    void fifoNamedSkillMdIsRefusedWithoutOpeningIt() throws Exception {
        Path dir = Files.createDirectories(root.resolve("fifo-skill"));
        mkfifo(dir.resolve("SKILL.md"));
        ValidationReport r = expect(dir, ErrorCode.READ_NOT_REGULAR);
        assertThat(r.diagnostics().get(0).message()).contains("FIFO").contains("not opened");
        DiscoveryResult found = SkillDiscovery.discover(DiscoveryOptions.of(List.of(root)));
        assertThat(found.rejected())
                .singleElement()
                .satisfies(
                        rep -> assertThat(rep.has(ErrorCode.READ_NOT_REGULAR)).isTrue());
    }

    @Test
    void skillMdLinkedToAValidFileIsRefused() throws IOException {
        Path elsewhere = Bundles.write(root.resolve("elsewhere/real.md"), skillMd("name: linked\ndescription: d"));
        Path dir = Files.createDirectories(root.resolve("skills/linked"));
        Files.createSymbolicLink(dir.resolve("SKILL.md"), elsewhere);
        expect(dir, ErrorCode.READ_LINK);
    }

    @Test
    void skillMdLinkedToDevZeroIsRefused() throws IOException {
        Path dir = Files.createDirectories(root.resolve("zero"));
        Files.createSymbolicLink(dir.resolve("SKILL.md"), Path.of("/dev/zero"));
        expect(dir, ErrorCode.READ_LINK);
    }

    @Test
    void symlinkedSkillDirectoryIsReportedAndNotFollowed() throws IOException {
        Path real = Bundles.valid(root.resolve("outside"), "linked-skill");
        Path skills = Files.createDirectories(root.resolve("skills"));
        Path link = Files.createSymbolicLink(skills.resolve("linked-skill"), real);
        for (ValidationProfile p : ValidationProfile.values()) {
            ValidationReport r = SkillValidator.validate(link, p);
            assertThat(r.portableErrors())
                    .singleElement()
                    .satisfies(d -> assertThat(d.code()).isEqualTo(ErrorCode.LAYOUT_LINK));
        }
        DiscoveryResult found = SkillDiscovery.discover(DiscoveryOptions.of(List.of(skills)));
        assertThat(found.skills()).isEmpty();
        assertThat(found.diagnostics())
                .singleElement()
                .satisfies(d -> assertThat(d.code()).isEqualTo(ErrorCode.LAYOUT_LINK));
    }

    @Test
    void directoryNamedSkillMdIsRefused() throws IOException {
        Path dir = Files.createDirectories(root.resolve("dir-skill/SKILL.md")).getParent();
        ValidationReport r = expect(dir, ErrorCode.READ_NOT_REGULAR);
        assertThat(r.diagnostics().get(0).message()).contains("directory");
    }

    @Test
    void hundredMebibyteSkillMdIsRefusedBySizeWithoutReadingIt() throws IOException {
        Path dir = Files.createDirectories(root.resolve("huge"));
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("SKILL.md").toFile(), "rw")) {
            f.write("---\nname: huge\n".getBytes(StandardCharsets.UTF_8));
            f.setLength(100L * 1024 * 1024); // sparse: the test itself stays cheap
        }
        ValidationReport r = expect(dir, ErrorCode.READ_TOO_LARGE);
        assertThat(r.diagnostics().get(0).message()).contains("104857600 bytes").contains("1048576");
    }

    @Test
    void tenThousandDeepYamlIsRefusedAtTheDepthBound() {
        String deep = "name: deep\ndescription: d\nx: " + "[".repeat(10_000) + "]".repeat(10_000);
        Path dir = Bundles.skill(root, "deep", skillMd(deep));
        for (ValidationProfile p : ValidationProfile.values()) {
            ValidationReport r = SkillValidator.validate(dir, p);
            // The reference profile refuses flow collections first; the strict profile reaches the bound.
            ErrorCode expected = p == ValidationProfile.STRICT ? ErrorCode.FM_DEPTH : ErrorCode.FM_YAML;
            assertThat(r.portableErrors())
                    .singleElement()
                    .satisfies(d -> assertThat(d.code()).isEqualTo(expected));
        }
        StringBuilder block = new StringBuilder("name: deep\ndescription: d\nx:\n");
        for (int i = 1; i <= 40; i++) {
            block.append("  ".repeat(i)).append("k:\n");
        }
        block.append("  ".repeat(41)).append("v");
        Path blockDir = Bundles.skill(root.resolve("b"), "deep", skillMd(block.toString()));
        expect(blockDir, ErrorCode.FM_DEPTH);
    }

    @Test
    void aliasBombIsRefused() {
        String bomb =
                "name: bomb\ndescription: d\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
                        + "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
                        + "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n";
        Path dir = Bundles.skill(root, "bomb", skillMd(bomb));
        ValidationReport strict = SkillValidator.validate(dir, ValidationProfile.STRICT);
        assertThat(strict.portableErrors())
                .singleElement()
                .satisfies(d -> assertThat(d.code()).isEqualTo(ErrorCode.FM_ALIAS));
        String blockBomb = "name: bomb\ndescription: d\na: &a\n  - lol\nb:\n  - *a\n  - *a\n";
        expect(Bundles.skill(root.resolve("2"), "bomb", skillMd(blockBomb)), ErrorCode.FM_ALIAS);
    }

    @Test
    void invalidUtf8IsAnEncodingDiagnostic() {
        byte[] bytes = "---\nname: bad\ndescription: caf\u00FF\n---\n".getBytes(StandardCharsets.ISO_8859_1);
        ValidationReport r = expect(Bundles.skill(root, "bad", bytes), ErrorCode.FM_ENCODING);
        assertThat(r.diagnostics().get(0).message()).contains("offset 30");
        byte[] overlong = "---\nname: bad\ndescription: x\n---\n".getBytes(StandardCharsets.US_ASCII);
        byte[] withOverlong = new byte[overlong.length + 2];
        System.arraycopy(overlong, 0, withOverlong, 0, overlong.length);
        withOverlong[overlong.length] = (byte) 0xC0; // overlong encoding of '/'
        withOverlong[overlong.length + 1] = (byte) 0xAF;
        expect(Bundles.skill(root.resolve("2"), "bad", withOverlong), ErrorCode.FM_ENCODING);
        byte[] surrogate = "---\nname: bad\ndescription: \u0000\u0000\u0000\n---\n".getBytes(StandardCharsets.UTF_8);
        surrogate[27] = (byte) 0xED; // CESU-style surrogate U+D800
        surrogate[28] = (byte) 0xA0;
        surrogate[29] = (byte) 0x80;
        expect(Bundles.skill(root.resolve("3"), "bad", surrogate), ErrorCode.FM_ENCODING);
    }

    @Test
    void nulBytesAreAnEncodingDiagnostic() {
        ValidationReport r = expect(
                Bundles.skill(root, "nul", "---\nname: nul\ndescription: a\u0000b\n---\nbody"), ErrorCode.FM_ENCODING);
        assertThat(r.diagnostics().get(0).message()).contains("NUL");
        expect(
                Bundles.skill(root.resolve("2"), "nul", skillMd("name: nul\ndescription: d") + "\u0000"),
                ErrorCode.FM_ENCODING);
    }

    @Test
    void oneMegabyteSingleLineDescriptionExceedsTheFrontmatterBound() {
        String fm = "name: long\ndescription: " + "x".repeat(1_000_000);
        ValidationReport r = expect(Bundles.skill(root, "long", skillMd(fm)), ErrorCode.FM_TOO_LARGE);
        assertThat(r.diagnostics().get(0).message()).contains("65536");
    }

    @Test
    void frontmatterBoundIsExact() {
        String head = "name: edge\ndescription: ";
        int fill = 64 * 1024 - head.length() - 1; // frontmatter text = head + fill + "\n"
        Path ok = Bundles.skill(root, "edge", "---\n" + head + "x".repeat(fill) + "\n---\n");
        ValidationReport fits = SkillValidator.validate(ok, ValidationProfile.STRICT);
        assertThat(fits.diagnostics()).extracting(d -> d.code()).doesNotContain(ErrorCode.FM_TOO_LARGE);
        assertThat(fits.has(ErrorCode.DESC_LENGTH)).isTrue();
        Path over = Bundles.skill(root.resolve("2"), "edge", "---\n" + head + "x".repeat(fill + 1) + "\n---\n");
        assertThat(SkillValidator.validate(over).has(ErrorCode.FM_TOO_LARGE)).isTrue();
    }
}
