package dev.skillgate.model;

/** Shared rule for opaque identifiers: 1–128 characters from {@code [A-Za-z0-9._:-]}. */
final class Identifiers {
    static final int MAX_LENGTH = 128;

    private Identifiers() {}

    static void check(String value, String what) {
        if (value.isEmpty() || value.length() > MAX_LENGTH) {
            throw new InvalidValueException(
                    ErrorCode.INVALID_IDENTIFIER, what + " must be 1-" + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == ':'
                    || c == '-';
            if (!ok) {
                throw new InvalidValueException(
                        ErrorCode.INVALID_IDENTIFIER, what + " may contain only letters, digits and . _ : -");
            }
        }
    }
}
