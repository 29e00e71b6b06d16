package dev.skillgate.signature;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.signature.internal.Ed25519PublicKey;
import dev.skillgate.signature.internal.PatternList;
import dev.skillgate.signature.internal.Refusal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * One publisher key the host allows: the principals it may sign for, an OpenSSH Ed25519 public key
 * and an optional namespace restriction, as one usable line of an {@code allowed_signers} file.
 *
 * <p>The constructor checks that the key is a well-formed {@code ssh-ed25519} key (a usable curve
 * point) and that principal and namespace patterns are printable and free of {@code ,} and {@code
 * "}. Patterns use OpenSSH syntax ({@code *}, {@code ?}, leading {@code !}). A key says nothing
 * about whether its owner still controls it: there is no expiry or revocation here beyond removing
 * the line.
 *
 * @param principals principal patterns (at least one), e.g. {@code alice@example.com}
 * @param publicKey {@code ssh-ed25519 <base64>} without a comment
 * @param namespaces namespace patterns the key may sign in; empty for no restriction
 * @param line 1-based line in the {@code allowed_signers} file, or 0 when added programmatically
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PublisherKey(List<String> principals, String publicKey, Optional<List<String>> namespaces, int line) {

    /** Longest principal or namespace pattern accepted, in UTF-16 units. */
    public static final int MAX_PATTERN_LENGTH = 256;

    public PublisherKey {
        principals = List.copyOf(principals);
        Objects.requireNonNull(publicKey, "publicKey");
        namespaces = Objects.requireNonNull(namespaces, "namespaces").map(List::copyOf);
        if (principals.isEmpty()) {
            throw new InvalidValueException(ErrorCode.SIGNATURE_FORMAT, "a publisher key needs at least one principal");
        }
        for (String principal : principals) {
            checkPattern(principal, "principal");
        }
        if (namespaces.isPresent()) {
            if (namespaces.get().isEmpty()) {
                throw new InvalidValueException(
                        ErrorCode.SIGNATURE_FORMAT, "a namespace restriction lists a namespace");
            }
            for (String namespace : namespaces.get()) {
                checkPattern(namespace, "namespace");
            }
        }
        if (line < 0) {
            throw new InvalidValueException(ErrorCode.SIGNATURE_FORMAT, "line must not be negative");
        }
        parse(publicKey);
    }

    /**
     * A key for one principal from an OpenSSH public key line such as the content of {@code
     * id_ed25519.pub}: {@code ssh-ed25519 <base64> [comment]}; the comment is dropped.
     *
     * @throws InvalidValueException with {@code SIGNATURE_ALGORITHM} for a key type other than
     *     {@code ssh-ed25519}, {@code SIGNATURE_FORMAT} for a malformed key
     */
    public static PublisherKey of(String principal, String openSshPublicKey) {
        Objects.requireNonNull(openSshPublicKey, "openSshPublicKey");
        String[] fields = openSshPublicKey.strip().split("[ \t]+", 3);
        if (fields.length < 2) {
            throw new InvalidValueException(ErrorCode.SIGNATURE_FORMAT, "expected 'ssh-ed25519 <base64> [comment]'");
        }
        if (!Ed25519PublicKey.TYPE.equals(fields[0])) {
            throw new InvalidValueException(
                    Ed25519PublicKey.isKnownType(fields[0])
                            ? ErrorCode.SIGNATURE_ALGORITHM
                            : ErrorCode.SIGNATURE_FORMAT,
                    "only ssh-ed25519 publisher keys are accepted");
        }
        return new PublisherKey(List.of(principal), fields[0] + " " + fields[1], Optional.empty(), 0);
    }

    /** The key's OpenSSH fingerprint, as {@code ssh-keygen -l} prints it ({@code SHA256:...}). */
    public String fingerprint() {
        return parse(publicKey).fingerprint();
    }

    /** Whether this key may sign in {@code namespace} (always, when there is no restriction). */
    public boolean allowsNamespace(String namespace) {
        return namespaces.map(list -> PatternList.matches(namespace, list)).orElse(true);
    }

    /** Whether {@code publisher} matches this key's principal patterns. */
    public boolean allowsPrincipal(String publisher) {
        return PatternList.matches(publisher, principals);
    }

    static Ed25519PublicKey parse(String publicKey) {
        String prefix = Ed25519PublicKey.TYPE + " ";
        if (!publicKey.startsWith(prefix)) {
            throw new InvalidValueException(
                    ErrorCode.SIGNATURE_ALGORITHM, "only ssh-ed25519 publisher keys are accepted");
        }
        try {
            return Ed25519PublicKey.fromBase64(publicKey.substring(prefix.length()));
        } catch (Refusal e) {
            throw new InvalidValueException(e.code(), e.getMessage());
        }
    }

    private static void checkPattern(String pattern, String what) {
        Objects.requireNonNull(pattern, what);
        if (pattern.isEmpty() || pattern.length() > MAX_PATTERN_LENGTH) {
            throw new InvalidValueException(
                    ErrorCode.SIGNATURE_FORMAT, "a " + what + " pattern is 1-" + MAX_PATTERN_LENGTH + " characters");
        }
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            int type = Character.getType(c);
            if (c == ','
                    || c == '"'
                    || type == Character.CONTROL
                    || type == Character.FORMAT
                    || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR) {
                throw new InvalidValueException(
                        ErrorCode.SIGNATURE_FORMAT,
                        "a " + what + " pattern must not contain ',', '\"' or control characters");
            }
        }
        if (!isWellFormedUtf16(pattern)) {
            throw new InvalidValueException(ErrorCode.SIGNATURE_FORMAT, "a " + what + " pattern has a lone surrogate");
        }
    }

    private static boolean isWellFormedUtf16(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
