package dev.skillgate.benchmarks.corpus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;

/**
 * The 1,000-bundle corpus the peer comparison runs through Skillgate and through the reference
 * validator's ports: seeded, so every run and every tool sees the same bytes.
 *
 * <p>Each bundle belongs to one {@link Category}; most are ordinary valid skills, the rest are the
 * cases where validators are known to part ways (the reference's {@code ---} substring split,
 * Unicode names, astral characters, empty values, YAML dialect differences, unknown keys, bad
 * encodings). A category states which divergence, if any, it is meant to expose, so a table can
 * name the reason for a different verdict instead of only counting it.
 *
 * <p>Layout on disk: {@code <root>/<4-digit index>/<directory name>/SKILL.md}, so that two bundles
 * may share a skill name (and a directory name) without colliding. Not guaranteed: that every
 * category produces the verdict its description expects — that is what the comparison measures.
 */
public final class SkillCorpus {
    /** The corpus size the comparison is specified for. */
    public static final int SIZE = 1_000;

    /** The seed of the published figures. */
    public static final long SEED = 20261201L;

    private SkillCorpus() {}

    /**
     * One bundle of the corpus.
     *
     * @param index 0-based position
     * @param category what it exercises
     * @param directoryName the skill directory's name (may be non-ASCII)
     * @param skillMd the exact bytes of {@code SKILL.md} (not always valid UTF-8)
     */
    public record Bundle(int index, Category category, String directoryName, byte[] skillMd) {
        public Bundle {
            Objects.requireNonNull(category, "category");
            Objects.requireNonNull(directoryName, "directoryName");
            skillMd = skillMd.clone();
        }

        @Override
        public byte[] skillMd() {
            return skillMd.clone();
        }

        /** The relative location of the skill directory under a corpus root. */
        public Path relativeDirectory() {
            return Path.of(String.format(Locale.ROOT, "%04d", index), directoryName);
        }
    }

    /** The kinds of bundle, with how many of each the corpus holds. */
    public enum Category {
        VALID_MINIMAL(150, "valid: name and description only", null),
        VALID_ALL_FIELDS(140, "valid: all six standard fields", null),
        VALID_CRLF(30, "valid: CRLF line endings", null),
        BODY_WITH_DASH_LINE(30, "valid: a `---` line in the body (B13)", null),
        SPLIT_INSIDE_VALUE(
                40,
                "`a---b` inside the description, nothing after it (B12)",
                "same verdict; a substring split reads the description as the text before `---`"),
        SPLIT_HIDES_KEY(
                40,
                "`a---b` inside the description, then an unknown key (B12)",
                "a substring split on `---` ends the frontmatter inside the description, so the unknown key after it"
                        + " is never seen"),
        NFKC_NAME(
                40,
                "name equal to the directory only after NFKC (decomposed accent, fullwidth letters)",
                "the reference normalises names with NFKC; the strict profile allows ASCII `a-z0-9-` only"),
        UNICODE_NAME_CYRILLIC_CJK(
                40,
                "lowercase Cyrillic or CJK name",
                "the reference accepts any Unicode letter; the strict profile allows ASCII only"),
        UNICODE_NAME_OTHER_SCRIPTS(
                30,
                "lowercase Greek or Arabic name",
                "Python's `isalnum` accepts these letters; the JavaScript port's letter test covers only Latin,"
                        + " Cyrillic and CJK ranges; the strict profile allows ASCII only"),
        ASTRAL_DESCRIPTION(
                30,
                "description of 513–1,024 emoji (astral code points)",
                "the limit is 1,024 characters: code points in Python and Skillgate, UTF-16 units in JavaScript"),
        UNKNOWN_KEY(50, "an unknown top-level key", null),
        HOST_EXTENSION_KEY(30, "a Claude Code frontmatter key (e.g. `disable-model-invocation`)", null),
        DESCRIPTION_WITHOUT_VALUE(
                30,
                "`description:` with no value",
                "the JavaScript port turns YAML null into the string \"null\" (`String(null)`) and accepts it"),
        NAME_RULE_VIOLATION(80, "name breaks a rule (case, hyphens, characters, length)", null),
        DIRECTORY_MISMATCH(30, "name differs from the directory", null),
        DESCRIPTION_TOO_LONG(20, "description of 1,025–1,500 characters", null),
        EMPTY_COMPATIBILITY(
                20,
                "`compatibility: \"\"`",
                "the specification says 1–500 characters when present; the reference checks only the maximum"),
        FLOW_LIST_TOOLS(
                20,
                "`allowed-tools: [Read, Bash]` (a YAML flow list)",
                "the Python reference's strictyaml refuses flow collections; js-yaml accepts them and the port"
                        + " does not check `allowed-tools`; the strict profile requires one string"),
        NESTED_METADATA(
                20,
                "`metadata` with a nested map",
                "the specification wants string values; the references do not check `metadata`"),
        YAML_ERROR(30, "YAML syntax errors (tab indentation, unclosed bracket, `: ` in a plain value)", null),
        DUPLICATE_KEY(20, "a duplicate top-level key", null),
        BAD_DELIMITERS(40, "missing, unclosed, BOM-prefixed or malformed `---` delimiters", null),
        INVALID_UTF8(
                20,
                "a byte that is not UTF-8 inside the description",
                "Node decodes it to U+FFFD and carries on; Skillgate refuses the file (Python's reference crashes)"),
        UNTYPED_SCALARS(20, "unquoted `name: 123`/`true`, `version: 1.10`", null);

        private final int count;
        private final String description;
        private final String knownDivergence;

        Category(int count, String description, String knownDivergence) {
            this.count = count;
            this.description = description;
            this.knownDivergence = knownDivergence;
        }

        /** How many bundles of this kind the corpus holds. */
        public int count() {
            return count;
        }

        /** What the bundles look like. */
        public String description() {
            return description;
        }

        /** Why validators are expected to differ here; empty where they are expected to agree. */
        public String knownDivergence() {
            return knownDivergence == null ? "" : knownDivergence;
        }
    }

    private static final String[] WORDS = {
        "pdf", "data", "report", "git", "review", "deploy", "chart", "sheet", "mail", "image", "audio", "test",
        "lint", "format", "search", "index", "plan", "draft", "note", "sync", "backup", "query", "table", "slide",
        "invoice", "ticket", "release", "schema", "docs", "translate"
    };
    private static final String[] CYRILLIC = {"навык", "отчёт", "данные", "поиск", "таблица", "письмо"};
    private static final String[] CJK = {"技能", "报告", "数据", "搜索", "表格", "文档"};
    private static final String[] GREEK = {"δεξιότητα", "αναφορά", "δεδομένα", "αναζήτηση"};
    private static final String[] ARABIC = {"مهارة", "تقرير", "بيانات", "بحث"};
    private static final String[] EMOJI = {"😀", "🚀", "📄", "🧪", "🔧", "🌍"};

    /** The corpus of the published figures: {@link #SIZE} bundles from {@link #SEED}. */
    public static List<Bundle> standard() {
        return generate(SEED);
    }

    /** A corpus of {@link #SIZE} bundles from {@code seed}; the same seed gives the same bytes. */
    public static List<Bundle> generate(long seed) {
        Random random = new Random(seed);
        List<Bundle> bundles = new ArrayList<>(SIZE);
        for (Category category : Category.values()) {
            for (int i = 0; i < category.count(); i++) {
                bundles.add(make(bundles.size(), category, i, random));
            }
        }
        if (bundles.size() != SIZE) {
            throw new IllegalStateException("category counts add up to " + bundles.size());
        }
        return List.copyOf(bundles);
    }

    /** Writes the bundles under {@code root} and returns their skill directories, in order. */
    public static List<Path> write(Path root, List<Bundle> bundles) throws IOException {
        List<Path> dirs = new ArrayList<>(bundles.size());
        for (Bundle b : bundles) {
            Path dir = Files.createDirectories(root.resolve(b.relativeDirectory()));
            Files.write(dir.resolve("SKILL.md"), b.skillMd());
            dirs.add(dir);
        }
        return dirs;
    }

    private static Bundle make(int index, Category category, int i, Random r) {
        String name = name(r);
        String description = sentence(r, 20, 240);
        return switch (category) {
            case VALID_MINIMAL -> text(index, category, name, fm("name: " + name, "description: " + description));
            case VALID_ALL_FIELDS -> text(index, category, name, allFields(name, description, r, "\n"));
            case VALID_CRLF ->
                text(
                        index,
                        category,
                        name,
                        allFields(name, description, r, "\n").replace("\n", "\r\n"));
            case BODY_WITH_DASH_LINE ->
                text(
                        index,
                        category,
                        name,
                        "---\nname: " + name + "\ndescription: " + description
                                + "\n---\n# Steps\n\nFirst part.\n\n---\n\nSecond part after a rule.\n");
            case SPLIT_INSIDE_VALUE ->
                text(
                        index,
                        category,
                        name,
                        fm("name: " + name, "description: " + word(r) + "---" + word(r) + " " + description));
            case SPLIT_HIDES_KEY ->
                text(
                        index,
                        category,
                        name,
                        fm(
                                "name: " + name,
                                "description: " + word(r) + "---" + word(r) + " " + description,
                                word(r) + "-extra: " + word(r)));
            case NFKC_NAME -> nfkcName(index, category, i, r);
            case UNICODE_NAME_CYRILLIC_CJK -> {
                String n = (i % 2 == 0 ? CYRILLIC[r.nextInt(CYRILLIC.length)] : CJK[r.nextInt(CJK.length)])
                        + (r.nextBoolean() ? "-" + (1 + r.nextInt(9)) : "");
                yield text(index, category, n, fm("name: " + n, "description: " + description));
            }
            case UNICODE_NAME_OTHER_SCRIPTS -> {
                String n = i % 2 == 0 ? GREEK[r.nextInt(GREEK.length)] : ARABIC[r.nextInt(ARABIC.length)];
                yield text(index, category, n, fm("name: " + n, "description: " + description));
            }
            case ASTRAL_DESCRIPTION -> {
                int n = 513 + r.nextInt(512);
                StringBuilder d = new StringBuilder();
                for (int k = 0; k < n; k++) {
                    d.append(EMOJI[r.nextInt(EMOJI.length)]);
                }
                yield text(index, category, name, fm("name: " + name, "description: " + d));
            }
            case UNKNOWN_KEY -> {
                String key = switch (i % 4) {
                    case 0 -> "version: 1.0." + i;
                    case 1 -> "author: " + word(r);
                    case 2 -> "tags: " + word(r);
                    default -> word(r) + "_" + word(r) + ": " + word(r);
                };
                yield text(index, category, name, fm("name: " + name, "description: " + description, key));
            }
            case HOST_EXTENSION_KEY -> {
                String key = switch (i % 3) {
                    case 0 -> "disable-model-invocation: true";
                    case 1 -> "argument-hint: \"[file]\"";
                    default -> "user-invocable: false";
                };
                yield text(index, category, name, fm("name: " + name, "description: " + description, key));
            }
            case DESCRIPTION_WITHOUT_VALUE ->
                text(index, category, name, fm("name: " + name, "description:", "license: MIT"));
            case NAME_RULE_VIOLATION -> {
                String n = switch (i % 8) {
                    case 0 -> name.toUpperCase(Locale.ROOT);
                    case 1 -> "-" + name;
                    case 2 -> name + "-";
                    case 3 -> name.contains("-") ? name.replaceFirst("-", "--") : name + "--x";
                    case 4 -> name.replace('-', '_') + "_x";
                    case 5 -> name + ".v" + i;
                    case 6 -> (name + "-" + "abcdefghij".repeat(8)).substring(0, 65 + r.nextInt(15));
                    default -> "My" + Character.toUpperCase(name.charAt(0)) + name.substring(1);
                };
                yield text(index, category, n, fm("name: " + n, "description: " + description));
            }
            case DIRECTORY_MISMATCH ->
                text(index, category, name + "-dir", fm("name: " + name, "description: " + description));
            case DESCRIPTION_TOO_LONG -> {
                // Ends in a letter: YAML trims trailing spaces from a plain scalar.
                String d = (description + " ").repeat(100).substring(0, 1_024 + r.nextInt(476)) + "x";
                yield text(index, category, name, fm("name: " + name, "description: " + d));
            }
            case EMPTY_COMPATIBILITY ->
                text(index, category, name, fm("name: " + name, "description: " + description, "compatibility: \"\""));
            case FLOW_LIST_TOOLS ->
                text(
                        index,
                        category,
                        name,
                        fm("name: " + name, "description: " + description, "allowed-tools: [Read, Bash]"));
            case NESTED_METADATA ->
                text(
                        index,
                        category,
                        name,
                        fm("name: " + name, "description: " + description, "metadata:\n  hermes:\n    tags: x"));
            case YAML_ERROR -> {
                String body = switch (i % 3) {
                    case 0 -> fm("name: " + name, "description: " + description, "metadata:\n\tauthor: x");
                    case 1 -> fm("name: [" + name, "description: " + description);
                    default -> fm("name: " + name, "description: Use when: the user asks about " + word(r));
                };
                yield text(index, category, name, body);
            }
            case DUPLICATE_KEY ->
                text(index, category, name, fm("name: " + name, "description: " + description, "name: " + name));
            case BAD_DELIMITERS -> {
                String valid = "name: " + name + "\ndescription: " + description + "\n";
                String body = switch (i % 6) {
                    case 0 -> "# " + name + "\n\nNo frontmatter here.\n";
                    case 1 -> "---\n" + valid;
                    case 2 -> "\uFEFF---\n" + valid + "---\n# Body\n";
                    case 3 -> "\n---\n" + valid + "---\n# Body\n";
                    case 4 -> "----\n" + valid + "---\n# Body\n";
                    default -> "---\n" + valid + "...\n# Body\n";
                };
                yield text(index, category, name, body);
            }
            case INVALID_UTF8 -> {
                byte[] head = ("---\nname: " + name + "\ndescription: caf").getBytes(StandardCharsets.UTF_8);
                byte[] tail = (" " + description + "\n---\n# Body\n").getBytes(StandardCharsets.UTF_8);
                byte[] all = new byte[head.length + 1 + tail.length];
                System.arraycopy(head, 0, all, 0, head.length);
                all[head.length] = (byte) 0xE9; // Latin-1 'é': not UTF-8
                System.arraycopy(tail, 0, all, head.length + 1, tail.length);
                yield new Bundle(index, category, name, all);
            }
            case UNTYPED_SCALARS -> {
                String n = switch (i % 3) {
                    case 0 -> String.valueOf(100 + r.nextInt(900));
                    case 1 -> "true";
                    default -> name;
                };
                yield text(
                        index,
                        category,
                        n,
                        fm("name: " + n, "description: " + description, "metadata:\n  version: 1.10"));
            }
        };
    }

    private static Bundle nfkcName(int index, Category category, int i, Random r) {
        String base = word(r);
        if (i % 2 == 0) {
            // Directory in NFC ("café"), name decomposed ("cafe" + U+0301).
            String dir = base + "-caf\u00e9";
            String name = base + "-cafe\u0301";
            return text(index, category, dir, fm("name: " + name, "description: " + sentence(r, 20, 120)));
        }
        // Directory ASCII, name in fullwidth letters.
        StringBuilder wide = new StringBuilder();
        for (char c : base.toCharArray()) {
            wide.append((char) (c - 'a' + 0xFF41));
        }
        return text(index, category, base, fm("name: " + wide, "description: " + sentence(r, 20, 120)));
    }

    private static String allFields(String name, String description, Random r, String nl) {
        return String.join(
                nl,
                "---",
                "name: " + name,
                "description: " + description,
                "license: " + (r.nextBoolean() ? "Apache-2.0" : "MIT"),
                "compatibility: Requires Node.js 18+ and " + word(r),
                "allowed-tools: Read Bash(git:*)",
                "metadata:",
                "  author: " + word(r) + "-org",
                "  version: \"1." + r.nextInt(10) + "\"",
                "---",
                "# " + name,
                "",
                "Step one. Step two. See references/REFERENCE.md.",
                "");
    }

    private static String fm(String... lines) {
        return "---\n" + String.join("\n", lines) + "\n---\n# Instructions\n\nDo the work step by step.\n";
    }

    private static Bundle text(int index, Category category, String dir, String content) {
        return new Bundle(index, category, dir, content.getBytes(StandardCharsets.UTF_8));
    }

    private static String word(Random r) {
        return WORDS[r.nextInt(WORDS.length)];
    }

    private static String name(Random r) {
        int n = 1 + r.nextInt(3);
        StringBuilder s = new StringBuilder(word(r));
        for (int k = 1; k < n; k++) {
            s.append('-').append(word(r));
        }
        if (r.nextInt(4) == 0) {
            s.append('-').append(r.nextInt(100));
        }
        return s.toString();
    }

    private static String sentence(Random r, int min, int max) {
        int target = min + r.nextInt(max - min + 1);
        StringBuilder s = new StringBuilder("Use when the user asks to");
        while (s.length() < target) {
            s.append(' ').append(word(r));
        }
        return s.append('.').toString();
    }
}
