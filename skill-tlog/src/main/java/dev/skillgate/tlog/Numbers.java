package dev.skillgate.tlog;

/** The decimal rule every size and index line here follows: ASCII digits, no leading zero, at most 2^53 - 1. */
final class Numbers {
    private Numbers() {}

    static long parse(String s, String what) {
        if (!s.matches("0|[1-9][0-9]{0,15}")) {
            throw NoteKeys.format(what + " is a decimal number without leading zeros");
        }
        long n = Long.parseLong(s);
        if (n > CompactTree.MAX_SIZE) {
            throw NoteKeys.format(what + " is too large");
        }
        return n;
    }
}
