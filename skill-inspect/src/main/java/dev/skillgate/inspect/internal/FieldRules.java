package dev.skillgate.inspect.internal;

import dev.skillgate.inspect.Finding;
import dev.skillgate.inspect.FrontmatterValue;
import dev.skillgate.inspect.SkillDocument;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.Severity;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.shared.Text;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The frontmatter field rules of both profiles, in the reference validator's order: unknown keys,
 * name, directory match, description, compatibility; then the strict profile's own type rules
 * (license, metadata, allowed-tools); then host-specific notes that block nothing.
 */
public final class FieldRules {
    public static final int DESCRIPTION_MAX = 1024;
    public static final int COMPATIBILITY_MAX = 500;

    /** Longest untrusted value quoted verbatim in a reference-profile message, in code points. */
    static final int QUOTE_MAX = 128;

    /** The one host field honoured, and only in the safe direction (decision 0635). */
    static final String DISABLE_MODEL_INVOCATION = "disable-model-invocation";

    static final String REF_ALLOWED =
            "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']";

    private FieldRules() {}

    /**
     * Applies the rules of {@code profile}.
     *
     * @param containerName the directory name (or a legacy file's stem) the name must match
     * @param containerKind "Directory" or "File", for the match message
     */
    public static List<Finding> check(
            FrontmatterValue.Mapping fields, String containerName, String containerKind, ValidationProfile profile) {
        return profile == ValidationProfile.REFERENCE_COMPATIBLE
                ? reference(fields, containerName, containerKind)
                : strict(fields, containerName, containerKind);
    }

    // ---------------------------------------------------------------- reference (skills-ref) ----

    private static List<Finding> reference(FrontmatterValue.Mapping fields, String containerName, String kind) {
        List<Finding> out = new ArrayList<>();
        List<String> unknown = unknownKeys(fields);
        if (!unknown.isEmpty()) {
            StringBuilder keys = new StringBuilder();
            for (String k : unknown) {
                if (keys.length() > 0) {
                    keys.append(", ");
                }
                keys.append(quote(k));
                if (keys.length() > 200) {
                    break;
                }
            }
            out.add(portable(
                    ErrorCode.KEYS_UNKNOWN,
                    "",
                    "Unexpected fields in frontmatter: " + keys + ". Only " + REF_ALLOWED + " are allowed."));
        }
        Optional<FrontmatterValue> name = fields.get("name");
        if (name.isEmpty()) {
            out.add(blocking(ErrorCode.NAME_REQUIRED, "name", "Missing required field in frontmatter: name"));
        } else if (nonEmptyText(name.get()).isEmpty()) {
            out.add(blocking(ErrorCode.NAME_TYPE, "name", "Field 'name' must be a non-empty string"));
        } else {
            String n = PyText.nfkc(PyText.strip(nonEmptyText(name.get()).get()));
            int length = PyText.len(n);
            if (length > SkillName.MAX_LENGTH) {
                out.add(portable(
                        ErrorCode.NAME_LENGTH,
                        "name",
                        "Skill name '" + quote(n) + "' exceeds " + SkillName.MAX_LENGTH + " character limit (" + length
                                + " chars)"));
            }
            if (!n.equals(PyText.lower(n))) {
                out.add(portable(ErrorCode.NAME_LOWERCASE, "name", "Skill name '" + quote(n) + "' must be lowercase"));
            }
            if (n.startsWith("-") || n.endsWith("-")) {
                out.add(portable(ErrorCode.NAME_HYPHEN_EDGE, "name", "Skill name cannot start or end with a hyphen"));
            }
            if (n.contains("--")) {
                out.add(portable(
                        ErrorCode.NAME_HYPHEN_DOUBLE, "name", "Skill name cannot contain consecutive hyphens"));
            }
            if (!hyphensAndAlnum(n)) {
                out.add(portable(
                        ErrorCode.NAME_CHARSET,
                        "name",
                        "Skill name '" + quote(n)
                                + "' contains invalid characters. Only letters, digits, and hyphens are allowed."));
            }
            if (!PyText.nfkc(containerName).equals(n)) {
                out.add(portable(
                        ErrorCode.NAME_DIR_MATCH,
                        "name",
                        kind + " name '" + quote(containerName) + "' must match skill name '" + quote(n) + "'"));
            }
        }
        Optional<FrontmatterValue> description = fields.get("description");
        if (description.isEmpty()) {
            out.add(blocking(
                    ErrorCode.DESC_REQUIRED, "description", "Missing required field in frontmatter: description"));
        } else if (nonEmptyText(description.get()).isEmpty()) {
            out.add(blocking(ErrorCode.DESC_TYPE, "description", "Field 'description' must be a non-empty string"));
        } else {
            int length = PyText.len(nonEmptyText(description.get()).get());
            if (length > DESCRIPTION_MAX) {
                out.add(portable(
                        ErrorCode.DESC_LENGTH,
                        "description",
                        "Description exceeds " + DESCRIPTION_MAX + " character limit (" + length + " chars)"));
            }
        }
        Optional<FrontmatterValue> compatibility = fields.get("compatibility");
        if (compatibility.isPresent()) {
            if (!(compatibility.get() instanceof FrontmatterValue.Scalar s)) {
                out.add(portable(ErrorCode.COMPAT_TYPE, "compatibility", "Field 'compatibility' must be a string"));
            } else if (PyText.len(s.text()) > COMPATIBILITY_MAX) {
                out.add(portable(
                        ErrorCode.COMPAT_LENGTH,
                        "compatibility",
                        "Compatibility exceeds " + COMPATIBILITY_MAX + " character limit (" + PyText.len(s.text())
                                + " chars)"));
            }
        }
        hostNotes(fields, out);
        return out;
    }

    // ---------------------------------------------------------------- strict (S1 literally) ----

    private static List<Finding> strict(FrontmatterValue.Mapping fields, String containerName, String kind) {
        List<Finding> out = new ArrayList<>();
        List<String> unknown = unknownKeys(fields);
        int reported = 0;
        for (String key : unknown) {
            if (reported == Limits.VALIDATION_ISSUES) {
                out.add(portable(
                        ErrorCode.KEYS_UNKNOWN,
                        "",
                        (unknown.size() - reported) + " more non-standard fields (preserved, not enforced)"));
                break;
            }
            reported++;
            Optional<String> host = HostExtensions.hostOf(key);
            if (key.equals(DISABLE_MODEL_INVOCATION)) {
                out.add(portable(
                        ErrorCode.KEYS_HOST_EXTENSION,
                        key,
                        "Field '" + key + "' is a " + host.orElseThrow()
                                + " extension: preserved; honoured only in the safe direction (true keeps the skill"
                                + " out of the model-facing catalog); not part of the standard"));
            } else if (host.isPresent()) {
                out.add(portable(
                        ErrorCode.KEYS_HOST_EXTENSION,
                        key,
                        "Field '" + Text.excerpt(key) + "' is a " + host.get()
                                + " extension: preserved, not enforced; not part of the standard"));
            } else {
                out.add(portable(
                        ErrorCode.KEYS_UNKNOWN,
                        key,
                        "Unknown field '" + Text.excerpt(key)
                                + "': preserved, not enforced; not part of the standard (custom properties belong in"
                                + " metadata)"));
            }
        }
        Optional<FrontmatterValue> name = fields.get("name");
        if (name.isEmpty()) {
            out.add(blocking(ErrorCode.NAME_REQUIRED, "name", "Missing required field in frontmatter: name"));
        } else if (nonEmptyText(name.get()).isEmpty()) {
            out.add(blocking(ErrorCode.NAME_TYPE, "name", "Field 'name' must be a non-empty string"));
        } else {
            String raw = ((FrontmatterValue.Scalar) name.get()).text();
            for (Diagnostic d : SkillName.check(raw)) {
                out.add(new Finding(d, true, false));
            }
            if (!containerName.equals(raw)) {
                out.add(portable(
                        ErrorCode.NAME_DIR_MATCH,
                        "name",
                        kind + " name '" + quote(containerName) + "' must match skill name '" + quote(raw) + "'"));
            }
        }
        Optional<FrontmatterValue> description = fields.get("description");
        if (description.isEmpty()) {
            out.add(blocking(
                    ErrorCode.DESC_REQUIRED, "description", "Missing required field in frontmatter: description"));
        } else if (nonEmptyText(description.get()).isEmpty()) {
            out.add(blocking(ErrorCode.DESC_TYPE, "description", "Field 'description' must be a non-empty string"));
        } else {
            int length = PyText.len(((FrontmatterValue.Scalar) description.get()).text());
            if (length > DESCRIPTION_MAX) {
                out.add(portable(
                        ErrorCode.DESC_LENGTH,
                        "description",
                        "Description exceeds " + DESCRIPTION_MAX + " character limit (" + length + " chars)"));
            }
        }
        Optional<FrontmatterValue> compatibility = fields.get("compatibility");
        if (compatibility.isPresent()) {
            if (!(compatibility.get() instanceof FrontmatterValue.Scalar s)) {
                out.add(portable(ErrorCode.COMPAT_TYPE, "compatibility", "Field 'compatibility' must be a string"));
            } else {
                int length = PyText.len(s.text());
                if (length == 0) {
                    out.add(portable(
                            ErrorCode.COMPAT_LENGTH,
                            "compatibility",
                            "Compatibility must be 1 to " + COMPATIBILITY_MAX
                                    + " characters when present (it is empty)"));
                } else if (length > COMPATIBILITY_MAX) {
                    out.add(portable(
                            ErrorCode.COMPAT_LENGTH,
                            "compatibility",
                            "Compatibility exceeds " + COMPATIBILITY_MAX + " character limit (" + length + " chars)"));
                }
            }
        }
        FrontmatterValue license = fields.entries().get("license");
        if (license != null && !(license instanceof FrontmatterValue.Scalar)) {
            out.add(portable(
                    ErrorCode.LIC_TYPE, "license", "Field 'license' must be a string, not a " + license.kind()));
        }
        FrontmatterValue metadata = fields.entries().get("metadata");
        if (metadata != null) {
            checkMetadata(metadata, out);
        }
        FrontmatterValue tools = fields.entries().get("allowed-tools");
        if (tools != null) {
            if (!(tools instanceof FrontmatterValue.Scalar)) {
                out.add(portable(
                        ErrorCode.TOOLS_TYPE,
                        "allowed-tools",
                        "Field 'allowed-tools' must be one space-separated string, not a " + tools.kind()));
            }
            out.add(note(
                    ErrorCode.TOOLS_NOT_ENFORCED,
                    "allowed-tools",
                    "Field 'allowed-tools' is preserved, not enforced: Skillgate grants no tool and restricts none"));
        }
        hostNotes(fields, out);
        return out;
    }

    private static void checkMetadata(FrontmatterValue value, List<Finding> out) {
        if (value instanceof FrontmatterValue.Scalar s) {
            if (!s.text().isEmpty()) {
                out.add(portable(
                        ErrorCode.META_TYPE, "metadata", "Field 'metadata' must be a map of strings, not a string"));
            }
            return;
        }
        if (value instanceof FrontmatterValue.Sequence) {
            out.add(portable(ErrorCode.META_TYPE, "metadata", "Field 'metadata' must be a map of strings, not a list"));
            return;
        }
        int reported = 0;
        for (Map.Entry<String, FrontmatterValue> e :
                ((FrontmatterValue.Mapping) value).entries().entrySet()) {
            if (e.getValue() instanceof FrontmatterValue.Scalar) {
                continue;
            }
            if (reported == Limits.VALIDATION_ISSUES) {
                out.add(portable(ErrorCode.META_VALUE, "metadata", "more metadata values are not strings"));
                break;
            }
            reported++;
            out.add(portable(
                    ErrorCode.META_VALUE,
                    "metadata." + Text.excerpt(e.getKey()),
                    "Metadata value '" + Text.excerpt(e.getKey()) + "' must be a string, not a "
                            + e.getValue().kind() + " (preserved, not portable)"));
        }
    }

    /** Rules of hosted Anthropic surfaces: reported as notes, never enforced. */
    private static void hostNotes(FrontmatterValue.Mapping fields, List<Finding> out) {
        if (fields.entries().get("name") instanceof FrontmatterValue.Scalar n) {
            String lower = n.text().toLowerCase(Locale.ROOT);
            if (lower.contains("anthropic") || lower.contains("claude")) {
                out.add(note(
                        ErrorCode.HOST_ANTHROPIC_RESERVED,
                        "name",
                        "Skill name contains a word reserved on claude.ai and the Claude API (anthropic, claude);"
                                + " not enforced here"));
            }
        }
        if (fields.entries().get("description") instanceof FrontmatterValue.Scalar d) {
            if (d.text().indexOf('<') >= 0 || d.text().indexOf('>') >= 0) {
                out.add(note(
                        ErrorCode.HOST_ANTHROPIC_NO_XML,
                        "description",
                        "Description cannot contain angle brackets (< or >) on claude.ai and the Claude API;"
                                + " not enforced here"));
            }
        }
    }

    // No lambdas, streams or method references on this path (decision 0860): each distinct one is
    // an invokedynamic call site that a fresh JVM links through java.lang.invoke, and every
    // `skillgate validate` is a fresh JVM.

    /** The text of a scalar whose Python-stripped text is non-empty. */
    private static Optional<String> nonEmptyText(FrontmatterValue value) {
        if (value instanceof FrontmatterValue.Scalar s
                && !PyText.strip(s.text()).isEmpty()) {
            return Optional.of(s.text());
        }
        return Optional.empty();
    }

    /** The keys outside the standard six, in Python's default order (by code point). */
    private static List<String> unknownKeys(FrontmatterValue.Mapping fields) {
        List<String> unknown = new ArrayList<>();
        for (String k : fields.entries().keySet()) {
            if (!SkillDocument.STANDARD_FIELDS.contains(k)) {
                unknown.add(k);
            }
        }
        if (unknown.size() > 1) {
            unknown.sort(PyText.CODE_POINT_ORDER);
        }
        return List.copyOf(unknown);
    }

    /** Every code point is a hyphen or Python-alphanumeric. */
    private static boolean hyphensAndAlnum(String s) {
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            if (cp != '-' && !PyText.isAlnum(cp)) {
                return false;
            }
            i += Character.charCount(cp);
        }
        return true;
    }

    /** Untrusted text quoted in a message: escaped, and cut past {@link #QUOTE_MAX} code points. */
    static String quote(String untrusted) {
        return Text.sanitize(untrusted, QUOTE_MAX);
    }

    static Finding blocking(ErrorCode code, String location, String message) {
        return new Finding(Diagnostic.error(code, location, message), true, true);
    }

    static Finding portable(ErrorCode code, String location, String message) {
        return new Finding(Diagnostic.error(code, location, message), true, false);
    }

    static Finding note(ErrorCode code, String location, String message) {
        return new Finding(new Diagnostic(code, Severity.INFO, location, message), false, false);
    }

    static Finding warning(ErrorCode code, String location, String message) {
        return new Finding(Diagnostic.warning(code, location, message), false, false);
    }
}
