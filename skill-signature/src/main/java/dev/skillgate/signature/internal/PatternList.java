package dev.skillgate.signature.internal;

import java.util.List;

/**
 * OpenSSH pattern lists as {@code allowed_signers} uses them for principals and namespaces: a
 * comma-separated list of patterns where {@code *} matches any run of characters, {@code ?} matches
 * exactly one character and a leading {@code !} negates a pattern.
 *
 * <p>A subject matches a list when at least one positive pattern matches and no negated pattern
 * does (a negated match always wins, as in OpenSSH's {@code match_pattern_list}). Matching is
 * case-sensitive and iterative (no recursion); its cost is bounded by the product of the subject
 * and pattern lengths.
 */
public final class PatternList {
    private PatternList() {}

    /** Whether {@code subject} matches the pattern list. */
    public static boolean matches(String subject, List<String> patterns) {
        boolean positive = false;
        for (String pattern : patterns) {
            boolean negated = pattern.startsWith("!");
            String body = negated ? pattern.substring(1) : pattern;
            if (glob(subject, body)) {
                if (negated) {
                    return false;
                }
                positive = true;
            }
        }
        return positive;
    }

    /** Whether {@code subject} matches one pattern with {@code *} and {@code ?} wildcards. */
    static boolean glob(String subject, String pattern) {
        int s = 0;
        int p = 0;
        int starPattern = -1;
        int starSubject = 0;
        while (s < subject.length()) {
            if (p < pattern.length() && pattern.charAt(p) == '*') {
                starPattern = p++;
                starSubject = s;
            } else if (p < pattern.length() && (pattern.charAt(p) == '?' || pattern.charAt(p) == subject.charAt(s))) {
                s++;
                p++;
            } else if (starPattern >= 0) {
                p = starPattern + 1;
                s = ++starSubject;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }
}
