package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The signing example of docs/signatures.md, with a key made by the real ssh-keygen. */
class DocumentedSigningTest {
    @TempDir
    Path dir;

    final List<Diagnostic> reported = new ArrayList<>();
    final List<byte[]> written = new ArrayList<>();

    void report(Diagnostic diagnostic) {
        reported.add(diagnostic);
    }

    void save(byte[] signatureFile) {
        written.add(signatureFile);
    }

    @Test
    void signAContractWithAnUnencryptedKey() throws IOException {
        assumeTrue(SshKeygen.present(), "ssh-keygen is not installed at " + SshKeygen.BINARY + "; skipped");
        Path keyFile = SshKeygen.generate(dir, "id_ed25519", "ed25519");
        byte[] contractBytes = "{\"publisher\":\"alice@example.com\"}".getBytes(StandardCharsets.UTF_8);
        Revision revision = new Revision(Sha256Digest.hash("bundle".getBytes(StandardCharsets.UTF_8)));

        // snippet:begin sign-contract
        SignatureSigner.Opening opening = SignatureSigner.open(keyFile); // e.g. ~/.ssh/id_ed25519
        if (opening instanceof SignatureSigner.Refused refused) {
            report(refused.diagnostic()); // e.g. SIGNATURE_KEY_ENCRYPTED
        } else {
            try (SignatureSigner signer = ((SignatureSigner.Ready) opening).signer()) {
                byte[] file = signer.signatureFile(SignatureStatement.of(contractBytes, revision));
                save(file); // as skill.contract.sig next to skill.contract.json (temp file, fsync, rename)
            }
        }
        // snippet:end sign-contract

        assertThat(reported).isEmpty();
        assertThat(written).hasSize(1);
        assertThat(new String(written.get(0), StandardCharsets.UTF_8)).contains("BEGIN SSH SIGNATURE");
    }
}
