package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

/** Shared rules of the signed-note key and name syntax (C2SP signed-note v1.0.0). */
final class NoteKeys {
    static final byte ED25519 = 0x01;
    /** Longest key name accepted, in bytes. */
    static final int MAX_NAME = 256;

    private NoteKeys() {}

    /** Non-empty, no Unicode space, no '+', no control character, bounded. */
    static boolean validName(String name) {
        if (name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME) {
            return false;
        }
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            if (cp == '+'
                    || cp < 0x20
                    || cp == 0x7f
                    || (cp >= 0x80 && cp <= 0x9f)
                    || Character.isWhitespace(cp)
                    || Character.isSpaceChar(cp)
                    || (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
                return false;
            }
            i += Character.charCount(cp);
        }
        return true;
    }

    static String checkName(String name) {
        if (!validName(name)) {
            throw format("a key name is non-empty, at most " + MAX_NAME + " bytes, without spaces or '+'");
        }
        return name;
    }

    /** SHA-256(name ‖ 0x0A ‖ type ‖ key)[:4], big-endian. */
    static int keyId(String name, byte type, byte[] key) {
        MessageDigest md = Rfc6962.sha256();
        md.update(name.getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0x0a);
        md.update(type);
        md.update(key);
        return ByteBuffer.wrap(md.digest(), 0, 4).getInt();
    }

    static String hexId(int id) {
        return String.format("%08x", id);
    }

    /** Exactly 8 hex digits (either case, as the Go implementation accepts). */
    static int parseHexId(String s) {
        if (!s.matches("[0-9a-fA-F]{8}")) {
            throw format("a key id is 8 hex digits");
        }
        return (int) Long.parseLong(s, 16);
    }

    /** Strict standard base64 with padding. */
    static byte[] base64(String s, String what) {
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            throw format(what + " is not base64");
        }
        if (!Base64.getEncoder().encodeToString(raw).equals(s)) {
            throw format(what + " is not canonical base64");
        }
        return raw;
    }

    static InvalidValueException format(String message) {
        return new InvalidValueException(ErrorCode.AUDIT_CHECKPOINT_FORMAT, message);
    }
}
