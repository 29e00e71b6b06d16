package dev.skillgate.audit.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

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

    static Instant parse(String text) throws Frames.FormatException {
        if (text.length() > 40) {
            throw new Frames.FormatException("an instant is malformed");
        }
        try {
            Instant instant = Instant.parse(text);
            if (instant.isBefore(MIN)
                    || instant.isAfter(MAX)
                    || !format(instant).equals(text)) {
                throw new Frames.FormatException("an instant is not canonical");
            }
            return instant;
        } catch (DateTimeParseException e) {
            throw new Frames.FormatException("an instant is malformed");
        }
    }
}
