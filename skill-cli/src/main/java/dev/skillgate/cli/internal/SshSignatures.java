package dev.skillgate.cli.internal;

import dev.skillgate.inspect.SignatureChecker;
import dev.skillgate.inspect.SignatureVerdict;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.signature.PublisherKeys;
import dev.skillgate.signature.SignatureStatement;
import dev.skillgate.signature.SignatureVerification;
import dev.skillgate.signature.SignatureVerifier;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The CLI's {@link SignatureChecker}: {@code skill-signature}'s SSHSIG verifier over the host's
 * {@code allowed_signers} file, requiring the contract's publisher when it names one.
 */
final class SshSignatures implements SignatureChecker {
    private final PublisherKeys keys;

    private SshSignatures(PublisherKeys keys) {
        this.keys = keys;
    }

    /** The allowed signers loaded from {@code file}, or the reason they cannot be used. */
    sealed interface Loaded permits Usable, Unusable {}

    /** Keys without a single error. */
    record Usable(SshSignatures checker, PublisherKeys keys) implements Loaded {}

    /**
     * The file could not be used.
     *
     * @param usage true when the file is missing or unreadable (a usage error), false when it was
     *     read and has errors (invalid configuration)
     * @param diagnostics why
     */
    record Unusable(boolean usage, List<Diagnostic> diagnostics) implements Loaded {}

    /** Reads {@code argument} as an allowed-signers file; any malformed line makes it unusable. */
    static Loaded load(String argument) {
        Path path;
        try {
            path = Path.of(argument);
        } catch (InvalidPathException e) {
            return new Unusable(true, List.of(Diagnostic.error(ErrorCode.USAGE, "", "not a usable path")));
        }
        PublisherKeys keys;
        try {
            keys = PublisherKeys.read(path);
        } catch (IOException e) {
            return new Unusable(
                    true,
                    List.of(Diagnostic.error(ErrorCode.READ_IO, "", "the allowed-signers file could not be read")));
        }
        boolean unreadable =
                keys.diagnostics().stream().anyMatch(d -> d.code().name().startsWith("READ_"));
        if (unreadable || keys.hasErrors()) {
            return new Unusable(unreadable, keys.diagnostics());
        }
        return new Usable(new SshSignatures(keys), keys);
    }

    @Override
    public SignatureVerdict check(
            byte[] contractBytes, Revision revision, byte[] signatureFile, Optional<String> publisher) {
        SignatureStatement expected = SignatureStatement.of(contractBytes, revision);
        SignatureVerification result = publisher.isPresent()
                ? SignatureVerifier.verifyForPublisher(publisher.get(), expected, signatureFile, keys)
                : SignatureVerifier.verify(expected, signatureFile, keys);
        if (result instanceof SignatureVerification.Verified v) {
            return new SignatureVerdict.Verified(
                    v.keyFingerprint(), v.principals(), v.statement().toText());
        }
        return new SignatureVerdict.Rejected(((SignatureVerification.Rejected) result).diagnostic());
    }
}
