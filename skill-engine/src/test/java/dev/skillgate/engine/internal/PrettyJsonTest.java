package dev.skillgate.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PrettyJsonTest {

    @Test
    void rendersNestedValuesOneMemberPerLineAndKeepsEmptyContainersTogether() {
        assertThat(PrettyJson.render("{\"a\":[1,{\"b\":\"x, y: {z}\"}],\"c\":{},\"d\":[]}"))
                .isEqualTo("{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x, y: {z}\"\n    }\n  ],\n  \"c\": {},\n"
                        + "  \"d\": []\n}");
    }

    @Test
    void keepsEscapesAndNumberSpellingsExactly() {
        String in = "{\"s\":\"q\\\"uote\\\\ \\u00e9 \\n\",\"n\":1.0e+2,\"m\":-0.000}";
        assertThat(stripOutsideStrings(PrettyJson.render(in))).isEqualTo(in);
    }

    /** Property: re-indenting never changes a token (seeded generator). */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 4711, 20261201})
    void reindentingNeverChangesATokenOrItsOrder(long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < 500; i++) {
            String compact = value(random, 0);
            String spaced = sprinkleWhitespace(compact, random);
            String pretty = PrettyJson.render(spaced);
            assertThat(stripOutsideStrings(pretty)).isEqualTo(compact);
            assertThat(pretty.lines().count()).isGreaterThanOrEqualTo(1);
        }
    }

    private static String value(Random r, int depth) {
        int kind = depth > 5 ? r.nextInt(4) : r.nextInt(6);
        switch (kind) {
            case 0:
                return r.nextBoolean() ? "true" : "null";
            case 1:
                return (r.nextBoolean() ? "-" : "") + r.nextInt(1000) + (r.nextBoolean() ? ".25e-3" : "");
            case 2:
            case 3:
                return string(r);
            case 4: {
                StringBuilder s = new StringBuilder("[");
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    s.append(i > 0 ? "," : "").append(value(r, depth + 1));
                }
                return s.append(']').toString();
            }
            default: {
                StringBuilder s = new StringBuilder("{");
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    s.append(i > 0 ? "," : "").append(string(r)).append(':').append(value(r, depth + 1));
                }
                return s.append('}').toString();
            }
        }
    }

    private static String string(Random r) {
        String[] parts = {"a", " ", ",", ":", "{", "}", "[", "]", "\\\"", "\\\\", "\\n", "\\u0041", "é", "\t"};
        StringBuilder s = new StringBuilder("\"");
        int n = r.nextInt(6);
        for (int i = 0; i < n; i++) {
            String p = parts[r.nextInt(parts.length)];
            s.append(p.equals("\t") ? "\\t" : p);
        }
        return s.append('"').toString();
    }

    private static String sprinkleWhitespace(String compact, Random r) {
        StringBuilder out = new StringBuilder();
        boolean inString = false;
        for (int i = 0; i < compact.length(); i++) {
            char c = compact.charAt(i);
            if (inString) {
                out.append(c);
                if (c == '\\') {
                    out.append(compact.charAt(++i));
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            if (c == '"') {
                inString = true;
            }
            if ("{}[],:".indexOf(c) >= 0 && r.nextInt(3) == 0) {
                out.append(" \n\t\r".charAt(r.nextInt(4)));
            }
            out.append(c);
        }
        return out.toString();
    }

    static String stripOutsideStrings(String json) {
        StringBuilder out = new StringBuilder();
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                out.append(c);
                if (c == '\\') {
                    out.append(json.charAt(++i));
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
                out.append(c);
            } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
                out.append(c);
            }
        }
        return out.toString();
    }
}
