package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The Java mirror of {@code src/main/c/protocol.h} must agree with it, constant by constant. */
class ProtocolConstantsTest {
    private static final Pattern DEFINE = Pattern.compile("^#define\\s+([A-Z0-9_]+)\\s+(.+?)\\s*(/\\*.*)?$");
    private static final Map<String, String> RENAMED = Map.of("SV_PROTOCOL", "PROTOCOL", "REQ_MAGIC", "REQUEST_MAGIC");
    private static final Set<String> C_ONLY = Set.of("SKILLGATE_PROTOCOL_H", "SV_VERSION");
    private static final Set<String> JAVA_ONLY =
            Set.of("HELLO_FIXED", "SPAWNED_SIZE", "RESULT_FIXED", "MAX_VERSION", "MAX_DETAIL");

    static Map<String, String> defines() throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("src/main/c/protocol.h"), StandardCharsets.US_ASCII)) {
            Matcher m = DEFINE.matcher(line.trim());
            if (m.matches()) {
                out.put(m.group(1), m.group(2));
            }
        }
        return out;
    }

    @Test
    void everyDefineHasTheSameValueInJava() throws Exception {
        Map<String, String> defines = defines();
        assertThat(defines).hasSizeGreaterThan(60);
        for (Map.Entry<String, String> d : defines.entrySet()) {
            if (C_ONLY.contains(d.getKey())) {
                continue;
            }
            String name = RENAMED.getOrDefault(d.getKey(), d.getKey());
            Field f = Wire.class.getField(name);
            Object javaValue = f.get(null);
            if (javaValue instanceof byte[]) {
                String text = d.getValue().replace("\"", "");
                assertThat((byte[]) javaValue).as(name).isEqualTo(text.getBytes(StandardCharsets.US_ASCII));
            } else {
                assertThat(((Number) javaValue).longValue()).as(name).isEqualTo(evaluate(d.getValue()));
            }
        }
    }

    @Test
    void javaHasNoConstantTheHeaderLacks() throws Exception {
        Map<String, String> defines = defines();
        for (Field f : Wire.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || JAVA_ONLY.contains(f.getName())) {
                continue;
            }
            String cName = RENAMED.entrySet().stream()
                    .filter(e -> e.getValue().equals(f.getName()))
                    .map(Map.Entry::getKey)
                    .findFirst()
                    .orElse(f.getName());
            assertThat(defines).as(f.getName()).containsKey(cName);
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void theProbeReportsTheHeadersVersion(@TempDir Path data) throws Exception {
        String version = defines().get("SV_VERSION").replace("\"", "");
        SupervisorCore core = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        assertThat(core.probe().orElseThrow().version()).isEqualTo(version);
    }

    /** Evaluates the header's constant expressions: integers (decimal, hex, u suffix), chars, +, *, (). */
    static long evaluate(String expr) {
        return new Object() {
            int pos;
            final String s = expr.replaceAll("\\s+", "");

            long sum() {
                long v = product();
                while (pos < s.length() && s.charAt(pos) == '+') {
                    pos++;
                    v += product();
                }
                return v;
            }

            long product() {
                long v = atom();
                while (pos < s.length() && s.charAt(pos) == '*') {
                    pos++;
                    v *= atom();
                }
                return v;
            }

            long atom() {
                char c = s.charAt(pos);
                if (c == '(') {
                    pos++;
                    long v = sum();
                    pos++; // ')'
                    return v;
                }
                if (c == '\'') {
                    long v = s.charAt(pos + 1);
                    pos += 3;
                    return v;
                }
                int start = pos;
                while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)))) {
                    pos++;
                }
                String lit = s.substring(start, pos).replaceAll("[uU]+$", "");
                return lit.startsWith("0x") ? Long.parseLong(lit.substring(2), 16) : Long.parseLong(lit);
            }
        }.sum();
    }
}
