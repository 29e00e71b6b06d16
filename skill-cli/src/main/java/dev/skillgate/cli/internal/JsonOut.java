package dev.skillgate.cli.internal;

import dev.skillgate.model.Diagnostic;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes {@code --json} output: plain maps and lists (use {@link LinkedHashMap} for a stable key
 * order), pretty-printed, one document per command. Schemas are documented in {@code docs/cli.md}.
 */
final class JsonOut {
    /** Built on first print: building the maps alone loads no Jackson class (decision 0801). */
    private static final class Mapper {
        static final JsonMapper INSTANCE =
                JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    }

    private JsonOut() {}

    /** Prints {@code document} as JSON followed by a newline. */
    static void print(PrintStream out, Object document) {
        out.println(Mapper.INSTANCE.writeValueAsString(document));
    }

    /** A diagnostic as {@code {"code","severity","location","message"}}. */
    static Map<String, Object> diagnostic(Diagnostic d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("code", d.code().name());
        m.put("severity", d.severity().name());
        m.put("location", d.location());
        m.put("message", d.message());
        return m;
    }

    /** Diagnostics as a list of {@link #diagnostic} maps. */
    static List<Map<String, Object>> diagnostics(List<Diagnostic> diagnostics) {
        return diagnostics.stream().map(JsonOut::diagnostic).toList();
    }
}
