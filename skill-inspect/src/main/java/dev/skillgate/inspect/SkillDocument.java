package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.HostExtensions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * A parsed {@code SKILL.md}: the original bytes, the raw frontmatter text, the frontmatter as a
 * text-only tree, the six standard fields, the preserved non-standard fields and the body.
 *
 * <p>Nothing is dropped: every top-level key stays in {@link #fields()}, and keys outside the
 * standard six are also listed in {@link #preservedFields()} ("preserved, not enforced"). Scalar
 * values are text exactly as YAML reads them; they are never typed, so {@code name: 123} is {@code
 * "123"}. A document says nothing about validity: see the {@link ValidationReport} it came with.
 * Nothing in a document grants a permission or changes execution. Immutable; {@link #bytes()}
 * returns a copy.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillDocument {
    /** The six top-level keys the Agent Skills standard defines. */
    public static final Set<String> STANDARD_FIELDS =
            Set.of("name", "description", "license", "compatibility", "metadata", "allowed-tools");

    private final byte[] bytes;
    private final String fileName;
    private final String frontmatterText;
    private final String body;
    private final FrontmatterValue.Mapping fields;
    private final List<PreservedField> preserved;

    /**
     * Creates a document from its parts; {@code bytes} is copied.
     *
     * @param bytes the original file bytes
     * @param fileName the file the bytes came from ({@code SKILL.md}, {@code skill.md} or a legacy
     *     {@code NAME.md})
     * @param frontmatterText the raw text between the delimiter lines
     * @param body the raw text after the closing delimiter line
     * @param fields the frontmatter mapping
     */
    public SkillDocument(
            byte[] bytes, String fileName, String frontmatterText, String body, FrontmatterValue.Mapping fields) {
        this.bytes = Objects.requireNonNull(bytes, "bytes").clone();
        this.fileName = Objects.requireNonNull(fileName, "fileName");
        this.frontmatterText = Objects.requireNonNull(frontmatterText, "frontmatterText");
        this.body = Objects.requireNonNull(body, "body");
        this.fields = Objects.requireNonNull(fields, "fields");
        List<PreservedField> extra = new ArrayList<>();
        // A loop, not forEach with a lambda: every `skillgate validate` builds one document in a
        // fresh JVM, which links each lambda through java.lang.invoke first (decision 0860).
        for (Map.Entry<String, FrontmatterValue> e : fields.entries().entrySet()) {
            if (!STANDARD_FIELDS.contains(e.getKey())) {
                extra.add(new PreservedField(e.getKey(), e.getValue(), HostExtensions.hostOf(e.getKey())));
            }
        }
        this.preserved = List.copyOf(extra);
    }

    /** A copy of the original bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The size of the original file in bytes. */
    public int size() {
        return bytes.length;
    }

    /** The file name the document was read from. */
    public String fileName() {
        return fileName;
    }

    /** The raw frontmatter text between the delimiter lines, exactly as in the file. */
    public String frontmatterText() {
        return frontmatterText;
    }

    /** The raw body after the closing delimiter line, exactly as in the file (not trimmed). */
    public String body() {
        return body;
    }

    /** Every top-level frontmatter entry, in document order. */
    public FrontmatterValue.Mapping fields() {
        return fields;
    }

    /** {@code name} as written, when it is a scalar (not trimmed, not normalised). */
    public Optional<String> name() {
        return text("name");
    }

    /** {@code description} as written, when it is a scalar (not trimmed). */
    public Optional<String> description() {
        return text("description");
    }

    /** {@code license}, when it is a scalar. */
    public Optional<String> license() {
        return text("license");
    }

    /** {@code compatibility}, when it is a scalar. */
    public Optional<String> compatibility() {
        return text("compatibility");
    }

    /** {@code allowed-tools} as written (any shape); a hint to hosts that grants nothing. */
    public Optional<FrontmatterValue> allowedTools() {
        return fields.get("allowed-tools");
    }

    /**
     * Whether the Claude Code field {@code disable-model-invocation} asks to keep this skill out of
     * the model's view: its value is a scalar reading {@code true}, {@code yes} or {@code on} in any
     * case (YAML 1.1 and 1.2 spellings, read generously because hiding is the safe direction). The
     * one host field Skillgate honours, and only in that direction: it hides a skill from {@link
     * SkillCatalog#prompt()}, never grants anything (decision 0635).
     */
    public boolean modelInvocationDisabled() {
        return text("disable-model-invocation")
                .map(t -> t.strip().toLowerCase(java.util.Locale.ROOT))
                .filter(t -> t.equals("true") || t.equals("yes") || t.equals("on"))
                .isPresent();
    }

    /** {@code metadata} as written (any shape). */
    public Optional<FrontmatterValue> metadata() {
        return fields.get("metadata");
    }

    /** The entries of {@code metadata} whose values are scalars, in document order; empty otherwise. */
    public Map<String, String> stringMetadata() {
        Map<String, String> out = new LinkedHashMap<>();
        if (metadata().orElse(null) instanceof FrontmatterValue.Mapping map) {
            map.entries().forEach((k, v) -> v.asText().ifPresent(t -> out.put(k, t)));
        }
        return Collections.unmodifiableMap(out);
    }

    /** Top-level keys outside the standard six, kept verbatim: preserved, not enforced. */
    public List<PreservedField> preservedFields() {
        return preserved;
    }

    private Optional<String> text(String key) {
        return fields.get(key).flatMap(FrontmatterValue::asText);
    }

    /** Equal when the bytes, file name and every parsed part are equal. */
    @Override
    public boolean equals(Object o) {
        return o instanceof SkillDocument d
                && Arrays.equals(bytes, d.bytes)
                && fileName.equals(d.fileName)
                && frontmatterText.equals(d.frontmatterText)
                && body.equals(d.body)
                && fields.equals(d.fields);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(bytes), fileName, frontmatterText, body, fields);
    }

    @Override
    public String toString() {
        return "SkillDocument[" + fileName + ", " + bytes.length + " bytes, "
                + fields.entries().size() + " fields]";
    }
}
