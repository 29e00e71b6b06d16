package dev.skillgate.signature;

import static dev.skillgate.signature.Golden.ascii;
import static dev.skillgate.signature.Golden.concat;
import static dev.skillgate.signature.Golden.string;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Changes the committed {@code ssh-keygen} signature one byte or one field at a time and checks
 * that each change is refused with the code that names it.
 */
class SignatureTamperTest {

    private static final byte[] FILE = Golden.signatureFile();
    private static final Golden.Fields FIELDS = Golden.Fields.of(Golden.blob());

    private static SignatureVerification verify(byte[] file) {
        return SignatureVerifier.verify(Golden.statement(), file, Golden.keys());
    }

    private static ErrorCode code(byte[] file) {
        SignatureVerification result = verify(file);
        assertThat(result).isInstanceOf(SignatureVerification.Rejected.class);
        return ((SignatureVerification.Rejected) result).code();
    }

    private static byte[] keyBlob(byte[] type, byte[] key) {
        return concat(string(type), string(key));
    }

    private static byte[] rawKey() {
        return Arrays.copyOfRange(FIELDS.key(), 4 + 11 + 4, FIELDS.key().length);
    }

    private static byte[] rawSignature() {
        return Arrays.copyOfRange(FIELDS.sig(), 4 + 11 + 4, FIELDS.sig().length);
    }

    @Test
    void theCommittedSignatureVerifies() {
        SignatureVerification result =
                SignatureVerifier.verify(Golden.contract(), Golden.revision(), FILE, Golden.keys());
        assertThat(result).isInstanceOf(SignatureVerification.Verified.class);
        SignatureVerification.Verified verified = (SignatureVerification.Verified) result;
        assertThat(verified.keyFingerprint()).isEqualTo(Golden.fingerprint());
        assertThat(verified.principals()).containsExactly("alice@example.com");
        assertThat(verified.hashAlgorithm()).isEqualTo("sha512");
        assertThat(verified.allowedSignersLine()).isEqualTo(2);
        // Re-armoring the unchanged blob gives the same file: the helpers below change one field only.
        assertThat(Golden.fileWithBlob(FIELDS.encode())).isEqualTo(FILE);
    }

    @ParameterizedTest
    @ValueSource(ints = {0x01, 0x02, 0x20, 0x80, 0xFF})
    void everySingleByteChangeIsRefusedWithACodeForItsRegion(int mask) {
        Set<ErrorCode> statementCodes = EnumSet.noneOf(ErrorCode.class);
        Set<ErrorCode> armorCodes = EnumSet.noneOf(ErrorCode.class);
        for (int i = 0; i < FILE.length; i++) {
            byte[] tampered = FILE.clone();
            tampered[i] ^= (byte) mask;
            ErrorCode code = code(tampered);
            (i < SignatureStatement.LENGTH ? statementCodes : armorCodes).add(code);
        }
        assertThat(statementCodes).isSubsetOf(ErrorCode.SIGNATURE_FORMAT, ErrorCode.SIGNATURE_INVALID);
        assertThat(armorCodes)
                .isSubsetOf(
                        ErrorCode.SIGNATURE_FORMAT,
                        ErrorCode.SIGNATURE_ALGORITHM,
                        ErrorCode.SIGNATURE_NAMESPACE,
                        ErrorCode.SIGNATURE_UNKNOWN_KEY,
                        ErrorCode.SIGNATURE_INVALID)
                .contains(ErrorCode.SIGNATURE_FORMAT);
        if (mask == 0x01) {
            // A low-bit flip keeps most characters inside their alphabet, so it reaches every stage.
            assertThat(statementCodes).contains(ErrorCode.SIGNATURE_FORMAT, ErrorCode.SIGNATURE_INVALID);
            assertThat(armorCodes).contains(ErrorCode.SIGNATURE_UNKNOWN_KEY, ErrorCode.SIGNATURE_INVALID);
        }
    }

    @Test
    void theMagicPreambleMustBeSshsig() {
        byte[] magic = ascii("SSHSIh");
        assertThat(code(Golden.fileWithBlob(new Golden.Fields(
                                magic,
                                1,
                                FIELDS.key(),
                                FIELDS.namespace(),
                                FIELDS.reserved(),
                                FIELDS.hash(),
                                FIELDS.sig())
                        .encode())))
                .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, -1})
    void onlyVersionOneIsAccepted(int version) {
        assertThat(code(Golden.fileWithBlob(FIELDS.withVersion(version).encode())))
                .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void anotherKeyTypeIsTheWrongAlgorithm() {
        byte[] key = keyBlob(ascii("ssh-ed448"), rawKey());
        assertThat(code(Golden.fileWithBlob(FIELDS.withKey(key).encode()))).isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
        byte[] sk = keyBlob(ascii("sk-ssh-ed25519@openssh.com"), rawKey());
        assertThat(code(Golden.fileWithBlob(FIELDS.withKey(sk).encode()))).isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
    }

    @Test
    void aChangedKeyIsUnknown() {
        byte[] raw = rawKey();
        raw[5] ^= 0x01;
        ErrorCode code = code(Golden.fileWithBlob(
                FIELDS.withKey(keyBlob(ascii("ssh-ed25519"), raw)).encode()));
        // Most 32-byte strings decode as curve points; the rare one that does not is malformed.
        assertThat(code).isIn(ErrorCode.SIGNATURE_UNKNOWN_KEY, ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void aKeyOfTheWrongLengthOrWithTrailingDataIsMalformed() {
        byte[] raw = rawKey();
        assertThat(code(Golden.fileWithBlob(FIELDS.withKey(keyBlob(ascii("ssh-ed25519"), Arrays.copyOf(raw, 31)))
                        .encode())))
                .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        assertThat(code(Golden.fileWithBlob(FIELDS.withKey(concat(keyBlob(ascii("ssh-ed25519"), raw), new byte[] {0}))
                        .encode())))
                .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void aNamespaceOtherThanSkillgateIsRefusedByName() {
        SignatureVerification result = verify(
                Golden.fileWithBlob(FIELDS.withNamespace(ascii("skillgatf")).encode()));
        assertThat(((SignatureVerification.Rejected) result).code()).isEqualTo(ErrorCode.SIGNATURE_NAMESPACE);
        assertThat(((SignatureVerification.Rejected) result).diagnostic().message())
                .contains("'skillgatf'");
        assertThat(code(Golden.fileWithBlob(
                        FIELDS.withNamespace(ascii("skillgate\0")).encode())))
                .isEqualTo(ErrorCode.SIGNATURE_NAMESPACE);
    }

    @Test
    void aNonEmptyReservedFieldIsMalformed() {
        assertThat(code(Golden.fileWithBlob(FIELDS.withReserved(ascii("x")).encode())))
                .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sha513", "sha1", "SHA512", "", "md5"})
    void anotherHashAlgorithmIsTheWrongAlgorithm(String hash) {
        assertThat(code(Golden.fileWithBlob(FIELDS.withHash(ascii(hash)).encode())))
                .isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
    }

    @Test
    void sha256InPlaceOfSha512IsInvalidBecauseTheSignedDataNamesTheHash() {
        assertThat(code(Golden.fileWithBlob(FIELDS.withHash(ascii("sha256")).encode())))
                .isEqualTo(ErrorCode.SIGNATURE_INVALID);
    }

    @Test
    void anotherSignatureTypeIsTheWrongAlgorithm() {
        byte[] sig = concat(string(ascii("rsa-sha2-512")), string(rawSignature()));
        assertThat(code(Golden.fileWithBlob(FIELDS.withSig(sig).encode()))).isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 31, 32, 63})
    void aChangedSignatureByteIsInvalid(int index) {
        byte[] raw = rawSignature();
        raw[index] ^= 0x01;
        byte[] sig = concat(string(ascii("ssh-ed25519")), string(raw));
        assertThat(code(Golden.fileWithBlob(FIELDS.withSig(sig).encode()))).isEqualTo(ErrorCode.SIGNATURE_INVALID);
    }

    @Test
    void aNonCanonicalScalarIsInvalid() {
        // S + L is the same signature modulo the group order; RFC 8032 verifiers must refuse it.
        byte[] raw = rawSignature();
        byte[] s = reverse(Arrays.copyOfRange(raw, 32, 64));
        BigInteger order = BigInteger.TWO.pow(252).add(new BigInteger("27742317777372353535851937790883648493"));
        byte[] big = new BigInteger(1, s).add(order).toByteArray();
        byte[] le = new byte[32];
        for (int i = 0; i < big.length && i < 33; i++) {
            if (big.length - 1 - i < 32) {
                le[big.length - 1 - i] = big[i];
            }
        }
        System.arraycopy(le, 0, raw, 32, 32);
        byte[] sig = concat(string(ascii("ssh-ed25519")), string(raw));
        assertThat(code(Golden.fileWithBlob(FIELDS.withSig(sig).encode()))).isEqualTo(ErrorCode.SIGNATURE_INVALID);
    }

    @Test
    void aSignatureOfTheWrongLengthOrWithTrailingDataIsMalformed() {
        byte[] raw = rawSignature();
        byte[] shortSig = concat(string(ascii("ssh-ed25519")), string(Arrays.copyOf(raw, 63)));
        assertThat(code(Golden.fileWithBlob(FIELDS.withSig(shortSig).encode()))).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        byte[] trailing = concat(string(ascii("ssh-ed25519")), string(raw), new byte[] {1});
        assertThat(code(Golden.fileWithBlob(FIELDS.withSig(trailing).encode()))).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void trailingDataAfterTheBlobOrAnImpossibleLengthIsMalformed() {
        assertThat(code(Golden.fileWithBlob(concat(FIELDS.encode(), new byte[] {0}))))
                .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        byte[] huge = FIELDS.encode();
        huge[10] = (byte) 0xFF; // the public key's length field
        huge[11] = (byte) 0xFF;
        huge[12] = (byte) 0xFF;
        huge[13] = (byte) 0xFF;
        assertThat(code(Golden.fileWithBlob(huge))).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void everyTruncationIsMalformedIncludingDroppingTheFinalNewline() {
        for (int length = 0; length < FILE.length; length++) {
            assertThat(code(Arrays.copyOf(FILE, length)))
                    .as("prefix %d", length)
                    .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {64, 69, 71, 76, 1000})
    void base64WrappedOtherwiseThanSshKeygenIsMalformed(int width) {
        String base64 = java.util.Base64.getEncoder().encodeToString(Golden.blob());
        StringBuilder armor = new StringBuilder("-----BEGIN SSH SIGNATURE-----\n");
        for (int i = 0; i < base64.length(); i += width) {
            armor.append(base64, i, Math.min(base64.length(), i + width)).append('\n');
        }
        armor.append("-----END SSH SIGNATURE-----\n");
        byte[] file = Golden.statement().signatureFile(armor.toString().getBytes(StandardCharsets.US_ASCII));
        assertThat(code(file)).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void aShortLineBeforeTheLastIsMalformed() {
        String text = new String(FILE, StandardCharsets.US_ASCII);
        int firstLine = SignatureStatement.LENGTH + "-----BEGIN SSH SIGNATURE-----\n".length();
        // Split the first 70-character line into 35 + 35: same base64, different wrapping.
        String changed = text.substring(0, firstLine + 35) + "\n" + text.substring(firstLine + 35);
        assertThat(code(changed.getBytes(StandardCharsets.US_ASCII))).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        // The file the fuzzer found while the rule was "1-76 characters per line".
        assertThat(code(Golden.resource("../SignatureFuzzTestInputs/signatureFile/rewrapped-base64")))
                .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "x", "\n\n", " ", "-----BEGIN SSH SIGNATURE-----\n"})
    void trailingDataIsMalformed(String trailer) {
        assertThat(code(concat(FILE, trailer.getBytes(StandardCharsets.US_ASCII))))
                .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void aSecondSignatureBlockIsMalformed() {
        byte[] armor = Arrays.copyOfRange(FILE, SignatureStatement.LENGTH, FILE.length);
        assertThat(code(concat(FILE, armor))).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void anOversizedFileIsRefusedBeforeParsing() {
        byte[] big = Arrays.copyOf(FILE, SignatureVerifier.MAX_SIGNATURE_FILE_BYTES + 1);
        SignatureVerification result = verify(big);
        assertThat(((SignatureVerification.Rejected) result).code()).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        assertThat(((SignatureVerification.Rejected) result).diagnostic().message())
                .contains("exceeds");
        assertThat(code(new byte[64 * 1024 * 1024])).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void crlfLineEndingsAreMalformed() {
        String text = new String(FILE, StandardCharsets.US_ASCII).replace("\n", "\r\n");
        assertThat(code(text.getBytes(StandardCharsets.US_ASCII))).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        String armorOnly = new String(FILE, StandardCharsets.US_ASCII);
        String head = armorOnly.substring(0, SignatureStatement.LENGTH);
        String tail = armorOnly.substring(SignatureStatement.LENGTH).replace("\n", "\r\n");
        SignatureVerification result = verify((head + tail).getBytes(StandardCharsets.US_ASCII));
        assertThat(((SignatureVerification.Rejected) result).code()).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
    }

    @Test
    void nonCanonicalBase64IsMalformed() {
        // The last character before '=' carries unused low bits; setting one gives another spelling
        // of the same bytes to a lenient decoder.
        String text = new String(FILE, StandardCharsets.US_ASCII);
        int pad = text.indexOf("=\n-----END");
        assertThat(pad).isPositive();
        char last = text.charAt(pad - 1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        char alias = alphabet.charAt(alphabet.indexOf(last) ^ 0x01);
        String changed = text.substring(0, pad - 1) + alias + text.substring(pad);
        SignatureVerification result = verify(changed.getBytes(StandardCharsets.US_ASCII));
        assertThat(((SignatureVerification.Rejected) result).code()).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        assertThat(((SignatureVerification.Rejected) result).diagnostic().message())
                .contains("canonical");
    }

    @Test
    void theStatementMustBeExactlyTheVersionOneLayout() {
        String text = new String(FILE, StandardCharsets.US_ASCII);
        String statement = text.substring(0, SignatureStatement.LENGTH);
        String armor = text.substring(SignatureStatement.LENGTH);
        for (String bad : new String[] {
            statement.replace("skillgate-signature-v1", "skillgate-signature-v2"),
            statement.replace("contract sha256:", "Contract sha256:"),
            statement.replace("revision sha256:", "revision sha256: "),
            statement.toUpperCase(java.util.Locale.ROOT),
            statement.replace("revision sha256:e", "revision sha256:E"),
            statement + "comment\n",
            "\n" + statement,
            statement.replace("\ncontract", "\n\ncontract"),
            statement.substring(0, statement.length() - 1),
        }) {
            assertThat(code((bad + armor).getBytes(StandardCharsets.ISO_8859_1)))
                    .as(bad)
                    .isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        }
        SignatureVerification v2 =
                verify((statement.replace("-v1", "-v2") + armor).getBytes(StandardCharsets.US_ASCII));
        assertThat(((SignatureVerification.Rejected) v2).diagnostic().message())
                .contains("unsupported statement version");
    }

    @Test
    void anEmptyFileIsMalformedAndAnAbsentOneIsMissing() {
        assertThat(code(new byte[0])).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        SignatureVerification missing = SignatureVerifier.missing();
        assertThat(((SignatureVerification.Rejected) missing).code()).isEqualTo(ErrorCode.SIGNATURE_MISSING);
        assertThat(((SignatureVerification.Rejected) missing).diagnostic().location())
                .isEqualTo(SignatureVerifier.SIGNATURE_FILE_NAME);
    }

    @Test
    void aWellSignedStatementForAnotherRevisionIsAMismatchNotAnInvalidSignature() {
        Revision other = Revision.compute(java.util.Map.of());
        SignatureVerification result = SignatureVerifier.verify(Golden.contract(), other, FILE, Golden.keys());
        assertThat(((SignatureVerification.Rejected) result).code()).isEqualTo(ErrorCode.SIGNATURE_REVISION_MISMATCH);
    }

    @Test
    void noKeysMeansUnknownKey() {
        SignatureVerification result = SignatureVerifier.verify(
                Golden.statement(), FILE, PublisherKeys.builder().build());
        assertThat(((SignatureVerification.Rejected) result).code()).isEqualTo(ErrorCode.SIGNATURE_UNKNOWN_KEY);
    }

    private static byte[] reverse(byte[] in) {
        byte[] out = new byte[in.length];
        for (int i = 0; i < in.length; i++) {
            out[i] = in[in.length - 1 - i];
        }
        return out;
    }
}
