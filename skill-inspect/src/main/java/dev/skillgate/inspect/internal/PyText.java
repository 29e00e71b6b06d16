package dev.skillgate.inspect.internal;

import java.text.Normalizer;
import java.util.Comparator;
import java.util.Locale;

/** Python string semantics that the reference validator relies on, reproduced for the reference profile. */
public final class PyText {
    private PyText() {}

    /** Python {@code str.strip()} with no arguments: removes Python whitespace at both ends. */
    public static String strip(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && isSpace(s.charAt(start))) {
            start++;
        }
        while (end > start && isSpace(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }

    /** Python's {@code str.isspace()} for one BMP character. */
    static boolean isSpace(char c) {
        return (c >= '\t' && c <= '\r')
                || (c >= 0x1C && c <= 0x20)
                || c == 0x85
                || c == 0xA0
                || c == 0x1680
                || (c >= 0x2000 && c <= 0x200A)
                || c == 0x2028
                || c == 0x2029
                || c == 0x202F
                || c == 0x205F
                || c == 0x3000;
    }

    /** Unicode NFKC, as Python's {@code unicodedata.normalize("NFKC", s)}. */
    public static String nfkc(String s) {
        return Normalizer.normalize(s, Normalizer.Form.NFKC);
    }

    /** Python {@code len()}: code points. */
    public static int len(String s) {
        return s.codePointCount(0, s.length());
    }

    /** Python {@code str.lower()} (full case mapping, locale-independent). */
    public static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    /**
     * Python {@code str.isalnum()} for one code point: letters (Lu, Ll, Lt, Lm, Lo) and numbers
     * (Nd, Nl, No). Combining marks are not alphanumeric.
     */
    public static boolean isAlnum(int cp) {
        switch (Character.getType(cp)) {
            case Character.UPPERCASE_LETTER:
            case Character.LOWERCASE_LETTER:
            case Character.TITLECASE_LETTER:
            case Character.MODIFIER_LETTER:
            case Character.OTHER_LETTER:
            case Character.DECIMAL_DIGIT_NUMBER:
            case Character.LETTER_NUMBER:
            case Character.OTHER_NUMBER:
                return true;
            default:
                return false;
        }
    }

    /** Python's default string order: by code point. */
    public static final Comparator<String> CODE_POINT_ORDER = new CodePointOrder();

    /** A class, not a lambda: no invokedynamic call site to link at start-up (decision 0860). */
    private static final class CodePointOrder implements Comparator<String> {
        @Override
        public int compare(String a, String b) {
            return compareCodePoints(a, b);
        }
    }

    private static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
