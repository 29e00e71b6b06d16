package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.Fixtures;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.model.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The canonical payload form: exact bytes, a strict reader, and Jackson as an independent oracle. */
class CanonicalJsonTest {
    private static final JsonMapper JACKSON = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, Object> read(String s) throws Exception {
        byte[] b = utf8(s);
        return CanonicalJson.read(b, 0, b.length);
    }

    @Test
    void writesSortedCompactUtf8() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("z", "\u00e9\ud83d\ude00 \"q\" \\ / \u2028");
        m.put("a", 0L);
        m.put("m", Map.of("y", true, "b", false));
        assertThat(new String(CanonicalJson.write(m), StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"a\":0,\"m\":{\"b\":false,\"y\":true},\"z\":\"\u00e9\ud83d\ude00 \\\"q\\\" \\\\ / \u2028\"}");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"a\":1, \"b\":2}", // whitespace
                " {\"a\":1}",
                "{\"a\":1}\n",
                "{\"b\":1,\"a\":2}", // unsorted
                "{\"a\":1,\"a\":1}", // duplicate
                "{\"a\":01}", // leading zero
                "{\"a\":-1}",
                "{\"a\":1.0}",
                "{\"a\":1e3}",
                "{\"a\":9007199254740992}", // 2^53
                "{\"a\":12345678901234567890}",
                "{\"a\":null}",
                "{\"a\":[1]}",
                "{\"a\":\"\\u0041\"}", // non-canonical escape
                "{\"a\":\"\\n\"}",
                "{\"a\":\"\\/\"}",
                "{\"a\":\"tab\there\"}", // raw control character
                "{\"1a\":1}",
                "{\"a-b\":1}",
                "{\"\":1}",
                "{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}", // depth 5
                "{\"a\":tru}",
                "{\"a\":\"unterminated}",
                "[]",
                ""
            })
    void rejectsEverythingOutsideTheCanonicalForm(String text) {
        assertThatThrownBy(() -> read(text)).isInstanceOf(CanonicalJson.NotCanonicalException.class);
    }

    @Test
    void rejectsInvalidUtf8AndEncodedSurrogates() {
        byte[][] bad = {
            {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'}, // truncated sequence
            {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'}, // overlong '/'
            {'{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'}, // U+D800
            {'{', '"', 'a', '"', ':', '"', (byte) 0xFF, '"', '}'},
        };
        for (byte[] b : bad) {
            assertThatThrownBy(() -> CanonicalJson.read(b, 0, b.length))
                    .isInstanceOf(CanonicalJson.NotCanonicalException.class);
        }
    }

    @Test
    void writerRefusesValuesOutsideTheSubset() {
        assertThatThrownBy(() -> CanonicalJson.write(Map.of("a", "\u0000")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.write(Map.of("a", "\ud800")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.write(Map.of("a", "\udc00x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.write(Map.of("a", -1L))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.write(Map.of("a", 2.5))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.write(Map.of("a-b", 1L))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.write(Map.of("a", List.of())))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Random strings over a hostile alphabet. */
    private static String randomString(Random r) {
        String[] pieces = {
            "a", "Z", "\"", "\\", "/", "\u00e9", "\u2028", "\u007f", "\ud83d\ude00", "\uFEFF", "\uFFFF", " "
        };
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(8);
        for (int i = 0; i < n; i++) {
            s.append(pieces[r.nextInt(pieces.length)]);
        }
        return s.toString();
    }

    private static Object randomValue(Random r, int depth) {
        return switch (r.nextInt(depth < 3 ? 4 : 3)) {
            case 0 -> randomString(r);
            case 1 -> r.nextInt(3) == 0 ? CanonicalJson.MAX_INTEGER : (long) r.nextInt(Integer.MAX_VALUE);
            case 2 -> r.nextBoolean();
            default -> randomObject(r, depth + 1);
        };
    }

    private static Map<String, Object> randomObject(Random r, int depth) {
        Map<String, Object> m = new TreeMap<>();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            String key = "k" + Integer.toString(r.nextInt(40), 36) + (r.nextBoolean() ? "A" : "b");
            m.put(key, randomValue(r, depth));
        }
        return m;
    }

    @Test
    void roundTripsAndAgreesWithJacksonOn2000RandomObjects() throws Exception {
        Random r = new Random(8785);
        for (int i = 0; i < 2000; i++) {
            Map<String, Object> value = randomObject(r, 1);
            byte[] canonical = CanonicalJson.write(value);
            assertThat(CanonicalJson.read(canonical, 0, canonical.length)).isEqualTo(value);
            // Jackson, sorting keys, writes the same bytes for the same value (RFC 8785 subset).
            Object parsed = JACKSON.readValue(canonical, Object.class);
            assertThat(JACKSON.writeValueAsBytes(parsed)).isEqualTo(canonical);
        }
    }

    @Test
    void storedScopeBytesGiveTheSameIdAsTheScopeItself() throws Exception {
        for (int i = 0; i < 200; i++) {
            TrustScope scope = i % 2 == 0 ? Fixtures.prompt(i) : Fixtures.execution(i);
            byte[] payload =
                    Payloads.encode(new AuditEvent.Approved(scope), Instant.ofEpochMilli(1_700_000_000_123L + i));
            Payloads.Decoded d = Payloads.decode(RecordType.APPROVE, payload, 0, payload.length);
            assertThat(d.event()).isEqualTo(new AuditEvent.Approved(scope));
            assertThat(d.scopeId()).isEqualTo(ScopeKey.of(scope.id()));
        }
    }

    @Test
    void instantsAreCanonical() throws Exception {
        for (String ok : List.of(
                "2026-01-01T00:00:00Z",
                "2026-01-01T00:00:00.100Z",
                "2026-01-01T00:00:00.000100Z",
                "2026-01-01T00:00:00.000000001Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999999Z",
                "2024-02-29T12:00:00Z")) {
            assertThat(Instants.format(Instants.parse(ok))).isEqualTo(ok);
        }
        for (String bad : List.of(
                "2026-01-01T00:00:00.1Z",
                "2026-01-01T00:00:00.000Z",
                "2026-01-01T00:00:00.100000Z",
                "2026-01-01T00:00:00+00:00",
                "2026-1-01T00:00:00Z",
                "2026-02-30T00:00:00Z",
                "2026-01-01T24:00:00Z",
                "2026-01-01T00:00:60Z",
                "+10000-01-01T00:00:00Z",
                "2026-01-01t00:00:00Z",
                "2026-01-01T00:00:00")) {
            assertThatThrownBy(() -> Instants.parse(bad)).as(bad).isInstanceOf(Frames.FormatException.class);
        }
    }

    @Test
    void recordValuesAreBoundedAndClean() {
        assertThatThrownBy(() -> Scopes.checkText("x".repeat(201), 200, "a reason"))
                .isInstanceOfSatisfying(
                        dev.skillgate.model.InvalidValueException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.AUDIT_RECORD_INVALID));
        assertThatThrownBy(() -> Scopes.checkText("bell\u0085", 200, "a reason"))
                .isInstanceOf(IllegalArgumentException.class);
        Scopes.checkText("d\u00e9j\u00e0 vu \ud83d\ude00", 200, "a reason");
    }
}
