package dev.skillgate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.OutputLimit;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs every group of every file in the official JSON-Schema-Test-Suite extract
 * ({@code ../shared/testdata/json-schema-test-suite/draft2020-12/}, read in place, never copied).
 *
 * <p>There are exactly two outcomes per group. A group whose schema fits the subset must compile and
 * give the suite's answer for every test (the data goes through the full strict pipeline as bytes).
 * A group whose schema leaves the subset must be rejected at load. Which of the two applies is
 * decided independently of the gate, by {@link #outsideSubset(JsonNode)} (written from SPEC §6) and
 * by the extract's own {@code keyword-usage.json}; the gate must agree with both. Any disagreement
 * fails the test; the counts are printed and pinned.
 */
class JsonSchemaTestSuiteTest {
    static final Path SUITE = Path.of("..", "..", "shared", "testdata", "json-schema-test-suite", "draft2020-12");

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private static final Set<String> ANNOTATIONS = Set.of("title", "description", "default", "examples");
    private static final Set<String> COUNTS = Set.of("minLength", "maxLength", "minItems", "maxItems");
    private static final Set<String> BOUNDS = Set.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum");
    private static final Map<String, String> ONLY_FOR = Map.ofEntries(
            Map.entry("properties", "object"),
            Map.entry("required", "object"),
            Map.entry("additionalProperties", "object"),
            Map.entry("items", "array"),
            Map.entry("minItems", "array"),
            Map.entry("maxItems", "array"),
            Map.entry("minLength", "string"),
            Map.entry("maxLength", "string"));

    @Test
    void everyGroupEitherMatchesTheSuiteOrIsRejectedAtLoad() throws IOException {
        assertThat(SUITE).as("the shared test data next to the repository").isDirectory();
        JsonNode usage =
                MAPPER.readTree(SUITE.resolve("keyword-usage.json").toFile()).get("files");
        List<Path> files;
        try (Stream<Path> list = Files.list(SUITE)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .filter(p -> !p.getFileName().toString().equals("keyword-usage.json"))
                    .sorted()
                    .toList();
        }
        assertThat(files).hasSize(22);

        int groups = 0;
        int tests = 0;
        int groupsRun = 0;
        int testsRun = 0;
        int testsPassed = 0;
        int groupsRejected = 0;
        int testsInRejectedGroups = 0;
        List<String> disagreements = new ArrayList<>();
        Map<String, int[]> perFile = new TreeMap<>();

        for (Path file : files) {
            String name = file.getFileName().toString();
            JsonNode fileGroups = MAPPER.readTree(file.toFile());
            int[] counts = new int[3];
            perFile.put(name, counts);
            for (int g = 0; g < fileGroups.size(); g++) {
                JsonNode group = fileGroups.get(g);
                JsonNode schema = group.get("schema");
                JsonNode groupTests = group.get("tests");
                groups++;
                tests += groupTests.size();
                String label = name + "[" + g + "] " + group.get("description").asString();

                List<String> reasons = outsideSubset(schema);
                boolean coreByUsage = usage.get(name).get(g).get("inCoreSubset").asBoolean();
                if (!coreByUsage && reasons.isEmpty()) {
                    disagreements.add(label + ": keyword-usage.json says outside the core, the oracle says inside");
                }

                SchemaCompilation compilation =
                        SchemaGate.compile(SchemaRole.OUTPUT, MAPPER.writeValueAsString(schema));
                if (!reasons.isEmpty()) {
                    groupsRejected++;
                    testsInRejectedGroups += groupTests.size();
                    counts[2]++;
                    if (compilation.isCompiled()) {
                        disagreements.add(label + ": outside the subset " + reasons + " but the gate admitted it");
                    } else if (compilation.diagnostics().stream()
                            .anyMatch(d -> d.code().group() != ErrorGroup.SCHEMA)) {
                        disagreements.add(label + ": rejected with a non-schema code " + compilation.diagnostics());
                    }
                    continue;
                }
                if (!compilation.isCompiled()) {
                    disagreements.add(label + ": inside the subset but rejected: " + compilation.diagnostics());
                    continue;
                }
                groupsRun++;
                counts[0]++;
                CompiledSchema compiled = compilation.compiled().orElseThrow();
                for (JsonNode test : groupTests) {
                    testsRun++;
                    counts[1]++;
                    byte[] data = MAPPER.writeValueAsString(test.get("data")).getBytes(StandardCharsets.UTF_8);
                    boolean expected = test.get("valid").asBoolean();
                    Validation<ValidatedResult> outcome =
                            compiled.checkResult(data, new OutputLimit(OutputLimit.MAX_BYTES));
                    if (outcome.isValid() == expected) {
                        testsPassed++;
                        if (!expected) {
                            assertIssuesWellFormed(label, outcome.issues());
                        }
                    } else {
                        disagreements.add(
                                label + " / " + test.get("description").asString() + ": expected valid=" + expected
                                        + ", got " + outcome.issues());
                    }
                }
            }
        }

        System.out.printf(
                "JSON-Schema-Test-Suite draft2020-12: %d files, %d groups, %d tests;"
                        + " groups run %d (tests run %d, passed %d);"
                        + " groups rejected at load %d (holding %d tests); disagreements %d%n",
                files.size(),
                groups,
                tests,
                groupsRun,
                testsRun,
                testsPassed,
                groupsRejected,
                testsInRejectedGroups,
                disagreements.size());
        perFile.forEach((file, c) ->
                System.out.printf("  %-26s run %2d groups / %3d tests, rejected %2d groups%n", file, c[0], c[1], c[2]));
        disagreements.forEach(d -> System.out.println("  DISAGREEMENT " + d));

        assertThat(disagreements).isEmpty();
        assertThat(groups).isEqualTo(118);
        assertThat(tests).isEqualTo(475);
        assertThat(groupsRun + groupsRejected).isEqualTo(groups);
        assertThat(testsPassed).isEqualTo(testsRun);
        // Pinned so that a change to the subset shows up here and in docs/json-protocol.md.
        assertThat(groupsRun).isEqualTo(52);
        assertThat(testsRun).isEqualTo(204);
        assertThat(groupsRejected).isEqualTo(66);
        assertThat(testsInRejectedGroups).isEqualTo(271);
    }

    private static void assertIssuesWellFormed(String label, List<Diagnostic> issues) {
        assertThat(issues).as(label).isNotEmpty().hasSizeLessThanOrEqualTo(20);
        for (Diagnostic issue : issues) {
            assertThat(issue.code().group()).as(label).isIn(ErrorGroup.VALUE, ErrorGroup.JSON);
            assertThat(issue.location()).as(label).matches("(/[^/]*)*");
        }
    }

    /**
     * Why a suite schema leaves the subset of SPEC §6 (empty when it fits). Written from the SPEC
     * text, independently of the gate's code.
     */
    static List<String> outsideSubset(JsonNode schema) {
        List<String> reasons = new ArrayList<>();
        visit(schema, true, reasons);
        return reasons;
    }

    private static void visit(JsonNode schema, boolean root, List<String> reasons) {
        if (!schema.isObject()) {
            reasons.add("non-object schema " + schema);
            return;
        }
        String type = schema.has("type") && schema.get("type").isString()
                ? schema.get("type").asString()
                : null;
        if (schema.has("type") && type == null) {
            reasons.add("type is not a single name");
        }
        if ("object".equals(type) && !schema.has("properties")) {
            reasons.add("object schema without properties");
        }
        if ("array".equals(type) && !schema.has("items")) {
            reasons.add("array schema without items");
        }
        for (String keyword : schema.propertyNames()) {
            JsonNode value = schema.get(keyword);
            if (keyword.equals("$schema")) {
                if (!root || !value.asString().equals("https://json-schema.org/draft/2020-12/schema")) {
                    reasons.add("$schema");
                }
                continue;
            }
            if (ANNOTATIONS.contains(keyword)) {
                continue;
            }
            if (schema.has("anyOf") && !keyword.equals("anyOf")) {
                reasons.add("assertion beside anyOf: " + keyword);
                continue;
            }
            String onlyFor = ONLY_FOR.get(keyword);
            if (type != null && onlyFor != null && !onlyFor.equals(type)) {
                reasons.add(keyword + " cannot apply to " + type);
            }
            if (BOUNDS.contains(keyword) && type != null && !type.equals("number") && !type.equals("integer")) {
                reasons.add(keyword + " cannot apply to " + type);
            }
            switch (keyword) {
                case "type" -> {}
                case "properties" ->
                    value.properties().forEach(e -> {
                        if (e.getKey().equals("__proto__")) {
                            reasons.add("__proto__ property");
                        }
                        visit(e.getValue(), false, reasons);
                    });
                case "required" ->
                    value.forEach(v -> {
                        if (v.asString().equals("__proto__")) {
                            reasons.add("__proto__ required");
                        }
                    });
                case "additionalProperties" -> {
                    if (!value.isBoolean()) {
                        reasons.add("additionalProperties as a schema");
                    }
                }
                case "items" -> visit(value, false, reasons);
                case "enum" ->
                    value.forEach(v -> {
                        if (v.isContainer()) {
                            reasons.add("non-scalar enum value");
                        }
                    });
                case "const" -> {
                    if (value.isContainer()) {
                        reasons.add("non-scalar const");
                    }
                }
                case "anyOf" -> {
                    if (value.size() < 2 || value.size() > 4) {
                        reasons.add("anyOf with " + value.size() + " branches");
                    }
                    value.forEach(branch -> visit(branch, false, reasons));
                }
                default -> {
                    if (COUNTS.contains(keyword)) {
                        BigDecimal count = value.decimalValue();
                        if (count.signum() < 0 || count.stripTrailingZeros().scale() > 0) {
                            reasons.add(keyword + " not a count");
                        }
                    } else if (!BOUNDS.contains(keyword)) {
                        reasons.add("keyword " + keyword);
                    }
                }
            }
        }
    }
}
