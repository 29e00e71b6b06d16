package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.signature.internal.OpenSshPrivateKey;
import dev.skillgate.signature.internal.Refusal;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.util.OpenSSHPrivateKeyUtil;

/**
 * Fuzzes the {@code openssh-key-v1} private key parser: whole key files, and decoded blobs inside
 * valid armor. For any input it must return a key or a {@link Refusal} with one of the key codes,
 * never another exception; an accepted key must sign so that its own public key verifies, and
 * (for blobs) Bouncy Castle's own parser must read the same key from the same blob.
 */
class PrivateKeyFuzzTest {
    private static final Set<ErrorCode> KEY_CODES =
            Set.of(ErrorCode.SIGNATURE_KEY_FORMAT, ErrorCode.SIGNATURE_KEY_ENCRYPTED, ErrorCode.SIGNATURE_ALGORITHM);
    private static final byte[] MESSAGE = "skillgate fuzz".getBytes(StandardCharsets.US_ASCII);

    @FuzzTest(maxDuration = "30s")
    void keyFile(FuzzedDataProvider data) {
        byte[] file = data.consumeRemainingAsBytes();
        try (OpenSshPrivateKey key = OpenSshPrivateKey.parse(file)) {
            assertThat(key.publicKey().verify(MESSAGE, key.sign(MESSAGE))).isTrue();
        } catch (Refusal refusal) {
            assertThat(refusal.code()).isIn(KEY_CODES);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void keyBlob(FuzzedDataProvider data) {
        byte[] blob = data.consumeRemainingAsBytes();
        try (OpenSshPrivateKey key = OpenSshPrivateKey.parse(OpenSshKeyFile.armor(blob))) {
            assertThat(key.publicKey().verify(MESSAGE, key.sign(MESSAGE))).isTrue();
            // Whatever we accept, Bouncy Castle's (laxer) parser reads as the same key.
            AsymmetricKeyParameter bc = OpenSSHPrivateKeyUtil.parsePrivateKeyBlob(blob);
            assertThat(bc).isInstanceOf(Ed25519PrivateKeyParameters.class);
            byte[] bcPublic =
                    ((Ed25519PrivateKeyParameters) bc).generatePublicKey().getEncoded();
            byte[] ours = key.publicKey().blob();
            assertThat(java.util.Arrays.copyOfRange(ours, ours.length - 32, ours.length))
                    .isEqualTo(bcPublic);
        } catch (Refusal refusal) {
            assertThat(refusal.code()).isIn(KEY_CODES);
        }
    }
}
