package dev.skillgate.model;

import dev.skillgate.model.shared.Text;
import java.math.BigInteger;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A strict Semantic Versioning 2.0.0 version: {@code MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]}.
 *
 * <p>Parsing follows semver.org exactly: no leading {@code v}, no leading zeros in numeric
 * identifiers, no empty identifiers, ASCII alphanumerics and hyphens only. Ordering is SemVer
 * precedence (build metadata ignored; a pre-release sorts before its release; numeric identifiers
 * compare numerically and sort before alphanumeric ones). Because build metadata does not affect
 * precedence, {@link #compareTo} may return 0 for versions that are not {@link #equals}.
 *
 * @param major major version
 * @param minor minor version
 * @param patch patch version
 * @param preRelease dot-separated pre-release identifiers (empty for a release)
 * @param build dot-separated build identifiers (empty for none)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SemVer(BigInteger major, BigInteger minor, BigInteger patch, List<String> preRelease, List<String> build)
        implements Comparable<SemVer> {

    /** Longest version text accepted. */
    public static final int MAX_LENGTH = 256;

    public SemVer {
        Objects.requireNonNull(major, "major");
        Objects.requireNonNull(minor, "minor");
        Objects.requireNonNull(patch, "patch");
        preRelease = List.copyOf(preRelease);
        build = List.copyOf(build);
        if (major.signum() < 0 || minor.signum() < 0 || patch.signum() < 0) {
            throw invalid("version numbers must not be negative");
        }
        for (String id : preRelease) {
            checkIdentifier(id, true);
        }
        for (String id : build) {
            checkIdentifier(id, false);
        }
    }

    /** Parses a strict SemVer 2.0.0 version. */
    public static SemVer parse(String text) {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty() || text.length() > MAX_LENGTH) {
            throw invalid("a version is 1-" + MAX_LENGTH + " characters");
        }
        String rest = text;
        List<String> build = List.of();
        int plus = rest.indexOf('+');
        if (plus >= 0) {
            build = split(rest.substring(plus + 1));
            rest = rest.substring(0, plus);
        }
        List<String> pre = List.of();
        int dash = rest.indexOf('-');
        if (dash >= 0) {
            pre = split(rest.substring(dash + 1));
            rest = rest.substring(0, dash);
        }
        String[] core = rest.split("\\.", -1);
        if (core.length != 3) {
            throw invalid("'" + Text.excerpt(text) + "' is not MAJOR.MINOR.PATCH");
        }
        return new SemVer(number(core[0], text), number(core[1], text), number(core[2], text), pre, build);
    }

    /** Whether this is a pre-release version. */
    public boolean isPreRelease() {
        return !preRelease.isEmpty();
    }

    @Override
    public int compareTo(SemVer o) {
        int c = major.compareTo(o.major);
        if (c == 0) {
            c = minor.compareTo(o.minor);
        }
        if (c == 0) {
            c = patch.compareTo(o.patch);
        }
        if (c != 0) {
            return c;
        }
        if (preRelease.isEmpty() || o.preRelease.isEmpty()) {
            return Boolean.compare(preRelease.isEmpty(), o.preRelease.isEmpty());
        }
        int n = Math.min(preRelease.size(), o.preRelease.size());
        for (int i = 0; i < n; i++) {
            c = compareIdentifier(preRelease.get(i), o.preRelease.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(preRelease.size(), o.preRelease.size());
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder()
                .append(major)
                .append('.')
                .append(minor)
                .append('.')
                .append(patch);
        if (!preRelease.isEmpty()) {
            out.append('-').append(String.join(".", preRelease));
        }
        if (!build.isEmpty()) {
            out.append('+').append(String.join(".", build));
        }
        return out.toString();
    }

    private static int compareIdentifier(String a, String b) {
        boolean an = isNumeric(a);
        boolean bn = isNumeric(b);
        if (an && bn) {
            return new BigInteger(a).compareTo(new BigInteger(b));
        }
        if (an != bn) {
            return an ? -1 : 1;
        }
        return a.compareTo(b);
    }

    private static List<String> split(String ids) {
        return List.of(ids.split("\\.", -1));
    }

    private static BigInteger number(String s, String whole) {
        if (s.isEmpty() || !isNumeric(s) || (s.length() > 1 && s.charAt(0) == '0')) {
            throw invalid("'" + Text.excerpt(whole) + "' has an invalid numeric part");
        }
        return new BigInteger(s);
    }

    private static void checkIdentifier(String id, boolean preRelease) {
        if (id.isEmpty()) {
            throw invalid("empty identifier");
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-')) {
                throw invalid("identifiers are ASCII letters, digits and hyphens");
            }
        }
        if (preRelease && isNumeric(id) && id.length() > 1 && id.charAt(0) == '0') {
            throw invalid("numeric pre-release identifiers must not have leading zeros");
        }
    }

    private static boolean isNumeric(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static InvalidValueException invalid(String message) {
        return new InvalidValueException(ErrorCode.CONTRACT_SEMVER, message);
    }
}
