package dev.skillgate.tlog;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Reads the copied test-vector files (tag, then values). */
final class Vectors {
    private Vectors() {}

    static List<String[]> read(String name) {
        try (InputStream in = Vectors.class.getResourceAsStream("vectors/" + name)) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            List<String[]> out = new ArrayList<>();
            for (String line : text.split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                out.add(line.split(" ", -1));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> values(String file, String tag) {
        List<String> out = new ArrayList<>();
        for (String[] row : read(file)) {
            if (row[0].equals(tag)) {
                out.add(String.join(" ", java.util.Arrays.copyOfRange(row, 1, row.length)));
            }
        }
        return out;
    }

    static String one(String file, String tag) {
        List<String> v = values(file, tag);
        if (v.size() != 1) {
            throw new IllegalStateException(tag + " appears " + v.size() + " times");
        }
        return v.get(0);
    }

    /** "\n" escapes of the text vectors. */
    static String unescape(String s) {
        return s.replace("\\n", "\n");
    }

    static byte[] hex(String s) {
        return s.equals("-") ? new byte[0] : java.util.HexFormat.of().parseHex(s);
    }
}
