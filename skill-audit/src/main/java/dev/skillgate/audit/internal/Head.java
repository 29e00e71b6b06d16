package dev.skillgate.audit.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The commit point, stored in {@code audit.head} and replaced atomically after every append.
 *
 * <pre>
 * skillgate-audit/v1/head
 * log &lt;32 lowercase hex: the log id&gt;
 * seq &lt;decimal: the last committed sequence number, 0 for none&gt;
 * tip &lt;64 lowercase hex: the chain hash after that record&gt;
 * length &lt;decimal: committed byte length of audit.log&gt;
 * </pre>
 *
 * Every line ends with one {@code \n}; nothing else is accepted. The line "tip" is a hash-chain
 * tip, not a Merkle root.
 *
 * <p>Version 2 (written by every append since decision 0720) is the same with the first line
 * {@code skillgate-audit/v2/head} and a sixth line {@code root <64 lowercase hex>}: the RFC 6962
 * Merkle root over the committed frames. Version 1 heads are still read (the root is then
 * recomputed from the log and written with the next append).
 *
 * @param logId the log's 16-byte id
 * @param sequence last committed sequence number
 * @param tip chain hash after that record (the genesis value when {@code sequence} is 0)
 * @param length committed byte length of the log file
 * @param root the Merkle root over the committed frames, or empty for a version 1 head
 */
record Head(byte[] logId, long sequence, byte[] tip, long length, byte[] root) {
    static final String FIRST_LINE = "skillgate-audit/v1/head";
    static final String FIRST_LINE_V2 = "skillgate-audit/v2/head";
    /** Longest head file read. */
    static final int MAX_SIZE = 512;

    /** A version 1 head (no root), as older releases wrote. */
    Head(byte[] logId, long sequence, byte[] tip, long length) {
        this(logId, sequence, tip, length, new byte[0]);
    }

    Head {
        logId = logId.clone();
        tip = tip.clone();
        root = root.clone();
        if (logId.length != Frames.LOG_ID_SIZE
                || tip.length != Frames.HASH_SIZE
                || (root.length != 0 && root.length != Frames.HASH_SIZE)) {
            throw new IllegalArgumentException("bad head field sizes");
        }
        if (sequence < 0 || length < Frames.HEADER_SIZE) {
            throw new IllegalArgumentException("bad head numbers");
        }
    }

    @Override
    public byte[] logId() {
        return logId.clone();
    }

    @Override
    public byte[] tip() {
        return tip.clone();
    }

    @Override
    public byte[] root() {
        return root.clone();
    }

    /** Whether this head carries a tree root (version 2). */
    boolean hasRoot() {
        return root.length == Frames.HASH_SIZE;
    }

    /** This head with the given tree root (a version 2 head). */
    Head withRoot(byte[] treeRoot) {
        return new Head(logId, sequence, tip, length, treeRoot);
    }

    String logIdHex() {
        return HexFormat.of().formatHex(logId);
    }

    String tipHex() {
        return HexFormat.of().formatHex(tip);
    }

    boolean sameLog(byte[] otherLogId) {
        return Arrays.equals(logId, otherLogId);
    }

    boolean tipEquals(byte[] other) {
        return Arrays.equals(tip, other);
    }

    byte[] encode() {
        String text = (hasRoot() ? FIRST_LINE_V2 : FIRST_LINE) + "\nlog " + logIdHex() + "\nseq " + sequence + "\ntip "
                + tipHex() + "\nlength " + length + "\n"
                + (hasRoot() ? "root " + HexFormat.of().formatHex(root) + "\n" : "");
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** Parses head bytes strictly. */
    static Head parse(byte[] bytes) throws Frames.FormatException {
        if (bytes.length > MAX_SIZE) {
            throw new Frames.FormatException("the head file is larger than " + MAX_SIZE + " bytes");
        }
        for (byte b : bytes) {
            if (b < 0x0a || (b > 0x0a && b < 0x20) || b > 0x7e) {
                throw new Frames.FormatException("the head file holds a byte outside printable ASCII");
            }
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        if (!text.endsWith("\n")) {
            throw new Frames.FormatException("the head file does not end with a newline");
        }
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        boolean v2 = lines.length == 6 && lines[0].equals(FIRST_LINE_V2);
        if (!v2 && (lines.length != 5 || !lines[0].equals(FIRST_LINE))) {
            throw new Frames.FormatException("the head file is not a version 1 or 2 commit point");
        }
        byte[] logId = hex(field(lines[1], "log"), Frames.LOG_ID_SIZE);
        long seq = number(field(lines[2], "seq"));
        byte[] tip = hex(field(lines[3], "tip"), Frames.HASH_SIZE);
        long length = number(field(lines[4], "length"));
        if (length < Frames.HEADER_SIZE) {
            throw new Frames.FormatException("the head's committed length is below the header size");
        }
        if (seq == 0 && length != Frames.HEADER_SIZE) {
            throw new Frames.FormatException("the head names no records but a longer log");
        }
        byte[] root = v2 ? hex(field(lines[5], "root"), Frames.HASH_SIZE) : new byte[0];
        return new Head(logId, seq, tip, length, root);
    }

    static String field(String line, String name) throws Frames.FormatException {
        if (!line.startsWith(name + " ")) {
            throw new Frames.FormatException("expected the line '" + name + "'");
        }
        return line.substring(name.length() + 1);
    }

    static byte[] hex(String s, int bytes) throws Frames.FormatException {
        if (s.length() != bytes * 2) {
            throw new Frames.FormatException("a hex field has the wrong length");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                throw new Frames.FormatException("a hex field is not lowercase hex");
            }
        }
        return HexFormat.of().parseHex(s);
    }

    /** A decimal integer 0..2^53-1 in shortest form. */
    static long number(String s) throws Frames.FormatException {
        if (s.isEmpty() || s.length() > 16 || (s.length() > 1 && s.charAt(0) == '0')) {
            throw new Frames.FormatException("a number field is malformed");
        }
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw new Frames.FormatException("a number field is malformed");
            }
            n = n * 10 + (c - '0');
        }
        if (n > CanonicalJson.MAX_INTEGER) {
            throw new Frames.FormatException("a number field is too large");
        }
        return n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Head h
                && Arrays.equals(logId, h.logId)
                && sequence == h.sequence
                && Arrays.equals(tip, h.tip)
                && length == h.length
                && Arrays.equals(root, h.root);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(tip) * 31 + Long.hashCode(sequence);
    }

    @Override
    public String toString() {
        return "Head[log=" + logIdHex() + ", seq=" + sequence + ", length=" + length + "]";
    }
}
