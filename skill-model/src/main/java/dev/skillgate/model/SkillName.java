package dev.skillgate.model;

import dev.skillgate.model.shared.Text;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A skill name that satisfies the Agent Skills standard read literally (the strict profile).
 *
 * <p>Rules: 1 to 64 characters; only ASCII lowercase letters, digits and hyphens; no leading or
 * trailing hyphen; no two consecutive hyphens. Comparison is exact (the rules leave nothing to
 * normalise). Whether the name matches its directory is a bundle rule, checked by the inspector,
 * not by this type. The reference-compatible profile's Unicode/NFKC behaviour lives in the
 * inspector, never here.
 *
 * @param value the name
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SkillName(String value) implements Comparable<SkillName> {

    /** Longest allowed name, in characters. */
    public static final int MAX_LENGTH = 64;

    public SkillName {
        Objects.requireNonNull(value, "value");
        List<Diagnostic> problems = check(value);
        if (!problems.isEmpty()) {
            throw new InvalidValueException(
                    problems.get(0).code(), problems.get(0).message());
        }
    }

    /** Parses a name, throwing {@link InvalidValueException} with the first broken rule. */
    public static SkillName of(String value) {
        return new SkillName(value);
    }

    /** Whether {@code value} is a valid strict name. */
    public static boolean isValid(String value) {
        return check(value).isEmpty();
    }

    /**
     * Every broken rule, in the reference validator's order: length, lowercase, hyphen at an edge,
     * consecutive hyphens, character set. Empty when the name is valid.
     */
    public static List<Diagnostic> check(String value) {
        List<Diagnostic> out = new ArrayList<>(2);
        if (value.isEmpty()) {
            out.add(Diagnostic.error(ErrorCode.NAME_TYPE, "name", "Field 'name' must be a non-empty string"));
            return out;
        }
        int length = value.codePointCount(0, value.length());
        if (length > MAX_LENGTH) {
            out.add(Diagnostic.error(
                    ErrorCode.NAME_LENGTH,
                    "name",
                    "Skill name exceeds " + MAX_LENGTH + " character limit (" + length + " chars)"));
        }
        // Plain loops, no streams or lambdas: this runs in every `skillgate validate`, a fresh JVM
        // that would link each lambda through java.lang.invoke first (decision 0860).
        boolean upper = false;
        for (int i = 0; i < value.length() && !upper; ) {
            int cp = value.codePointAt(i);
            upper = Character.isUpperCase(cp);
            i += Character.charCount(cp);
        }
        if (upper) {
            out.add(Diagnostic.error(
                    ErrorCode.NAME_LOWERCASE, "name", "Skill name '" + Text.excerpt(value) + "' must be lowercase"));
        }
        if (value.startsWith("-") || value.endsWith("-")) {
            out.add(Diagnostic.error(
                    ErrorCode.NAME_HYPHEN_EDGE, "name", "Skill name cannot start or end with a hyphen"));
        }
        if (value.contains("--")) {
            out.add(Diagnostic.error(
                    ErrorCode.NAME_HYPHEN_DOUBLE, "name", "Skill name cannot contain consecutive hyphens"));
        }
        // ASCII capitals are reported once, as NAME_LOWERCASE; everything else outside a-z0-9- is a
        // charset problem (so Cyrillic capitals get both codes, as the conformance cases expect).
        boolean charset = true;
        for (int i = 0; i < value.length() && charset; i++) {
            char c = value.charAt(i);
            charset = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
        }
        if (!charset) {
            out.add(Diagnostic.error(
                    ErrorCode.NAME_CHARSET,
                    "name",
                    "Skill name '" + Text.excerpt(value)
                            + "' contains invalid characters. Only lowercase ASCII letters, digits, and hyphens are"
                            + " allowed."));
        }
        return List.copyOf(out);
    }

    @Override
    public int compareTo(SkillName other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
