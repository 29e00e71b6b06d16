package dev.skillgate.signature;

import dev.skillgate.model.Revision;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * The committed signature vector: a statement signed once by {@code ssh-keygen -Y sign -n
 * skillgate} (OpenSSH 9.2, sha512), the allowed-signers line for its key, and helpers that take the
 * SSHSIG blob apart and put it back together so tests can change one field at a time.
 */
final class Golden {
    private Golden() {}

    static byte[] resource(String name) {
        try (InputStream in = Golden.class.getResourceAsStream("golden/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource golden/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] contract() {
        return resource("skill.contract.json");
    }

    static Revision revision() {
        return Revision.parse(new String(resource("revision.txt"), StandardCharsets.US_ASCII).strip());
    }

    static SignatureStatement statement() {
        return SignatureStatement.of(contract(), revision());
    }

    static byte[] signatureFile() {
        return resource("skill.contract.sig");
    }

    static PublisherKeys keys() {
        return PublisherKeys.parse(resource("allowed_signers"));
    }

    static String fingerprint() {
        return new String(resource("fingerprint.txt"), StandardCharsets.US_ASCII).split(" ")[1];
    }

    /** The SSHSIG blob of the golden file. */
    static byte[] blob() {
        String text = new String(signatureFile(), StandardCharsets.US_ASCII);
        String body = text.substring(
                text.indexOf("-----BEGIN SSH SIGNATURE-----\n") + 30, text.indexOf("-----END SSH SIGNATURE-----"));
        return Base64.getDecoder().decode(body.replace("\n", ""));
    }

    /** The golden statement followed by {@code blob} armored as ssh-keygen does (70-column lines). */
    static byte[] fileWithBlob(byte[] blob) {
        String base64 = Base64.getEncoder().encodeToString(blob);
        StringBuilder armor = new StringBuilder("-----BEGIN SSH SIGNATURE-----\n");
        for (int i = 0; i < base64.length(); i += 70) {
            armor.append(base64, i, Math.min(base64.length(), i + 70)).append('\n');
        }
        armor.append("-----END SSH SIGNATURE-----\n");
        return statement().signatureFile(armor.toString().getBytes(StandardCharsets.US_ASCII));
    }

    /** The fields of an SSHSIG blob: magic, version, then the five strings. */
    record Fields(byte[] magic, int version, byte[] key, byte[] namespace, byte[] reserved, byte[] hash, byte[] sig) {
        static Fields of(byte[] blob) {
            ByteBuffer in = ByteBuffer.wrap(blob);
            byte[] magic = new byte[6];
            in.get(magic);
            int version = in.getInt();
            List<byte[]> strings = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                byte[] s = new byte[in.getInt()];
                in.get(s);
                strings.add(s);
            }
            return new Fields(
                    magic, version, strings.get(0), strings.get(1), strings.get(2), strings.get(3), strings.get(4));
        }

        byte[] encode() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(magic);
            out.writeBytes(ByteBuffer.allocate(4).putInt(version).array());
            for (byte[] s : List.of(key, namespace, reserved, hash, sig)) {
                out.writeBytes(string(s));
            }
            return out.toByteArray();
        }

        Fields withVersion(int v) {
            return new Fields(magic, v, key, namespace, reserved, hash, sig);
        }

        Fields withKey(byte[] k) {
            return new Fields(magic, version, k, namespace, reserved, hash, sig);
        }

        Fields withNamespace(byte[] n) {
            return new Fields(magic, version, key, n, reserved, hash, sig);
        }

        Fields withReserved(byte[] r) {
            return new Fields(magic, version, key, namespace, r, hash, sig);
        }

        Fields withHash(byte[] h) {
            return new Fields(magic, version, key, namespace, reserved, h, sig);
        }

        Fields withSig(byte[] s) {
            return new Fields(magic, version, key, namespace, reserved, hash, s);
        }
    }

    /** SSH {@code string} encoding. */
    static byte[] string(byte[] s) {
        byte[] out = Arrays.copyOf(ByteBuffer.allocate(4).putInt(s.length).array(), 4 + s.length);
        System.arraycopy(s, 0, out, 4, s.length);
        return out;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
