package dev.skillgate.cli.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.NoteVerifierKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Signed-note keys named on the command line: a signer key file (Go's {@code PRIVATE+KEY+name+hexid+base64}
 * text, one line, readable by its owner only) and verifier keys ({@code name+hexid+base64}, given
 * inline or as {@code @FILE} with one key per line).
 */
final class NoteKeyFiles {
    /** Largest signer key file read. */
    static final int MAX_SIGNER_FILE = 1024;

    /** Largest verifier key list read. */
    static final int MAX_VERIFIER_FILE = 64 * 1024;

    /** Most verifier keys accepted. */
    static final int MAX_VERIFIER_KEYS = 100;

    private NoteKeyFiles() {}

    /** Why a signer key file was refused: a stable code and a message that never quotes the key. */
    record Refusal(ErrorCode code, String message) {}

    /** A signer key, or why the file is refused (malformed, or readable by group or others). */
    sealed interface Loaded {}

    record Signer(NoteSigner signer) implements Loaded {}

    record Refused(Refusal why) implements Loaded {}

    /**
     * Reads the signer key file {@code name} given to {@code option}: bounded, a regular file, never
     * through a link, and with no permission for group or others (checked after the read; on a file
     * system without POSIX permissions it is refused).
     *
     * @throws UsageException when the file is missing, a link or not a regular file
     */
    static Loaded signer(String option, String name) throws UsageException {
        byte[] bytes = CommandLineFiles.read(option, name, MAX_SIGNER_FILE).orElse(null);
        if (bytes == null) {
            return new Refused(new Refusal(ErrorCode.AUDIT_CHECKPOINT_FORMAT, "the signer key file is too large"));
        }
        try {
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(
                    Path.of(name).toAbsolutePath().normalize(), LinkOption.NOFOLLOW_LINKS);
            if (p.stream().anyMatch(x -> x != PosixFilePermission.OWNER_READ && x != PosixFilePermission.OWNER_WRITE)) {
                return new Refused(new Refusal(
                        ErrorCode.SIGNATURE_KEY_PERMISSIONS,
                        "the signer key file grants permissions beyond the owner's read and write (chmod 600 it)"));
            }
        } catch (IOException | UnsupportedOperationException e) {
            return new Refused(new Refusal(
                    ErrorCode.SIGNATURE_KEY_PERMISSIONS, "the signer key file's permissions cannot be checked"));
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        try {
            return new Signer(NoteSigner.parse(text));
        } catch (InvalidValueException e) {
            return new Refused(new Refusal(
                    ErrorCode.AUDIT_CHECKPOINT_FORMAT,
                    "the signer key file is not a PRIVATE+KEY+name+hexid+base64 signed-note key"));
        } finally {
            java.util.Arrays.fill(bytes, (byte) 0);
        }
    }

    /**
     * The verifier keys of every {@code --key} value: {@code name+hexid+base64}, or {@code @FILE}
     * holding one per line (blank lines and lines starting with {@code #} skipped).
     *
     * @throws UsageException when none is given, a file cannot be used, or a key is malformed
     */
    static List<NoteVerifierKey> verifiers(String option, List<String> values) throws UsageException {
        if (values.isEmpty()) {
            throw new UsageException(option + " VERIFIERKEY is required (name+hexid+base64, or @FILE)");
        }
        List<NoteVerifierKey> keys = new ArrayList<>();
        for (String v : values) {
            if (v.startsWith("@")) {
                byte[] bytes = CommandLineFiles.read(option, v.substring(1), MAX_VERIFIER_FILE)
                        .orElseThrow(() ->
                                new UsageException(option + " file is larger than " + MAX_VERIFIER_FILE + " bytes"));
                int line = 0;
                for (String l : new String(bytes, StandardCharsets.UTF_8).split("\n", -1)) {
                    line++;
                    String k = l.strip();
                    if (k.isEmpty() || k.startsWith("#")) {
                        continue;
                    }
                    keys.add(verifier(option, k, Args.path(v.substring(1)) + " line " + line));
                }
            } else {
                keys.add(verifier(option, v, "the argument"));
            }
            if (keys.size() > MAX_VERIFIER_KEYS) {
                throw new UsageException("at most " + MAX_VERIFIER_KEYS + " verifier keys");
            }
        }
        if (keys.isEmpty()) {
            throw new UsageException(option + " names no verifier key");
        }
        return List.copyOf(keys);
    }

    private static NoteVerifierKey verifier(String option, String text, String where) throws UsageException {
        try {
            return NoteVerifierKey.parse(text);
        } catch (InvalidValueException e) {
            throw new UsageException(option + " is not a name+hexid+base64 verifier key (" + where + "): "
                    + e.getMessage().substring(e.code().name().length() + 2));
        }
    }
}
