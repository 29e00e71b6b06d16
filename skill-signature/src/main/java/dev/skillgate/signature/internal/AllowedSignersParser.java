package dev.skillgate.signature.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.shared.Text;
import dev.skillgate.signature.PublisherKey;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parses the OpenSSH {@code allowed_signers} format ({@code ssh-keygen(1)}, "ALLOWED SIGNERS"):
 * {@code principals [options] keytype base64-key [comment]} per line, {@code #} comments and blank
 * lines ignored.
 *
 * <p>Supported: principal pattern lists (unquoted, or one double-quoted field), the {@code
 * namespaces="..."} option, {@code ssh-ed25519} keys. Lines that cannot be honoured exactly grant
 * nothing and are reported: {@code cert-authority} and {@code valid-after}/{@code valid-before}
 * lines and keys of other types are skipped with a warning; malformed lines (unknown option, bad
 * quoting, bad key) are skipped with an error. The whole file is refused when it is not UTF-8 or
 * contains NUL. At most {@link #MAX_ENTRIES} entries and {@link #MAX_DIAGNOSTICS} diagnostics are
 * kept.
 */
public final class AllowedSignersParser {
    /** Most entries kept; further lines are refused with an error. */
    public static final int MAX_ENTRIES = 1024;

    /** Most diagnostics reported; one more notes that the rest were dropped. */
    public static final int MAX_DIAGNOSTICS = 20;

    private final List<PublisherKey> keys = new ArrayList<>();
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private int problems;

    private AllowedSignersParser() {}

    /**
     * The parsed entries and the problems found.
     *
     * @param keys usable entries in file order
     * @param diagnostics errors (malformed lines, a refused file) and warnings (unsupported lines)
     */
    public record Result(List<PublisherKey> keys, List<Diagnostic> diagnostics) {
        public Result {
            keys = List.copyOf(keys);
            diagnostics = List.copyOf(diagnostics);
        }
    }

    /** Parses allowed-signers bytes; never throws for any content. */
    public static Result parse(byte[] bytes) {
        AllowedSignersParser parser = new AllowedSignersParser();
        parser.run(bytes);
        return new Result(parser.keys, parser.diagnostics);
    }

    private void run(byte[] bytes) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            report(Diagnostic.error(ErrorCode.SIGNATURE_FORMAT, "", "the allowed-signers file is not valid UTF-8"));
            return;
        }
        if (text.indexOf('\0') >= 0) {
            report(Diagnostic.error(ErrorCode.SIGNATURE_FORMAT, "", "the allowed-signers file contains NUL"));
            return;
        }
        int lineNumber = 0;
        int start = 0;
        while (start < text.length()) {
            int newline = text.indexOf('\n', start);
            int end = newline < 0 ? text.length() : newline;
            String line = text.substring(start, end);
            start = end + 1;
            lineNumber++;
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (keys.size() >= MAX_ENTRIES && !isBlankOrComment(line)) {
                report(Diagnostic.error(
                        ErrorCode.SIGNATURE_FORMAT,
                        location(lineNumber),
                        "more than " + MAX_ENTRIES + " entries; this and later lines are ignored"));
                return;
            }
            try {
                parseLine(line, lineNumber).ifPresent(keys::add);
            } catch (Refusal refusal) {
                report(refusal.toDiagnostic(location(lineNumber)));
            } catch (Skip skip) {
                report(Diagnostic.warning(skip.code, location(lineNumber), skip.getMessage()));
            }
        }
    }

    private void report(Diagnostic diagnostic) {
        problems++;
        if (problems <= MAX_DIAGNOSTICS) {
            diagnostics.add(diagnostic);
        } else if (problems == MAX_DIAGNOSTICS + 1) {
            diagnostics.add(Diagnostic.warning(
                    diagnostic.code(), "", "more than " + MAX_DIAGNOSTICS + " problems; the rest are not reported"));
        }
    }

    private static String location(int lineNumber) {
        return "line " + lineNumber;
    }

    private static boolean isBlankOrComment(String line) {
        int i = skipSpace(line, 0);
        return i == line.length() || line.charAt(i) == '#';
    }

    /** A well-formed line that cannot be honoured exactly; it grants nothing. */
    private static final class Skip extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient ErrorCode code;

        Skip(ErrorCode code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }

    private static final class Options {
        boolean certificateAuthority;
        String namespaces;
        boolean validity;
    }

    private static Optional<PublisherKey> parseLine(String line, int lineNumber) throws Refusal, Skip {
        int i = skipSpace(line, 0);
        if (i == line.length() || line.charAt(i) == '#') {
            return Optional.empty();
        }
        String principalsField;
        if (line.charAt(i) == '"') {
            int close = line.indexOf('"', i + 1);
            if (close < 0) {
                throw malformed("the quoted principals field is not closed");
            }
            principalsField = line.substring(i + 1, close);
            i = close + 1;
            if (i < line.length() && !isSpace(line.charAt(i))) {
                throw malformed("text follows the quoted principals field");
            }
        } else {
            int end = tokenEnd(line, i);
            principalsField = line.substring(i, end);
            if (principalsField.indexOf('"') >= 0) {
                throw malformed("a quote inside the principals field");
            }
            i = end;
        }
        i = skipSpace(line, i);
        if (i == line.length()) {
            throw malformed("no key after the principals");
        }
        Options options = new Options();
        String type = line.substring(i, tokenEnd(line, i));
        if (!Ed25519PublicKey.isKnownType(type)) {
            i = parseOptions(line, i, options);
            i = skipSpace(line, i);
            if (i == line.length()) {
                throw malformed("no key after the options");
            }
            type = line.substring(i, tokenEnd(line, i));
        }
        i += type.length();
        i = skipSpace(line, i);
        String base64 = line.substring(i, tokenEnd(line, i));
        if (!Ed25519PublicKey.isKnownType(type)) {
            throw malformed("unknown key type '" + Text.excerpt(type) + "'");
        }
        if (base64.isEmpty()) {
            throw malformed("the key has no base64 data");
        }
        if (!Ed25519PublicKey.TYPE.equals(type)) {
            throw new Skip(
                    ErrorCode.SIGNATURE_ALGORITHM,
                    "key type " + type + " is not accepted (only ssh-ed25519); the line is ignored");
        }
        Ed25519PublicKey key = Ed25519PublicKey.fromBase64(base64);
        if (options.certificateAuthority) {
            throw new Skip(
                    ErrorCode.SIGNATURE_SIGNER_UNSUPPORTED,
                    "cert-authority lines are not supported (no SSH certificates); the line is ignored");
        }
        if (options.validity) {
            throw new Skip(
                    ErrorCode.SIGNATURE_SIGNER_UNSUPPORTED,
                    "valid-after/valid-before are not supported; the line is ignored rather than trusted"
                            + " without its time limit");
        }
        List<String> principals = splitPatterns(principalsField, "principal");
        Optional<List<String>> namespaces = options.namespaces == null
                ? Optional.empty()
                : Optional.of(splitPatterns(options.namespaces, "namespace"));
        try {
            return Optional.of(new PublisherKey(principals, key.toOpenSsh(), namespaces, lineNumber));
        } catch (InvalidValueException e) {
            throw new Refusal(e.code(), e.toDiagnostic("").message());
        }
    }

    /** Parses {@code opt[,opt...]} at {@code i} (OpenSSH {@code sshsigopt_parse}); returns the end. */
    private static int parseOptions(String line, int i, Options options) throws Refusal {
        while (true) {
            if (regionIs(line, i, "cert-authority")) {
                options.certificateAuthority = true;
                i += "cert-authority".length();
            } else if (regionIs(line, i, "namespaces=")) {
                if (options.namespaces != null) {
                    throw malformed("more than one namespaces option");
                }
                StringBuilder value = new StringBuilder();
                i = dequote(line, i + "namespaces=".length(), value);
                options.namespaces = value.toString();
            } else if (regionIs(line, i, "valid-after=") || regionIs(line, i, "valid-before=")) {
                options.validity = true;
                i = dequote(line, line.indexOf('=', i) + 1, new StringBuilder());
            } else {
                int end = Math.min(tokenEnd(line, i), i + 40);
                throw malformed("unknown option '" + Text.excerpt(line.substring(i, end)) + "'");
            }
            if (i == line.length() || isSpace(line.charAt(i))) {
                return i;
            }
            if (line.charAt(i) != ',') {
                throw malformed("unexpected text after an option");
            }
            i++;
            if (i == line.length() || isSpace(line.charAt(i))) {
                throw malformed("the option list ends with a comma");
            }
        }
    }

    /** Reads {@code "value"} at {@code i} with {@code \"} escapes (OpenSSH {@code opt_dequote}). */
    private static int dequote(String line, int i, StringBuilder value) throws Refusal {
        if (i >= line.length() || line.charAt(i) != '"') {
            throw malformed("an option value must be double-quoted");
        }
        i++;
        while (i < line.length() && line.charAt(i) != '"') {
            if (line.charAt(i) == '\\' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                i++;
            }
            value.append(line.charAt(i++));
        }
        if (i >= line.length()) {
            throw malformed("an option value is not closed by a quote");
        }
        return i + 1;
    }

    private static List<String> splitPatterns(String field, String what) throws Refusal {
        List<String> patterns = new ArrayList<>();
        int start = 0;
        while (true) {
            int comma = field.indexOf(',', start);
            String pattern = comma < 0 ? field.substring(start) : field.substring(start, comma);
            if (pattern.isEmpty()) {
                throw malformed("an empty " + what + " in a comma-separated list");
            }
            patterns.add(pattern);
            if (comma < 0) {
                return patterns;
            }
            start = comma + 1;
        }
    }

    private static boolean regionIs(String line, int i, String expected) {
        return line.regionMatches(true, i, expected, 0, expected.length());
    }

    private static Refusal malformed(String message) {
        return new Refusal(ErrorCode.SIGNATURE_FORMAT, message + "; the line is ignored");
    }

    private static int skipSpace(String line, int i) {
        while (i < line.length() && isSpace(line.charAt(i))) {
            i++;
        }
        return i;
    }

    private static int tokenEnd(String line, int i) {
        while (i < line.length() && !isSpace(line.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }
}
