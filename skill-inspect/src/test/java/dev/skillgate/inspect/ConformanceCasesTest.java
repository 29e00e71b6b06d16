package dev.skillgate.inspect;

import static dev.skillgate.inspect.Bundles.skillMd;
import static dev.skillgate.model.ErrorCode.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case of {@code shared/reference/agent-skills-cases.md} sections B–F that is a single bundle,
 * run from a real directory on disk under both profiles: the reference-compatible profile must give
 * exactly the reference validator's messages (in order; {@code …} stands for parser text), the
 * strict profile exactly the listed codes. Layout cases (A), the catalog (G) and lenient discovery
 * (H) are in {@link LayoutAndDiscoveryCasesTest}; {@link #everyCaseOfTheReferenceFileIsCovered} keeps
 * the two in step with the reference file.
 */
class ConformanceCasesTest {
    static final String ALLOWED = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']";

    /** Case ids tested elsewhere (layout, catalog, lenient discovery, packaging-only). */
    static final Set<String> TESTED_ELSEWHERE = Set.of(
            "A01", "A02", "A03", "A04", "A05", "A06", "A07", "A08", "A09", "A10", "F06", "G01", "G02", "G03", "G04",
            "G05", "G06", "G07", "H01", "H02", "H03", "H04", "H05", "H06");

    record Case(String id, String dir, byte[] content, List<String> ref, List<ErrorCode> strict) {
        @Override
        public String toString() {
            return id;
        }
    }

    static Case c(String id, String dir, String frontmatter, List<String> ref, List<ErrorCode> strict) {
        return new Case(id, dir, skillMd(frontmatter).getBytes(StandardCharsets.UTF_8), ref, strict);
    }

    static Case raw(String id, String content, List<String> ref, List<ErrorCode> strict) {
        return new Case(id, "my-skill", content.getBytes(StandardCharsets.UTF_8), ref, strict);
    }

    static final String START = "SKILL.md must start with YAML frontmatter (---)";
    static final String CLOSE = "SKILL.md frontmatter not properly closed with ---";
    static final String MAPPING = "SKILL.md frontmatter must be a YAML mapping";
    static final String YAML = "Invalid YAML in frontmatter: …";
    static final String FLOW = "Invalid YAML in frontmatter: …Found ugly disallowed JSONesque flow mapping…";
    static final String NAME_EMPTY = "Field 'name' must be a non-empty string";
    static final String DESC_EMPTY = "Field 'description' must be a non-empty string";
    static final String EDGE = "Skill name cannot start or end with a hyphen";
    static final String DOUBLE = "Skill name cannot contain consecutive hyphens";

    static String lower(String n) {
        return "Skill name '" + n + "' must be lowercase";
    }

    static String charset(String n) {
        return "Skill name '" + n + "' contains invalid characters. Only letters, digits, and hyphens are allowed.";
    }

    static String length(String n, int len) {
        return "Skill name '" + n + "' exceeds 64 character limit (" + len + " chars)";
    }

    static String dirMatch(String dir, String n) {
        return "Directory name '" + dir + "' must match skill name '" + n + "'";
    }

    static String unexpected(String keys) {
        return "Unexpected fields in frontmatter: " + keys + ". Only " + ALLOWED + " are allowed.";
    }

    static final String D = "\ndescription: d";

    static List<String> ok() {
        return List.of();
    }

    static Stream<Case> cases() {
        String a64 = "a".repeat(64);
        String a65 = "a".repeat(65);
        String a70 = "a".repeat(70);
        String fi33 = "\uFB01".repeat(33);
        String nm = "name: my-skill\ndescription: d";
        return Stream.of(
                // B. delimiters, encoding, YAML
                raw("B01", "# No frontmatter here\n", List.of(START), List.of(FM_START)),
                raw("B02", "---\nname: my-skill\ndescription: A test skill\n", List.of(CLOSE), List.of(FM_CLOSE)),
                raw("B03", "\n---\nname: my-skill\ndescription: d\n---\n", List.of(START), List.of(FM_START)),
                new Case(
                        "B04",
                        "my-skill",
                        concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, skillMd(nm)),
                        List.of(START),
                        List.of(FM_BOM)),
                raw("B05", "---\r\nname: my-skill\r\ndescription: d\r\n---\r\n# Body\r\n", ok(), List.of()),
                raw("B06", "---\n- just\n- a\n- list\n---\nBody", List.of(MAPPING), List.of(FM_MAPPING)),
                raw("B07", "---\n---\nBody", List.of(MAPPING), List.of(FM_MAPPING)),
                raw("B08", "---\nname: [invalid\ndescription: broken\n---\nBody", List.of(YAML), List.of(FM_YAML)),
                c(
                        "B09",
                        "my-skill",
                        "name: my-skill\ndescription: Use when: the user asks",
                        List.of("Invalid YAML in frontmatter: …mapping values are not allowed here…"),
                        List.of(FM_YAML)),
                c(
                        "B10",
                        "my-skill",
                        "name: my-skill\nname: my-skill\ndescription: d",
                        List.of("Invalid YAML in frontmatter: …Duplicate key 'name' found…"),
                        List.of(FM_DUPLICATE_KEY)),
                c(
                        "B11",
                        "my-skill",
                        "name: my-skill\ndescription: d\nmetadata:\n\tauthor: x",
                        List.of("Invalid YAML in frontmatter: …found character '\\t'…"),
                        List.of(FM_YAML)),
                c("B12", "my-skill", "name: my-skill\ndescription: a---b", ok(), List.of()),
                raw("B13", "---\n" + nm + "\n---\n# Body\n---\nmore text\n", ok(), List.of()),
                raw("B14", "---\n" + nm + "\n---", ok(), List.of()),
                c("B15", "my-skill", "# comment\nname: my-skill\ndescription: d # trailing", ok(), List.of()),
                raw("B16", "----\n" + nm + "\n---\n# Body\n", List.of(YAML), List.of(FM_START)),
                raw("B17", "---\n" + nm + "\n...\n# Body\n", List.of(CLOSE), List.of(FM_CLOSE)),
                new Case(
                        "B18",
                        "my-skill",
                        concat(skillMd(nm).getBytes(StandardCharsets.UTF_8), new byte[] {'c', 'a', 'f', (byte) 0xE9}),
                        List.of("SKILL.md is not valid UTF-8 (first bad byte at offset 48)"),
                        List.of(FM_ENCODING)),
                raw("B19", "--- \n" + nm + "\n---\n# Body\n", ok(), List.of()),
                // C. name
                c("C01", "pdf-processing", "name: pdf-processing" + D, ok(), List.of()),
                c("C02", "data-analysis", "name: data-analysis" + D, ok(), List.of()),
                c("C03", "pdf2-tools", "name: pdf2-tools" + D, ok(), List.of()),
                c("C04", "123", "name: 123" + D, ok(), List.of()),
                c(
                        "C05",
                        "PDF-Processing",
                        "name: PDF-Processing" + D,
                        List.of(lower("PDF-Processing")),
                        List.of(NAME_LOWERCASE)),
                c(
                        "C06",
                        "MySkill",
                        "name: MySkill\ndescription: A test skill",
                        List.of(lower("MySkill")),
                        List.of(NAME_LOWERCASE)),
                c("C07", "-my-skill", "name: -my-skill" + D, List.of(EDGE), List.of(NAME_HYPHEN_EDGE)),
                c("C08", "my-skill-", "name: my-skill-" + D, List.of(EDGE), List.of(NAME_HYPHEN_EDGE)),
                c("C09", "-", "name: \"-\"" + D, List.of(EDGE), List.of(NAME_HYPHEN_EDGE)),
                c("C10", "my--skill", "name: my--skill" + D, List.of(DOUBLE), List.of(NAME_HYPHEN_DOUBLE)),
                c("C11", "pdf--processing", "name: pdf--processing" + D, List.of(DOUBLE), List.of(NAME_HYPHEN_DOUBLE)),
                c(
                        "C12",
                        "my_skill",
                        "name: my_skill\ndescription: A test skill",
                        List.of(charset("my_skill")),
                        List.of(NAME_CHARSET)),
                c("C13", "my skill", "name: my skill" + D, List.of(charset("my skill")), List.of(NAME_CHARSET)),
                c("C14", "my.skill", "name: my.skill" + D, List.of(charset("my.skill")), List.of(NAME_CHARSET)),
                c("C15", a64, "name: " + a64 + D, ok(), List.of()),
                c("C16", a65, "name: " + a65 + D, List.of(length(a65, 65)), List.of(NAME_LENGTH)),
                c(
                        "C17",
                        a70,
                        "name: " + a70 + "\ndescription: A test skill",
                        List.of(length(a70, 70)),
                        List.of(NAME_LENGTH)),
                c(
                        "C18",
                        "my-skill",
                        "description: A test skill",
                        List.of("Missing required field in frontmatter: name"),
                        List.of(NAME_REQUIRED)),
                c("C19", "my-skill", "name: \"\"" + D, List.of(NAME_EMPTY), List.of(NAME_TYPE)),
                c("C20", "my-skill", "name:" + D, List.of(NAME_EMPTY), List.of(NAME_TYPE)),
                c("C21", "my-skill", "name:\n  - a" + D, List.of(NAME_EMPTY), List.of(NAME_TYPE)),
                // Strict also reports the directory mismatch of the untrimmed name.
                c("C22", "my-skill", "name: \"  my-skill  \"" + D, ok(), List.of(NAME_CHARSET, NAME_DIR_MATCH)),
                c(
                        "C23",
                        "wrong-name",
                        "name: correct-name\ndescription: A test skill",
                        List.of(dirMatch("wrong-name", "correct-name")),
                        List.of(NAME_DIR_MATCH)),
                c(
                        "C24",
                        "My-Skill",
                        "name: my-skill" + D,
                        List.of(dirMatch("My-Skill", "my-skill")),
                        List.of(NAME_DIR_MATCH)),
                c("C25", "技能", "name: 技能\ndescription: A skill with Chinese name", ok(), List.of(NAME_CHARSET)),
                c("C26", "мой-навык", "name: мой-навык" + D, ok(), List.of(NAME_CHARSET)),
                c("C27", "навык", "name: навык" + D, ok(), List.of(NAME_CHARSET)),
                c("C28", "НАВЫК", "name: НАВЫК" + D, List.of(lower("НАВЫК")), List.of(NAME_LOWERCASE, NAME_CHARSET)),
                // Strict compares the raw (decomposed) name with the (precomposed) directory: no match.
                c(
                        "C29",
                        "caf\u00E9",
                        "name: cafe\u0301\ndescription: A test skill",
                        ok(),
                        List.of(NAME_CHARSET, NAME_DIR_MATCH)),
                c("C30", "abc", "name: \uFF41\uFF42\uFF43" + D, ok(), List.of(NAME_CHARSET, NAME_DIR_MATCH)),
                c("C31", "\u01C5", "name: \u01C5" + D, List.of(lower("D\u017E")), List.of(NAME_CHARSET)),
                c("C32", fi33, "name: " + fi33 + D, List.of(length("fi".repeat(33), 66)), List.of(NAME_CHARSET)),
                c(
                        "C33",
                        "fun\uD83D\uDE00",
                        "name: fun\uD83D\uDE00" + D,
                        List.of(charset("fun\uD83D\uDE00")),
                        List.of(NAME_CHARSET)),
                c("C34", "a\u00B2", "name: a\u00B2" + D, ok(), List.of(NAME_CHARSET)),
                c("C35", "straße", "name: straße" + D, ok(), List.of(NAME_CHARSET)),
                c("C36", "v\u0661\u0662", "name: v\u0661\u0662" + D, ok(), List.of(NAME_CHARSET)),
                c("C37", "true", "name: true" + D, ok(), List.of()),
                c(
                        "C38",
                        "x",
                        "name: <b>x</b>" + D,
                        List.of(charset("<b>x</b>"), dirMatch("x", "<b>x</b>")),
                        List.of(NAME_CHARSET, NAME_DIR_MATCH)),
                c(
                        "C39",
                        "Bad_Dir",
                        "name: -Bad--Name_\ndescription: \"\"\ncompatibility: " + "y".repeat(501) + "\nextra: 1",
                        List.of(
                                unexpected("extra"),
                                lower("-Bad--Name_"),
                                EDGE,
                                DOUBLE,
                                charset("-Bad--Name_"),
                                dirMatch("Bad_Dir", "-Bad--Name_"),
                                DESC_EMPTY,
                                "Compatibility exceeds 500 character limit (501 chars)"),
                        List.of(
                                KEYS_UNKNOWN,
                                NAME_LOWERCASE,
                                NAME_HYPHEN_EDGE,
                                NAME_HYPHEN_DOUBLE,
                                NAME_CHARSET,
                                NAME_DIR_MATCH,
                                DESC_TYPE,
                                COMPAT_LENGTH)),
                c("C40", "claude-helper", "name: claude-helper" + D, ok(), List.of()),
                c("C41", "कौशल", "name: कौशल" + D, List.of(charset("कौशल")), List.of(NAME_CHARSET)),
                c("C42", "ทักษะ", "name: ทักษะ" + D, List.of(charset("ทักษะ")), List.of(NAME_CHARSET)),
                c("C43", "مهارة", "name: مهارة" + D, ok(), List.of(NAME_CHARSET)),
                // D. description (directory my-skill)
                c(
                        "D01",
                        "my-skill",
                        "name: my-skill",
                        List.of("Missing required field in frontmatter: description"),
                        List.of(DESC_REQUIRED)),
                c("D02", "my-skill", "name: my-skill\ndescription: \"\"", List.of(DESC_EMPTY), List.of(DESC_TYPE)),
                c("D03", "my-skill", "name: my-skill\ndescription: \"   \"", List.of(DESC_EMPTY), List.of(DESC_TYPE)),
                c("D04", "my-skill", "name: my-skill\ndescription:", List.of(DESC_EMPTY), List.of(DESC_TYPE)),
                c("D05", "my-skill", "name: my-skill\ndescription:\n  - a", List.of(DESC_EMPTY), List.of(DESC_TYPE)),
                c("D06", "my-skill", "name: my-skill\ndescription: " + "x".repeat(1024), ok(), List.of()),
                c(
                        "D07",
                        "my-skill",
                        "name: my-skill\ndescription: " + "x".repeat(1025),
                        List.of("Description exceeds 1024 character limit (1025 chars)"),
                        List.of(DESC_LENGTH)),
                c(
                        "D08",
                        "my-skill",
                        "name: my-skill\ndescription: " + "x".repeat(1100),
                        List.of("Description exceeds 1024 character limit (1100 chars)"),
                        List.of(DESC_LENGTH)),
                c("D09", "my-skill", "name: my-skill\ndescription: " + "é".repeat(1024), ok(), List.of()),
                c("D10", "my-skill", "name: my-skill\ndescription: " + "\uD83D\uDE00".repeat(1024), ok(), List.of()),
                c(
                        "D11",
                        "my-skill",
                        "name: my-skill\ndescription: " + "\uD83D\uDE00".repeat(1025),
                        List.of("Description exceeds 1024 character limit (1025 chars)"),
                        List.of(DESC_LENGTH)),
                c(
                        "D12",
                        "my-skill",
                        "name: my-skill\ndescription: >\n  " + "x".repeat(1024),
                        List.of("Description exceeds 1024 character limit (1025 chars)"),
                        List.of(DESC_LENGTH)),
                c("D13", "my-skill", "name: my-skill\ndescription: |\n  line one\n  line two", ok(), List.of()),
                c("D14", "my-skill", "name: my-skill\ndescription: \"Use when: the user asks\"", ok(), List.of()),
                c("D15", "my-skill", "name: my-skill\ndescription: Use <foo> & <bar> tags", ok(), List.of()),
                c("D16", "my-skill", "name: my-skill\ndescription: 42", ok(), List.of()),
                c("D17", "my-skill", "name: my-skill\ndescription: \"  padded  \"", ok(), List.of()),
                c(
                        "D18",
                        "my-skill",
                        "license: MIT",
                        List.of(
                                "Missing required field in frontmatter: name",
                                "Missing required field in frontmatter: description"),
                        List.of(NAME_REQUIRED, DESC_REQUIRED)),
                // E. optional fields (name: my-skill, description: d first)
                c(
                        "E01",
                        "my-skill",
                        nm + "\nlicense: Apache-2.0\ncompatibility: Requires git\nallowed-tools: Bash(git:*) Read\n"
                                + "metadata:\n  author: example-org\n  version: \"1.0\"",
                        ok(),
                        List.of()),
                c("E02", "my-skill", nm + "\nlicense: MIT\nmetadata:\n  author: Test", ok(), List.of()),
                c("E03", "my-skill", nm + "\nlicense: Proprietary. LICENSE.txt has complete terms", ok(), List.of()),
                c("E04", "my-skill", nm + "\nlicense:\n  - MIT", ok(), List.of(LIC_TYPE)),
                c("E05", "my-skill", nm + "\ncompatibility: Requires Python 3.11+", ok(), List.of()),
                c("E06", "my-skill", nm + "\ncompatibility: " + "x".repeat(500), ok(), List.of()),
                c(
                        "E07",
                        "my-skill",
                        nm + "\ncompatibility: " + "x".repeat(501),
                        List.of("Compatibility exceeds 500 character limit (501 chars)"),
                        List.of(COMPAT_LENGTH)),
                c(
                        "E08",
                        "my-skill",
                        nm + "\ncompatibility: " + "x".repeat(550),
                        List.of("Compatibility exceeds 500 character limit (550 chars)"),
                        List.of(COMPAT_LENGTH)),
                c("E09", "my-skill", nm + "\ncompatibility: \"\"", ok(), List.of(COMPAT_LENGTH)),
                c(
                        "E10",
                        "my-skill",
                        nm + "\ncompatibility:\n  - a",
                        List.of("Field 'compatibility' must be a string"),
                        List.of(COMPAT_TYPE)),
                c("E11", "my-skill", nm + "\nmetadata:\n  author: Test Author\n  version: 1.0", ok(), List.of()),
                c("E12", "my-skill", nm + "\nmetadata:\n  version: 1.10", ok(), List.of()),
                c("E13", "my-skill", nm + "\nmetadata:\n  flag: true", ok(), List.of()),
                c("E14", "my-skill", nm + "\nmetadata:\n  hermes:\n    tags: x", ok(), List.of(META_VALUE)),
                c("E15", "my-skill", nm + "\nmetadata:\n  tags: [a, b]", List.of(FLOW), List.of(META_VALUE)),
                c("E16", "my-skill", nm + "\nmetadata: hello", ok(), List.of(META_TYPE)),
                c("E17", "my-skill", nm + "\nmetadata:\n  - a", ok(), List.of(META_TYPE)),
                c("E18", "my-skill", nm + "\nmetadata:", ok(), List.of()),
                c("E19", "my-skill", nm + "\nallowed-tools: Bash(jq:*) Bash(git:*)", ok(), List.of()),
                c("E20", "my-skill", nm + "\nallowed-tools: Read, Grep, Glob", ok(), List.of()),
                c("E21", "my-skill", nm + "\nallowed-tools:\n  - Read\n  - Bash", ok(), List.of(TOOLS_TYPE)),
                c("E22", "my-skill", nm + "\nallowed-tools: [Read, Bash]", List.of(FLOW), List.of(TOOLS_TYPE)),
                c("E23", "my-skill", nm + "\nallowed-tools: \"\"", ok(), List.of()),
                // F. unknown and host-specific keys
                c(
                        "F01",
                        "my-skill",
                        "name: my-skill\ndescription: A test skill\nunknown_field: should not be here",
                        List.of(unexpected("unknown_field")),
                        List.of(KEYS_UNKNOWN)),
                c(
                        "F02",
                        "my-skill",
                        nm + "\nzeta: 1\nalpha: 2",
                        List.of(unexpected("alpha, zeta")),
                        List.of(KEYS_UNKNOWN, KEYS_UNKNOWN)),
                c(
                        "F03",
                        "my-skill",
                        nm + "\ndisable-model-invocation: true",
                        List.of(unexpected("disable-model-invocation")),
                        List.of(KEYS_HOST_EXTENSION)),
                c("F04", "my-skill", nm + "\nversion: 1.0.0", List.of(unexpected("version")), List.of(KEYS_UNKNOWN)),
                c(
                        "F05",
                        "my-skill",
                        "Name: my-skill\ndescription: d",
                        List.of(unexpected("Name"), "Missing required field in frontmatter: name"),
                        List.of(KEYS_UNKNOWN, NAME_REQUIRED)));
    }

    @TempDir
    Path root;

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void referenceProfileGivesTheReferenceMessages(Case c) {
        ValidationReport report = validateOnDisk(c, ValidationProfile.REFERENCE_COMPATIBLE);
        List<String> messages =
                report.portableErrors().stream().map(Diagnostic::message).toList();
        assertThat(messages).as("%s messages: %s", c.id(), messages).hasSameSizeAs(c.ref());
        for (int i = 0; i < messages.size(); i++) {
            assertThat(matches(c.ref().get(i), messages.get(i)))
                    .as("%s message %d: expected %s, got %s", c.id(), i, c.ref().get(i), messages.get(i))
                    .isTrue();
        }
        assertThat(report.portable()).isEqualTo(c.ref().isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void strictProfileGivesTheStrictCodes(Case c) {
        ValidationReport report = validateOnDisk(c, ValidationProfile.STRICT);
        List<ErrorCode> codes =
                report.portableErrors().stream().map(Diagnostic::code).toList();
        assertThat(codes).as("%s: %s", c.id(), report.diagnostics()).isEqualTo(c.strict());
        assertThat(report.portable()).isEqualTo(c.strict().isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void bytesInMemoryGiveTheSameVerdictsAsOnDisk(Case c) {
        for (ValidationProfile profile : ValidationProfile.values()) {
            ValidationReport disk = validateOnDisk(c, profile);
            ValidationReport memory = SkillValidator.validateBytes(c.content(), c.dir(), profile);
            assertThat(memory.diagnostics()).as(c.id()).isEqualTo(disk.diagnostics());
        }
    }

    private ValidationReport validateOnDisk(Case c, ValidationProfile profile) {
        boolean ascii = c.dir().chars().allMatch(ch -> ch < 0x80);
        assumeTrue(ascii || Bundles.utf8FileNames(), "non-ASCII file names need sun.jnu.encoding=UTF-8");
        Path dir = root.resolve(c.id()).resolve(c.dir());
        if (!Files.exists(dir)) {
            Bundles.skill(root.resolve(c.id()), c.dir(), c.content());
        }
        return SkillValidator.validate(dir, profile);
    }

    /** Exact, or with {@code …} standing for any text (and anchoring the ends that have none). */
    static boolean matches(String pattern, String actual) {
        if (!pattern.contains("…")) {
            return pattern.equals(actual);
        }
        String[] parts = pattern.split("…", -1);
        if (!actual.startsWith(parts[0])) {
            return false;
        }
        int at = parts[0].length();
        for (int i = 1; i < parts.length; i++) {
            int found = actual.indexOf(parts[i], at);
            if (found < 0) {
                return false;
            }
            at = found + parts[i].length();
        }
        return parts[parts.length - 1].isEmpty() || actual.endsWith(parts[parts.length - 1]);
    }

    @Test
    void everyCaseOfTheReferenceFileIsCovered() throws IOException {
        Path file = Path.of("../../shared/reference/agent-skills-cases.md");
        assertThat(file)
                .as("the shared reference folder sits next to the repository")
                .exists();
        Set<String> inFile = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^\\| ([A-H]\\d\\d) \\|").matcher(Files.readString(file));
        while (m.find()) {
            inFile.add(m.group(1));
        }
        Set<String> covered = new TreeSet<>(TESTED_ELSEWHERE);
        cases().forEach(c -> covered.add(c.id()));
        assertThat(covered).isEqualTo(inFile);
        assertThat(inFile).hasSize(132);
    }

    private static byte[] concat(byte[] a, String b) {
        return concat(a, b.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static List<String> idsOf(List<Case> cases) {
        List<String> ids = new ArrayList<>();
        cases.forEach(c -> ids.add(c.id()));
        return ids;
    }
}
