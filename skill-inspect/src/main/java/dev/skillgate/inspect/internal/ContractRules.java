package dev.skillgate.inspect.internal;

/** Lexical rules shared by the contract parser and the agent context. */
public final class ContractRules {
    private ContractRules() {}

    /** Most credential names a contract may declare. */
    public static final int MAX_CREDENTIALS = 32;

    /** Most agent requirements a contract may list. */
    public static final int MAX_AGENTS = 32;

    /** Most network destinations a contract may declare. */
    public static final int MAX_DESTINATIONS = 64;

    /** An agent kind: 1-64 of {@code [a-z0-9._-]}, starting with a letter or digit. */
    public static boolean isAgentKind(String s) {
        return matches(s, false);
    }

    /** A credential name: 1-64 of {@code [A-Za-z0-9._-]}, starting with a letter or digit. */
    public static boolean isCredentialName(String s) {
        return matches(s, true);
    }

    private static boolean matches(String s, boolean upper) {
        if (s.isEmpty() || s.length() > 64) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (upper && c >= 'A' && c <= 'Z');
            if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) {
                return false;
            }
        }
        return true;
    }
}
