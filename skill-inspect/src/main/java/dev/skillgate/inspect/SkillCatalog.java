package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.PyText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apiguardian.api.API;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The prompt catalog of loadable skills: name, description and location, in a deterministic order
 * (by name in code point order; names are unique after shadowing, then by location).
 *
 * <p>{@link #prompt()} renders the {@code <available_skills>} block the standard's reference tooling
 * produces, with every value escaped — the name, the description <em>and</em> the location (the
 * reference leaves the location unescaped) — and control characters other than tab, LF and CR (which XML cannot carry or discourages)
 * replaced by U+FFFD.
 * Values are the trimmed frontmatter text: a description may carry prompt injection and is quoted as
 * data, not vetted. {@link #toJson()} renders the same entries as JSON. A catalog is a value: it
 * reads nothing and runs nothing.
 *
 * <p><b>Model-facing view:</b> {@link #prompt()}, {@link #promptBlock()} and {@link #toJson()} leave
 * out the entries whose skill set {@code disable-model-invocation: true} (the one host field
 * Skillgate honours, and only in the safe direction: it hides, never grants); {@link #entries()}
 * still lists them for the user. {@link #includingModelInvocationDisabled()} switches that off
 * (decision 0635).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillCatalog {
    private static final JsonMapper JSON =
            JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private final List<Entry> entries;
    private final boolean includeDisabled;

    /**
     * One catalog line.
     *
     * @param name the skill name
     * @param description the description
     * @param location the absolute path of the skill file
     * @param modelInvocationDisabled the skill set {@code disable-model-invocation: true}: only the
     *     user may invoke it, so the model-facing views leave it out
     */
    public record Entry(String name, String description, Path location, boolean modelInvocationDisabled) {
        public Entry {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(description, "description");
            Objects.requireNonNull(location, "location");
        }

        /** An entry the model may see ({@code modelInvocationDisabled} false). */
        public Entry(String name, String description, Path location) {
            this(name, description, location, false);
        }
    }

    private SkillCatalog(List<Entry> entries, boolean includeDisabled) {
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparing(Entry::name, PyText.CODE_POINT_ORDER)
                .thenComparing(e -> e.location().toString(), PyText.CODE_POINT_ORDER));
        this.entries = List.copyOf(sorted);
        this.includeDisabled = includeDisabled;
    }

    /** The catalog of a discovery's loadable skills (shadowed and rejected ones are not listed). */
    public static SkillCatalog of(DiscoveryResult result) {
        return of(result.skills());
    }

    /** The catalog of {@code skills}. */
    public static SkillCatalog of(List<DiscoveredSkill> skills) {
        return new SkillCatalog(
                skills.stream()
                        .map(s -> new Entry(s.name(), s.description(), s.location(), s.modelInvocationDisabled()))
                        .toList(),
                false);
    }

    /** A catalog of explicit entries. */
    public static SkillCatalog ofEntries(List<Entry> entries) {
        return new SkillCatalog(entries, false);
    }

    /**
     * This catalog with the model-facing views also showing the skills that set {@code
     * disable-model-invocation: true} (a host that decides otherwise, explicitly).
     */
    public SkillCatalog includingModelInvocationDisabled() {
        return new SkillCatalog(entries, true);
    }

    /** Every entry, in catalog order, including those hidden from the model (for the user). */
    public List<Entry> entries() {
        return entries;
    }

    /** The entries the model-facing views show, in catalog order. */
    public List<Entry> modelEntries() {
        return includeDisabled
                ? entries
                : entries.stream().filter(e -> !e.modelInvocationDisabled()).toList();
    }

    /**
     * The {@code <available_skills>} block of the {@link #modelEntries()}, lines joined by {@code \n},
     * no trailing newline; the empty string when there are none (the client guide says to omit the
     * catalog then).
     */
    public String prompt() {
        return modelEntries().isEmpty() ? "" : promptBlock();
    }

    /**
     * The {@code <available_skills>} block of the {@link #modelEntries()}, also when empty ({@code
     * <available_skills>\n</available_skills>}).
     */
    public String promptBlock() {
        StringBuilder out = new StringBuilder("<available_skills>\n");
        for (Entry e : modelEntries()) {
            out.append("<skill>\n<name>\n")
                    .append(escape(e.name()))
                    .append("\n</name>\n<description>\n")
                    .append(escape(e.description()))
                    .append("\n</description>\n<location>\n")
                    .append(escape(e.location().toString()))
                    .append("\n</location>\n</skill>\n");
        }
        return out.append("</available_skills>").toString();
    }

    /**
     * {@code {"skills":[{"name","description","location"}…]}} of the {@link #modelEntries()},
     * pretty-printed, in catalog order.
     */
    public String toJson() {
        List<Map<String, Object>> skills = new ArrayList<>();
        for (Entry e : modelEntries()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.name());
            m.put("description", e.description());
            m.put("location", e.location().toString());
            skills.add(m);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("skills", skills);
        return JSON.writeValueAsString(doc);
    }

    /**
     * XML text escaping as Python's {@code html.escape(s, quote=True)} ({@code & < > " '}), plus
     * U+FFFD for every character XML 1.0 cannot carry (C0 controls other than tab, LF and CR,
     * unpaired surrogates, U+FFFE and U+FFFF) and for DEL and the C1 controls, which XML
     * discourages and terminals may interpret.
     */
    public static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            switch (cp) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#x27;");
                default -> {
                    boolean legal = cp == '\t'
                            || cp == '\n'
                            || cp == '\r'
                            || (cp >= 0x20 && cp < 0x7F)
                            || (cp > 0x9F && cp <= 0xD7FF)
                            || (cp >= 0xE000 && cp <= 0xFFFD)
                            || cp >= 0x10000;
                    out.appendCodePoint(legal ? cp : 0xFFFD);
                }
            }
        }
        return out.toString();
    }
}
