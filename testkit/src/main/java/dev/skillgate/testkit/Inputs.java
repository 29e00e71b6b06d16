package dev.skillgate.testkit;

import dev.skillgate.model.Limits;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apiguardian.api.API;

/**
 * Invocation bytes for tests, valid and hostile: nested too deep, too large, invalid UTF-8, with a
 * byte-order mark, duplicate keys, a second value.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class Inputs {
    private Inputs() {}

    /** {@code json} as UTF-8 bytes. */
    public static byte[] json(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    /** An object nested {@code depth} levels deep: {@code {"a":{"a":…{}}}}. */
    public static byte[] deepJson(int depth) {
        if (depth < 1 || depth > 100_000) {
            throw new IllegalArgumentException("depth is 1-100000");
        }
        StringBuilder s = new StringBuilder(depth * 6);
        s.append("{\"a\":".repeat(depth - 1)).append("{}").append("}".repeat(depth - 1));
        return json(s.toString());
    }

    /** An object holding one string, {@code totalBytes} long in all (one over {@link Limits#INVOCATION_BYTES} is refused). */
    public static byte[] ofSize(int totalBytes) {
        String prefix = "{\"pad\":\"";
        String suffix = "\"}";
        int pad = totalBytes - prefix.length() - suffix.length();
        if (pad < 0) {
            throw new IllegalArgumentException("at least " + (prefix.length() + suffix.length()) + " bytes");
        }
        char[] fill = new char[pad];
        Arrays.fill(fill, 'x');
        return json(prefix + new String(fill) + suffix);
    }

    /** One byte more than the invocation bound. */
    public static byte[] tooLarge() {
        return ofSize(Limits.INVOCATION_BYTES + 1);
    }

    /** An object whose string holds the byte 0xFF (never valid UTF-8). */
    public static byte[] invalidUtf8() {
        byte[] b = json("{\"s\":\"?\"}");
        b[6] = (byte) 0xFF;
        return b;
    }

    /** A valid object preceded by a UTF-8 byte-order mark. */
    public static byte[] withBom() {
        byte[] body = json("{}");
        byte[] b = new byte[body.length + 3];
        b[0] = (byte) 0xEF;
        b[1] = (byte) 0xBB;
        b[2] = (byte) 0xBF;
        System.arraycopy(body, 0, b, 3, body.length);
        return b;
    }

    /** An object repeating a key. */
    public static byte[] duplicateKey() {
        return json("{\"a\":1,\"a\":2}");
    }

    /** Two JSON values. */
    public static byte[] twoValues() {
        return json("{} {}");
    }
}
