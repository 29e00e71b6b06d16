package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzzes the three parsers that read untrusted or host-supplied bytes: the signature file, the
 * SSHSIG blob inside valid armor, and the allowed-signers file. Each must return a result for any
 * input (never throw), stay within its bounds, and never verify anything but the committed
 * signature.
 */
class SignatureFuzzTest {

    private static final PublisherKeys KEYS = Golden.keys();
    private static final SignatureStatement STATEMENT = Golden.statement();
    private static final byte[] GOLDEN = Golden.signatureFile();

    @FuzzTest(maxDuration = "30s")
    void signatureFile(FuzzedDataProvider data) {
        byte[] file = data.consumeRemainingAsBytes();
        SignatureVerification result = SignatureVerifier.verify(STATEMENT, file, KEYS);
        assertThat(result).isNotNull();
        if (result.verified()) {
            // One statement and signature have exactly one accepted file (docs/signatures.md).
            assertThat(file).isEqualTo(GOLDEN);
        } else {
            assertThat(((SignatureVerification.Rejected) result).code().name()).startsWith("SIGNATURE_");
        }
    }

    @FuzzTest(maxDuration = "30s")
    void sshsigBlob(FuzzedDataProvider data) {
        byte[] blob = data.consumeRemainingAsBytes();
        byte[] file;
        try {
            file = Golden.fileWithBlob(blob);
        } catch (dev.skillgate.model.InvalidValueException tooLarge) {
            return;
        }
        SignatureVerification result = SignatureVerifier.verify(STATEMENT, file, KEYS);
        if (result.verified()) {
            assertThat(blob).isEqualTo(Golden.blob());
        } else {
            assertThat(((SignatureVerification.Rejected) result).code().name()).startsWith("SIGNATURE_");
        }
    }

    @FuzzTest(maxDuration = "30s")
    void allowedSigners(FuzzedDataProvider data) {
        PublisherKeys keys = PublisherKeys.parse(data.consumeRemainingAsBytes());
        assertThat(keys.entries()).hasSizeLessThanOrEqualTo(1024);
        assertThat(keys.diagnostics()).hasSizeLessThanOrEqualTo(21);
        for (PublisherKey key : keys.entries()) {
            assertThat(key.fingerprint()).startsWith("SHA256:");
            assertThat(key.principals()).isNotEmpty();
        }
        SignatureVerification result = SignatureVerifier.verify(STATEMENT, GOLDEN, keys);
        if (result.verified()) {
            assertThat(keys.entries())
                    .anySatisfy(key -> assertThat(key.fingerprint()).isEqualTo(Golden.fingerprint()));
        }
        assertThat(SignatureVerifier.verifyForPublisher("alice@example.com", STATEMENT, GOLDEN, keys))
                .isNotNull();
    }
}
