package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The signed statement's exact bytes (docs/signatures.md) and the signature file framing. */
class SignatureStatementTest {

    @Test
    void theStatementIsThreeExactLines() {
        byte[] contract = "{}".getBytes(StandardCharsets.UTF_8);
        Revision revision = Revision.compute(Map.of());
        SignatureStatement statement = SignatureStatement.of(contract, revision);

        String expected = "skillgate-signature-v1\n"
                + "contract sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n"
                + "revision " + revision + "\n";
        assertThat(statement.toText()).isEqualTo(expected);
        assertThat(statement.toBytes()).isEqualTo(expected.getBytes(StandardCharsets.US_ASCII));
        assertThat(statement.toBytes()).hasSize(SignatureStatement.LENGTH).hasSize(185);
        assertThat(statement.contractDigest()).isEqualTo(Sha256Digest.hash(contract));
    }

    @Test
    void theCommittedVectorMatchesTheStatementBuilder() {
        byte[] file = Golden.signatureFile();
        byte[] statement = java.util.Arrays.copyOf(file, SignatureStatement.LENGTH);
        assertThat(statement).isEqualTo(Golden.statement().toBytes());
    }

    @Test
    void theSignatureFileIsTheStatementThenTheArmor() {
        SignatureStatement statement = Golden.statement();
        byte[] armor = "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n"
                .getBytes(StandardCharsets.US_ASCII);
        byte[] file = statement.signatureFile(armor);
        assertThat(new String(file, StandardCharsets.US_ASCII))
                .isEqualTo(statement.toText() + new String(armor, StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> statement.signatureFile("AAAA".getBytes(StandardCharsets.US_ASCII)))
                .isInstanceOfSatisfying(
                        InvalidValueException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SIGNATURE_FORMAT));
        byte[] huge = new byte[SignatureVerifier.MAX_SIGNATURE_FILE_BYTES];
        System.arraycopy(armor, 0, huge, 0, 30);
        assertThatThrownBy(() -> statement.signatureFile(huge)).isInstanceOf(InvalidValueException.class);
    }
}
