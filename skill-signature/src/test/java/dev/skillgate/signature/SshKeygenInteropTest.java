package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with the real {@code ssh-keygen}: keys it generates, signatures it makes, and its own
 * {@code -Y verify} as a second opinion.
 */
class SshKeygenInteropTest {

    @TempDir
    static Path dir;

    static Path alice;
    static Path mallory;
    static Map<PortablePath, byte[]> files;
    static byte[] contract;
    static Revision revision;
    static SignatureStatement statement;
    static byte[] signatureFile;
    static byte[] armored;

    @BeforeAll
    static void sign() throws IOException {
        SshKeygen.requireBinary();
        alice = SshKeygen.generate(dir, "alice", "ed25519");
        mallory = SshKeygen.generate(dir, "mallory", "ed25519");
        contract = ("{\"schemaVersion\":1,\"recordType\":\"skill-contract\","
                        + "\"identity\":{\"id\":\"acme/pdf-tools\",\"version\":\"1.2.0\"}}\n")
                .getBytes(StandardCharsets.UTF_8);
        files = new LinkedHashMap<>();
        files.put(
                PortablePath.of("SKILL.md"),
                "---\nname: pdf-tools\ndescription: d\n---\n".getBytes(StandardCharsets.UTF_8));
        files.put(PortablePath.of("skill.contract.json"), contract);
        files.put(PortablePath.of("scripts/run.mjs"), "console.log('{}')\n".getBytes(StandardCharsets.UTF_8));
        revision = Revision.compute(files);
        statement = SignatureStatement.of(contract, revision);
        signatureFile = SshKeygen.signStatement(dir, alice, statement, "skillgate");
        armored = Arrays.copyOfRange(signatureFile, SignatureStatement.LENGTH, signatureFile.length);
    }

    private static byte[] allowed(String line) {
        return (line + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static PublisherKeys keys(String principalsAndOptions, Path key) throws IOException {
        return PublisherKeys.parse(allowed(principalsAndOptions + " " + SshKeygen.publicKey(key)));
    }

    private static ErrorCode code(SignatureVerification result) {
        assertThat(result).isInstanceOf(SignatureVerification.Rejected.class);
        return ((SignatureVerification.Rejected) result).code();
    }

    @Test
    void aDefaultSsh512SignatureVerifiesAndNamesTheKeyAsSshKeygenDoes() throws IOException {
        PublisherKeys keys = keys("alice@example.com", alice);
        SignatureVerification result = SignatureVerifier.verify(contract, revision, signatureFile, keys);

        assertThat(result).isInstanceOf(SignatureVerification.Verified.class);
        SignatureVerification.Verified verified = (SignatureVerification.Verified) result;
        assertThat(verified.hashAlgorithm()).isEqualTo("sha512");
        assertThat(verified.keyFingerprint()).isEqualTo(SshKeygen.fingerprint(alice));
        assertThat(verified.principals()).containsExactly("alice@example.com");
        assertThat(verified.statement()).isEqualTo(statement);
        assertThat(verified.allowedSignersLine()).isEqualTo(1);
        assertThat(verified.publisher()).isEmpty();
        assertThat(SshKeygen.verify(
                                dir,
                                allowed("alice@example.com " + SshKeygen.publicKey(alice)),
                                "alice@example.com",
                                "skillgate",
                                armored,
                                statement.toBytes())
                        .exitCode())
                .isZero();
    }

    @Test
    void aSha256SignatureVerifies() throws IOException {
        byte[] file = SshKeygen.signStatement(dir, alice, statement, "skillgate", "hashalg=sha256");
        SignatureVerification result = SignatureVerifier.verify(contract, revision, file, keys("alice", alice));
        assertThat(result).isInstanceOf(SignatureVerification.Verified.class);
        assertThat(((SignatureVerification.Verified) result).hashAlgorithm()).isEqualTo("sha256");
        assertThat(SshKeygen.verify(
                                dir,
                                allowed("alice " + SshKeygen.publicKey(alice)),
                                "alice",
                                "skillgate",
                                Arrays.copyOfRange(file, SignatureStatement.LENGTH, file.length),
                                statement.toBytes())
                        .exitCode())
                .isZero();
    }

    @Test
    void aFlippedByteInTheContractIsARevisionMismatchNamingTheContract() throws IOException {
        byte[] changed = contract.clone();
        changed[10] ^= 0x01;
        SignatureVerification result = SignatureVerifier.verify(changed, revision, signatureFile, keys("alice", alice));
        assertThat(code(result)).isEqualTo(ErrorCode.SIGNATURE_REVISION_MISMATCH);
        assertThat(((SignatureVerification.Rejected) result).diagnostic().message())
                .contains("contract digest");
    }

    @Test
    void aFlippedByteInTheContentIsARevisionMismatch() throws IOException {
        Map<PortablePath, byte[]> changed = new LinkedHashMap<>(files);
        byte[] script = changed.get(PortablePath.of("scripts/run.mjs")).clone();
        script[3] ^= 0x01;
        changed.put(PortablePath.of("scripts/run.mjs"), script);
        Revision other = Revision.compute(changed);

        SignatureVerification result = SignatureVerifier.verify(contract, other, signatureFile, keys("alice", alice));

        assertThat(code(result)).isEqualTo(ErrorCode.SIGNATURE_REVISION_MISMATCH);
        assertThat(((SignatureVerification.Rejected) result).diagnostic().message())
                .contains("signed another revision")
                .doesNotContain("contract digest");
        // ssh-keygen agrees the statement itself is validly signed: the mismatch is about which
        // revision was signed, not about a broken signature.
        assertThat(SshKeygen.verify(
                                dir,
                                allowed("alice " + SshKeygen.publicKey(alice)),
                                "alice",
                                "skillgate",
                                armored,
                                statement.toBytes())
                        .exitCode())
                .isZero();
    }

    @Test
    void aFlippedSignatureByteIsInvalidForBothVerifiers() throws IOException {
        // The last base64 line before the end line carries the tail of the Ed25519 signature.
        String text = new String(signatureFile, StandardCharsets.US_ASCII);
        int end = text.indexOf("\n-----END SSH SIGNATURE-----");
        int position = end - 8;
        byte[] tampered = signatureFile.clone();
        tampered[position] = (byte) (tampered[position] == 'A' ? 'B' : 'A');

        assertThat(code(SignatureVerifier.verify(contract, revision, tampered, keys("alice", alice))))
                .isEqualTo(ErrorCode.SIGNATURE_INVALID);
        byte[] tamperedArmor = Arrays.copyOfRange(tampered, SignatureStatement.LENGTH, tampered.length);
        assertThat(SshKeygen.verify(
                                dir,
                                allowed("alice " + SshKeygen.publicKey(alice)),
                                "alice",
                                "skillgate",
                                tamperedArmor,
                                statement.toBytes())
                        .exitCode())
                .isNotZero();
    }

    @Test
    void aChangedStatementDigitIsInvalidForBothVerifiers() throws IOException {
        byte[] tampered = signatureFile.clone();
        int digit = SignatureStatement.LENGTH - 2; // last hex digit of the revision line
        tampered[digit] = (byte) (tampered[digit] == '0' ? '1' : '0');

        assertThat(code(SignatureVerifier.verify(contract, revision, tampered, keys("alice", alice))))
                .isEqualTo(ErrorCode.SIGNATURE_INVALID);
        assertThat(SshKeygen.verify(
                                dir,
                                allowed("alice " + SshKeygen.publicKey(alice)),
                                "alice",
                                "skillgate",
                                armored,
                                Arrays.copyOf(tampered, SignatureStatement.LENGTH))
                        .exitCode())
                .isNotZero();
    }

    @Test
    void anotherNamespaceIsRefusedByBothVerifiers() throws IOException {
        byte[] file = SshKeygen.signStatement(dir, alice, statement, "other");
        assertThat(code(SignatureVerifier.verify(contract, revision, file, keys("alice", alice))))
                .isEqualTo(ErrorCode.SIGNATURE_NAMESPACE);
        assertThat(SshKeygen.verify(
                                dir,
                                allowed("alice " + SshKeygen.publicKey(alice)),
                                "alice",
                                "skillgate",
                                Arrays.copyOfRange(file, SignatureStatement.LENGTH, file.length),
                                statement.toBytes())
                        .exitCode())
                .isNotZero();
    }

    @Test
    void anUnlistedKeyIsUnknownToBothVerifiers() throws IOException {
        byte[] file = SshKeygen.signStatement(dir, mallory, statement, "skillgate");
        SignatureVerification result = SignatureVerifier.verify(contract, revision, file, keys("alice", alice));
        assertThat(code(result)).isEqualTo(ErrorCode.SIGNATURE_UNKNOWN_KEY);
        assertThat(((SignatureVerification.Rejected) result).diagnostic().message())
                .contains(SshKeygen.fingerprint(mallory));
        assertThat(SshKeygen.verify(
                                dir,
                                allowed("alice " + SshKeygen.publicKey(alice)),
                                "alice",
                                "skillgate",
                                Arrays.copyOfRange(file, SignatureStatement.LENGTH, file.length),
                                statement.toBytes())
                        .exitCode())
                .isNotZero();
    }

    @Test
    void anEcdsaSignatureIsTheWrongAlgorithm() throws IOException {
        Path ecdsa = SshKeygen.generate(dir, "ecdsa", "ecdsa", "-b", "256");
        byte[] file = SshKeygen.signStatement(dir, ecdsa, statement, "skillgate");
        // Even when the host lists the ECDSA key, only Ed25519 is accepted.
        PublisherKeys keys = keys("alice", ecdsa);
        assertThat(keys.entries()).isEmpty();
        assertThat(keys.diagnostics())
                .singleElement()
                .satisfies(d -> assertThat(d.code()).isEqualTo(ErrorCode.SIGNATURE_ALGORITHM));
        assertThat(code(SignatureVerifier.verify(contract, revision, file, keys)))
                .isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
    }

    @Test
    void anRsaSignatureIsTheWrongAlgorithm() throws IOException {
        Path rsa = SshKeygen.generate(dir, "rsa", "rsa", "-b", "2048");
        byte[] file = SshKeygen.signStatement(dir, rsa, statement, "skillgate");
        assertThat(code(SignatureVerifier.verify(contract, revision, file, keys("alice", alice))))
                .isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
    }

    @Test
    void thePublisherMustMatchThePrincipalsOfTheSigningKey() throws IOException {
        PublisherKeys keys = keys("*@acme.example,!intern@acme.example", alice);

        SignatureVerification ok =
                SignatureVerifier.verifyForPublisher("alice@acme.example", statement, signatureFile, keys);
        assertThat(ok).isInstanceOf(SignatureVerification.Verified.class);
        assertThat(((SignatureVerification.Verified) ok).publisher()).contains("alice@acme.example");

        assertThat(code(SignatureVerifier.verifyForPublisher("bob@other.example", statement, signatureFile, keys)))
                .isEqualTo(ErrorCode.SIGNATURE_PUBLISHER_MISMATCH);
        assertThat(code(SignatureVerifier.verifyForPublisher("intern@acme.example", statement, signatureFile, keys)))
                .isEqualTo(ErrorCode.SIGNATURE_PUBLISHER_MISMATCH);
        // ssh-keygen applies the same principal patterns.
        byte[] signers = allowed("*@acme.example,!intern@acme.example " + SshKeygen.publicKey(alice));
        assertThat(SshKeygen.verify(dir, signers, "alice@acme.example", "skillgate", armored, statement.toBytes())
                        .exitCode())
                .isZero();
        assertThat(SshKeygen.verify(dir, signers, "intern@acme.example", "skillgate", armored, statement.toBytes())
                        .exitCode())
                .isNotZero();
    }

    @Test
    void aLaterLineMayAllowThePublisherWhenAnEarlierOneDoesNot() throws IOException {
        String key = SshKeygen.publicKey(alice);
        PublisherKeys keys = PublisherKeys.parse(allowed("bob " + key + "\nalice " + key));
        SignatureVerification result = SignatureVerifier.verifyForPublisher("alice", statement, signatureFile, keys);
        assertThat(result).isInstanceOf(SignatureVerification.Verified.class);
        assertThat(((SignatureVerification.Verified) result).allowedSignersLine())
                .isEqualTo(2);
    }

    @Test
    void theNamespacesOptionIsHonouredLikeSshKeygen() throws IOException {
        String key = SshKeygen.publicKey(alice);
        for (String options : new String[] {"namespaces=\"git\"", "namespaces=\"*,!skillgate\""}) {
            SignatureVerification result = SignatureVerifier.verify(
                    statement, signatureFile, PublisherKeys.parse(allowed("alice " + options + " " + key)));
            assertThat(code(result)).as(options).isEqualTo(ErrorCode.SIGNATURE_UNKNOWN_KEY);
            assertThat(((SignatureVerification.Rejected) result).diagnostic().message())
                    .contains("not for namespace");
            assertThat(SshKeygen.verify(
                                    dir,
                                    allowed("alice " + options + " " + key),
                                    "alice",
                                    "skillgate",
                                    armored,
                                    statement.toBytes())
                            .exitCode())
                    .as(options)
                    .isNotZero();
        }
        for (String options : new String[] {"namespaces=\"git,skillgate\"", "NAMESPACES=\"skill*\""}) {
            assertThat(SignatureVerifier.verify(
                            statement, signatureFile, PublisherKeys.parse(allowed("alice " + options + " " + key))))
                    .as(options)
                    .isInstanceOf(SignatureVerification.Verified.class);
            assertThat(SshKeygen.verify(
                                    dir,
                                    allowed("alice " + options + " " + key),
                                    "alice",
                                    "skillgate",
                                    armored,
                                    statement.toBytes())
                            .exitCode())
                    .as(options)
                    .isZero();
        }
    }

    @Test
    void aCertAuthorityLineGrantsNothing() throws IOException {
        PublisherKeys keys = keys("alice cert-authority", alice);
        assertThat(keys.entries()).isEmpty();
        assertThat(keys.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(ErrorCode.SIGNATURE_SIGNER_UNSUPPORTED);
            assertThat(d.isError()).isFalse();
        });
        assertThat(code(SignatureVerifier.verify(statement, signatureFile, keys)))
                .isEqualTo(ErrorCode.SIGNATURE_UNKNOWN_KEY);
        // ssh-keygen does not accept a plain key through a cert-authority line either.
        assertThat(SshKeygen.verify(
                                dir,
                                allowed("alice cert-authority " + SshKeygen.publicKey(alice)),
                                "alice",
                                "skillgate",
                                armored,
                                statement.toBytes())
                        .exitCode())
                .isNotZero();
    }

    @Test
    void aValidityWindowLineIsIgnoredRatherThanTrustedWithoutItsLimit() throws IOException {
        PublisherKeys keys = keys("alice valid-before=\"29990101\"", alice);
        assertThat(keys.entries()).isEmpty();
        assertThat(keys.diagnostics())
                .singleElement()
                .satisfies(d -> assertThat(d.code()).isEqualTo(ErrorCode.SIGNATURE_SIGNER_UNSUPPORTED));
        assertThat(code(SignatureVerifier.verify(statement, signatureFile, keys)))
                .isEqualTo(ErrorCode.SIGNATURE_UNKNOWN_KEY);
    }

    @Test
    void theBareSshKeygenOutputWithoutTheStatementIsAFormatError() throws IOException {
        SignatureVerification result = SignatureVerifier.verify(statement, armored, keys("alice", alice));
        assertThat(code(result)).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        assertThat(((SignatureVerification.Rejected) result).diagnostic().message())
                .contains("no statement");
    }

    @Test
    void aKeyFromTheBuilderVerifiesLikeOneFromAFile() throws IOException {
        PublisherKeys keys =
                PublisherKeys.builder().add("alice", SshKeygen.publicKey(alice)).build();
        SignatureVerification result = SignatureVerifier.verify(statement, signatureFile, keys);
        assertThat(result).isInstanceOf(SignatureVerification.Verified.class);
        assertThat(((SignatureVerification.Verified) result).allowedSignersLine())
                .isZero();
        assertThat(keys.entries().get(0).fingerprint()).isEqualTo(SshKeygen.fingerprint(alice));
    }

    @Test
    void theStatementOnDiskIsExactlyWhatSshKeygenSigned() throws IOException {
        Path message = Files.write(dir.resolve("exact-statement"), statement.toBytes());
        assertThat(Files.size(message)).isEqualTo(SignatureStatement.LENGTH);
        assertThat(Arrays.copyOf(signatureFile, SignatureStatement.LENGTH)).isEqualTo(Files.readAllBytes(message));
    }
}
