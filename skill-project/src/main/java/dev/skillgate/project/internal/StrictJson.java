package dev.skillgate.project.internal;

import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Strict JSON for {@code package.json}, {@code package-lock.json} and tsconfig files: one value,
 * duplicate keys refused, bounded nesting. No comments, no trailing commas (a tsconfig with comments is
 * refused rather than read leniently). Jackson never appears outside this package.
 */
public final class StrictJson {
    private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(64)
                            .maxDocumentLength(16L * 1024 * 1024)
                            .build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build())
            .enable(tools.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private StrictJson() {}

    /** The parsed object, or empty when {@code bytes} is not exactly one strict JSON object. */
    public static Optional<JsonNode> object(byte[] bytes) {
        try {
            JsonNode node = MAPPER.readTree(bytes);
            return node != null && node.isObject() ? Optional.of(node) : Optional.empty();
        } catch (JacksonException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
