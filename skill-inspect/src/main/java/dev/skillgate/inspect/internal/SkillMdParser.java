package dev.skillgate.inspect.internal;

import dev.skillgate.inspect.FrontmatterValue;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Splits {@code SKILL.md} bytes into frontmatter and body and reads the frontmatter.
 *
 * <p>Order of checks: a UTF-8 byte-order mark; strict UTF-8 over the whole file; NUL bytes; an
 * opening line that is exactly {@code ---} (trailing spaces, tabs or a CR allowed); a closing line
 * of the same form within {@link Limits#FRONTMATTER_BYTES} bytes — line-anchored, so {@code ---}
 * inside a value is data; then the YAML (see {@link YamlFrontmatter}), which must be a mapping.
 * The first problem ends parsing and is returned alone, as the reference validator does.
 */
public final class SkillMdParser {
    public static final String REF_START = "SKILL.md must start with YAML frontmatter (---)";
    public static final String REF_CLOSE = "SKILL.md frontmatter not properly closed with ---";
    public static final String REF_MAPPING = "SKILL.md frontmatter must be a YAML mapping";

    private SkillMdParser() {}

    /**
     * The parts of a well-formed file.
     *
     * @param frontmatter the raw frontmatter text between the delimiter lines
     * @param body the raw text after the closing delimiter line
     * @param fields the frontmatter mapping
     */
    public record Parts(String frontmatter, String body, FrontmatterValue.Mapping fields) {}

    public static Parts parse(byte[] bytes, String location, ValidationProfile profile) throws Refusal {
        boolean ref = profile == ValidationProfile.REFERENCE_COMPATIBLE;
        int n = bytes.length;
        if (n >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB && (bytes[2] & 0xFF) == 0xBF) {
            if (ref) {
                throw new Refusal(ErrorCode.FM_START, location, REF_START);
            }
            throw new Refusal(
                    ErrorCode.FM_BOM,
                    location,
                    "SKILL.md starts with a UTF-8 byte-order mark; it must start with the line ---");
        }
        int bad = Utf8.firstInvalid(bytes, 0, n);
        if (bad >= 0) {
            throw new Refusal(
                    ErrorCode.FM_ENCODING,
                    location,
                    "SKILL.md is not valid UTF-8 (first bad byte at offset " + bad + ")");
        }
        int nul = Utf8.firstNul(bytes, 0, n);
        if (nul >= 0) {
            throw new Refusal(ErrorCode.FM_ENCODING, location, "SKILL.md contains a NUL byte (offset " + nul + ")");
        }
        int firstEnd = lineEnd(bytes, 0);
        if (!isDelimiter(bytes, 0, firstEnd)) {
            if (ref && startsWithDashes(bytes, firstEnd)) {
                // skills-ref splits on the first "---" anywhere, so text after the opening dashes
                // reaches its YAML parser and fails there; report the same verdict.
                throw YamlFrontmatter.yamlError(location, "unexpected text after --- on the opening line", 1);
            }
            if (ref || !startsWithDashes(bytes, firstEnd)) {
                throw new Refusal(ErrorCode.FM_START, location, REF_START);
            }
            throw new Refusal(
                    ErrorCode.FM_START,
                    location,
                    "SKILL.md must start with YAML frontmatter: the first line must be exactly ---");
        }
        int fmStart = firstEnd < n ? firstEnd + 1 : n;
        int limit = Limits.FRONTMATTER_BYTES;
        int lineStart = fmStart;
        int line = 2;
        int closeStart = -1;
        int closeEnd = -1;
        while (lineStart < n) {
            if (lineStart - fmStart > limit) {
                break;
            }
            int end = lineEnd(bytes, lineStart);
            if (isDelimiter(bytes, lineStart, end)) {
                closeStart = lineStart;
                closeEnd = end;
                break;
            }
            lineStart = end + 1;
            line++;
        }
        if (closeStart < 0) {
            if (Math.min(n, lineStart) - fmStart > limit) {
                throw tooLarge(location);
            }
            throw new Refusal(ErrorCode.FM_CLOSE, location, REF_CLOSE);
        }
        if (closeStart - fmStart > limit) {
            throw tooLarge(location);
        }
        String frontmatter = new String(bytes, fmStart, closeStart - fmStart, StandardCharsets.UTF_8);
        int bodyStart = closeEnd < n ? closeEnd + 1 : n;
        String body = new String(bytes, bodyStart, n - bodyStart, StandardCharsets.UTF_8);
        Optional<FrontmatterValue> root = YamlFrontmatter.read(frontmatter, 2, profile, location);
        if (root.isEmpty() || !(root.get() instanceof FrontmatterValue.Mapping mapping)) {
            throw new Refusal(ErrorCode.FM_MAPPING, location, REF_MAPPING);
        }
        return new Parts(frontmatter, body, mapping);
    }

    private static Refusal tooLarge(String location) {
        return new Refusal(
                ErrorCode.FM_TOO_LARGE,
                location,
                "SKILL.md frontmatter exceeds " + Limits.FRONTMATTER_BYTES
                        + " bytes (no closing --- line within the bound)");
    }

    /** Index of the '\n' ending the line that starts at {@code from}, or the length. */
    private static int lineEnd(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return b.length;
    }

    /** Whether the line [from, end) is {@code ---} followed only by spaces, tabs or a CR. */
    private static boolean isDelimiter(byte[] b, int from, int end) {
        if (end - from < 3 || b[from] != '-' || b[from + 1] != '-' || b[from + 2] != '-') {
            return false;
        }
        for (int i = from + 3; i < end; i++) {
            if (b[i] != ' ' && b[i] != '\t' && b[i] != '\r') {
                return false;
            }
        }
        return true;
    }

    private static boolean startsWithDashes(byte[] b, int end) {
        return end >= 3 && b[0] == '-' && b[1] == '-' && b[2] == '-';
    }
}
