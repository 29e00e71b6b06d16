package dev.skillgate.signature;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * Builds {@code openssh-key-v1} private key files field by field (OpenSSH {@code PROTOCOL.key}), so
 * tests can break exactly one rule at a time. With the defaults it builds the file {@code ssh-keygen
 * -t ed25519 -N ''} would write for the seed (up to the random check integer).
 */
final class OpenSshKeyFile {
    String cipher = "none";
    String kdf = "none";
    byte[] kdfOptions = new byte[0];
    int keys = 1;
    String publicType = "ssh-ed25519";
    byte[] publicKey;
    long check1 = 0x5EC7E7L;
    long check2 = 0x5EC7E7L;
    String privateType = "ssh-ed25519";
    byte[] embeddedPublic;
    byte[] privateKey;
    byte[] comment = "test@key".getBytes(StandardCharsets.US_ASCII);
    /** Padding bytes; {@code null} for OpenSSH's 1, 2, 3, ... up to the 8-byte block. */
    byte[] padding;

    byte[] afterSection = new byte[0];

    /** A file for the Ed25519 key with this 32-byte seed. */
    OpenSshKeyFile(byte[] seed) {
        byte[] pub =
                new Ed25519PrivateKeyParameters(seed, 0).generatePublicKey().getEncoded();
        publicKey = pub;
        embeddedPublic = pub;
        privateKey = concat(seed, pub);
    }

    /** A deterministic key for {@code n}. */
    static OpenSshKeyFile seeded(int n) {
        byte[] seed = new byte[32];
        Arrays.fill(seed, (byte) n);
        seed[0] = (byte) 0x42;
        return new OpenSshKeyFile(seed);
    }

    byte[] publicBlob() {
        return concat(string(ascii(publicType)), string(publicKey));
    }

    byte[] section() {
        byte[] body = concat(
                uint32(check1),
                uint32(check2),
                string(ascii(privateType)),
                string(embeddedPublic),
                string(privateKey),
                string(comment));
        byte[] pad = padding;
        if (pad == null) {
            pad = new byte[(8 - body.length % 8) % 8];
            for (int i = 0; i < pad.length; i++) {
                pad[i] = (byte) (i + 1);
            }
        }
        return concat(body, pad);
    }

    byte[] blob() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ascii("openssh-key-v1\0"));
        out.writeBytes(string(ascii(cipher)));
        out.writeBytes(string(ascii(kdf)));
        out.writeBytes(string(kdfOptions));
        out.writeBytes(uint32(keys));
        for (int i = 0; i < Math.max(keys, 1) && i < 4; i++) {
            out.writeBytes(string(publicBlob()));
        }
        out.writeBytes(string(section()));
        out.writeBytes(afterSection);
        return out.toByteArray();
    }

    byte[] file() {
        return armor(blob());
    }

    /** The armor {@code ssh-keygen} writes: base64 in 70-character lines. */
    static byte[] armor(byte[] blob) {
        String base64 = Base64.getEncoder().encodeToString(blob);
        StringBuilder text = new StringBuilder("-----BEGIN OPENSSH PRIVATE KEY-----\n");
        for (int i = 0; i < base64.length(); i += 70) {
            text.append(base64, i, Math.min(base64.length(), i + 70)).append('\n');
        }
        text.append("-----END OPENSSH PRIVATE KEY-----\n");
        return ascii(text.toString());
    }

    /** The decoded blob of an armored key file, as {@code ssh-keygen} wrote it. */
    static byte[] dearmor(byte[] file) {
        String text = new String(file, StandardCharsets.US_ASCII);
        String body = text.replace("-----BEGIN OPENSSH PRIVATE KEY-----", "")
                .replace("-----END OPENSSH PRIVATE KEY-----", "")
                .replace("\n", "");
        return Base64.getDecoder().decode(body);
    }

    static byte[] uint32(long v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    static byte[] string(byte[] s) {
        return concat(uint32(s.length), s);
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
