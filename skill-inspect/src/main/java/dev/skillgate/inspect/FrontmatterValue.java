package dev.skillgate.inspect;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * A frontmatter value as text: every YAML scalar is kept as its text (never typed), so
 * {@code name: 123} is the string {@code "123"} and {@code version: 1.10} stays {@code "1.10"}.
 *
 * <p>Values are immutable and nest at most as deep as the parser's depth bound. They carry data
 * only: no value in frontmatter grants a permission or changes execution.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface FrontmatterValue
        permits FrontmatterValue.Scalar, FrontmatterValue.Sequence, FrontmatterValue.Mapping {

    /** The scalar text, when this is a scalar. */
    default Optional<String> asText() {
        return this instanceof Scalar s ? Optional.of(s.text()) : Optional.empty();
    }

    /** {@code string}, {@code list} or {@code map}: the kind, for messages and JSON output. */
    String kind();

    /**
     * A scalar, as text exactly as YAML reads it (quotes removed, escapes applied, block scalars
     * folded); an empty value ({@code key:}) is the empty string.
     *
     * @param text the scalar text
     */
    record Scalar(String text) implements FrontmatterValue {
        public Scalar {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public String kind() {
            return "string";
        }
    }

    /**
     * A YAML sequence.
     *
     * @param items the items, in order
     */
    record Sequence(List<FrontmatterValue> items) implements FrontmatterValue {
        public Sequence {
            items = List.copyOf(items);
        }

        @Override
        public String kind() {
            return "list";
        }
    }

    /**
     * A YAML mapping with text keys, in document order (duplicate keys are rejected by the parser).
     *
     * @param entries the entries, in document order
     */
    record Mapping(Map<String, FrontmatterValue> entries) implements FrontmatterValue {
        public Mapping {
            Map<String, FrontmatterValue> copy = new LinkedHashMap<>();
            // A loop, not forEach with a lambda (decision 0860: no invokedynamic on the validate path).
            for (Map.Entry<String, FrontmatterValue> e : entries.entrySet()) {
                copy.put(Objects.requireNonNull(e.getKey(), "key"), Objects.requireNonNull(e.getValue(), "value"));
            }
            entries = Collections.unmodifiableMap(copy);
        }

        /** The value under {@code key}, if present. */
        public Optional<FrontmatterValue> get(String key) {
            return Optional.ofNullable(entries.get(key));
        }

        @Override
        public String kind() {
            return "map";
        }
    }
}
