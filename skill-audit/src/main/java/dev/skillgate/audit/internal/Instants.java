package dev.skillgate.audit.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;

/**
 * Canonical UTC instants: {@link DateTimeFormatter#ISO_INSTANT} output (e.g.
 * {@code 2026-01-02T03:04:05.678Z}; 0, 3, 6 or 9 fraction digits), years 0000–9999. Parsing
 * accepts only text that formats back to itself.
 */
public final class Instants {
    private static final Instant MIN = Instant.parse("0000-01-01T00:00:00Z");
    private static final Instant MAX = Instant.parse("9999-12-31T23:59:59.999999999Z");

    private Instants() {}

    /** Throws {@link InvalidValueException} when {@code instant} is outside years 0000–9999. */
    public static void check(Instant instant) {
        if (instant.isBefore(MIN) || instant.isAfter(MAX)) {
            throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "instants are limited to years 0000-9999");
        }
    }

    static String format(Instant instant) {
        check(instant);
        return DateTimeFormatter.ISO_INSTANT.format(instant);
    }

    /**
     * Parses canonical {@code YYYY-MM-DDTHH:MM:SS[.fff|.ffffff|.fffffffff]Z}: a fraction only when
     * non-zero, with exactly as many groups of three digits as {@code ISO_INSTANT} prints.
     */
    static Instant parse(String text) throws Frames.FormatException {
        int n = text.length();
        if ((n != 20 && n != 24 && n != 27 && n != 30)
                || text.charAt(4) != '-'
                || text.charAt(7) != '-'
                || text.charAt(10) != 'T'
                || text.charAt(13) != ':'
                || text.charAt(16) != ':'
                || text.charAt(n - 1) != 'Z') {
            throw new Frames.FormatException("an instant is not canonical");
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 2);
        int day = digits(text, 8, 2);
        int hour = digits(text, 11, 2);
        int minute = digits(text, 14, 2);
        int second = digits(text, 17, 2);
        int nanos = 0;
        if (n > 20) {
            if (text.charAt(19) != '.') {
                throw new Frames.FormatException("an instant is not canonical");
            }
            int fraction = n - 21;
            nanos = digits(text, 20, fraction);
            for (int i = fraction; i < 9; i++) {
                nanos *= 10;
            }
            boolean shortest = (fraction == 3 && nanos != 0)
                    || (fraction == 6 && nanos % 1_000_000 != 0)
                    || (fraction == 9 && nanos % 1_000 != 0);
            if (!shortest) {
                throw new Frames.FormatException("an instant's fraction is not canonical");
            }
        }
        if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
            throw new Frames.FormatException("an instant is out of range");
        }
        try {
            long days = LocalDate.of(year, month, day).toEpochDay();
            return Instant.ofEpochSecond(days * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
        } catch (DateTimeException e) {
            throw new Frames.FormatException("an instant names no such date");
        }
    }

    private static int digits(String s, int from, int count) throws Frames.FormatException {
        int v = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw new Frames.FormatException("an instant is not canonical");
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
