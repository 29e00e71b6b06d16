package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code skillgate inspect}, {@code check-input} and {@code verify-signature} through {@link
 * Main#run} on real directories, with publisher signatures made by the real {@code ssh-keygen -Y
 * sign} (argument arrays, never a shell).
 */
class InspectCheckInputAndSignatureCommandTest extends CommandTestSupport {
    private static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");
    private static final String SCHEMAS = "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"name\":"
            + "{\"type\":\"string\",\"minLength\":1}},\"required\":[\"name\"],\"additionalProperties\":false},"
            + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}}";

    @TempDir
    Path root;

    @BeforeEach
    void requireSshKeygen() {
        assertThat(Files.isExecutable(SSH_KEYGEN))
                .as("these tests need OpenSSH ssh-keygen at %s", SSH_KEYGEN)
                .isTrue();
    }

    /** An executable skill {@code name} whose input needs a non-empty {@code name}. */
    private Path skill(String name) throws IOException {
        Path dir = root.resolve(name);
        write(dir.resolve("SKILL.md"), "---\nname: " + name + "\ndescription: Greets.\n---\n# Greet\n");
        write(dir.resolve("run.mjs"), "console.log(JSON.stringify({}));\n");
        write(
                dir.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"run.mjs\",\"files\":[\"run.mjs\"]," + SCHEMAS + "}\n");
        return dir;
    }

    private static String contract(String name, String origin) {
        String publisher = origin.equals("signed") ? ",\"publisher\":\"alice@example.com\"" : "";
        return "{\"schemaVersion\":1,\"recordType\":\"skill-contract\","
                + "\"identity\":{\"id\":\"global/" + name + "\",\"version\":\"1.0.0\"},"
                + "\"origin\":{\"type\":\"" + origin + "\"" + publisher + "},"
                + "\"agents\":[{\"kind\":\"codex\",\"minVersion\":\"0.130.0\",\"maxVersion\":\"0.200.0\"}],"
                + "\"inputTypes\":[\"text\"],\"tools\":[],\"credentials\":[],\"permissionMode\":\"read-only\","
                + "\"networkDestinations\":[],\"sideEffectClass\":\"none\"}\n";
    }

    @Test
    void inspectTheSampleSkill() throws IOException {
        Path sample = Path.of("../examples/skills/hello-world");
        assertThat(run("inspect", sample.toString())).as(stderr()).isZero();
        assertThat(stdout())
                .contains("revision: sha256:")
                .contains("format: portable yes, loadable yes")
                .contains("manifest: accepted (entrypoint scripts/hello.mjs")
                .contains("schemas: input accepted, output accepted")
                .contains("execution: available (still needs consent)")
                .contains("contract: absent")
                .contains("signature: not checked")
                .contains("not a sandbox");
        assertThat(run("inspect", "--json", sample.toString())).isZero();
        JsonNode doc = jsonTree();
        assertThat(doc.get("schema").stringValue()).isEqualTo("skillgate.inspect/1");
        assertThat(doc.get("passes").booleanValue()).isTrue();
        assertThat(doc.get("revision").stringValue()).startsWith("sha256:");
        assertThat(doc.get("capture").get("files").size()).isEqualTo(3);
        assertThat(doc.get("manifest").get("status").stringValue()).isEqualTo("accepted");
        assertThat(doc.get("schemas").get("input").get("status").stringValue()).isEqualTo("accepted");
        assertThat(doc.get("execution").get("available").booleanValue()).isTrue();
        assertThat(doc.get("contract").get("status").stringValue()).isEqualTo("absent");
        assertThat(doc.get("signature").get("status").stringValue()).isEqualTo("not-checked");
        // Same revision from another working directory spelling of the same tree.
        String revision = doc.get("revision").stringValue();
        assertThat(run("inspect", "--json", sample.toAbsolutePath().normalize().toString()))
                .isZero();
        assertThat(jsonTree().get("revision").stringValue()).isEqualTo(revision);
    }

    @Test
    void inspectReportsARejectedManifestButKeepsPromptUse() throws IOException {
        Path dir = skill("broken");
        write(dir.resolve("execution.json"), "{\"schemaVersion\":1,\"entrypoint\":\"run.py\",\"files\":[\"run.py\"]}");
        assertThat(run("inspect", "--json", dir.toString())).isEqualTo(1);
        JsonNode doc = jsonTree();
        assertThat(doc.get("passes").booleanValue()).isFalse();
        assertThat(doc.get("format").get("loadable").booleanValue()).isTrue();
        assertThat(doc.get("manifest").get("status").stringValue()).isEqualTo("rejected");
        assertThat(doc.get("execution").get("available").booleanValue()).isFalse();
        List<String> codes = new ArrayList<>();
        doc.get("execution").get("reasons").forEach(r -> codes.add(r.get("code").stringValue()));
        assertThat(codes).contains("MANIFEST_UNSUPPORTED_RUNTIME", "MANIFEST_MISSING_FIELD");
        assertThat(doc.get("schemas").get("input").get("status").stringValue()).isEqualTo("rejected");
        assertThat(run("inspect", dir.toString())).isEqualTo(1);
        assertThat(stdout()).contains("manifest: rejected").contains("MANIFEST_UNSUPPORTED_RUNTIME");
    }

    @Test
    void inspectUsageErrors() {
        assertThat(run("inspect", root.resolve("missing").toString())).isEqualTo(2);
        assertThat(stderr()).contains("path does not exist");
        assertThat(run("inspect")).isEqualTo(2);
        assertThat(run("inspect", root.toString(), "--profile", "loose")).isEqualTo(2);
        assertThat(run("inspect", root.toString(), "--namespace", "Not Valid")).isEqualTo(2);
        assertThat(run(
                        "inspect",
                        root.toString(),
                        "--allowed-signers",
                        root.resolve("none").toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("READ_NOT_FOUND");
    }

    @Test
    void checkInputValidInvalidAndFromAFile() throws IOException {
        Path dir = skill("greet");
        assertThat(run("check-input", dir.toString(), "--input", "{\"name\":\"Ada\"}"))
                .as(stderr())
                .isZero();
        assertThat(stdout()).startsWith("valid invocation").contains("digest sha256:");
        assertThat(run("check-input", dir.toString(), "--input", "{\"name\":\"\"}"))
                .isEqualTo(1);
        assertThat(stderr()).contains("VALUE_MIN_LENGTH").contains("/name");
        assertThat(run("check-input", "--json", dir.toString(), "--input", "{\"nom\":1}"))
                .isEqualTo(1);
        JsonNode doc = jsonTree();
        assertThat(doc.get("schema").stringValue()).isEqualTo("skillgate.check-input/1");
        assertThat(doc.get("valid").booleanValue()).isFalse();
        List<String> codes = new ArrayList<>();
        doc.get("issues").forEach(i -> codes.add(i.get("code").stringValue()));
        assertThat(codes).contains("VALUE_REQUIRED", "VALUE_ADDITIONAL_PROPERTY");
        assertThat(run("check-input", dir.toString(), "--input", "{\"name\":\"a\",\"name\":\"b\"}"))
                .isEqualTo(1);
        assertThat(stderr()).contains("JSON_DUPLICATE_KEY");
        assertThat(run("check-input", dir.toString(), "--input", "[]")).isEqualTo(1);
        assertThat(stderr()).contains("JSON_ROOT_NOT_OBJECT");

        Path input = write(root.resolve("inputs/in.json"), "{\"name\":\"Grace\"}");
        assertThat(run("check-input", "--json", dir.toString(), "--input", "@" + input))
                .isZero();
        assertThat(jsonTree().get("digest").stringValue()).startsWith("sha256:");
        Path big = write(root.resolve("inputs/big.json"), "{\"name\":\"" + "x".repeat(70_000) + "\"}");
        assertThat(run("check-input", dir.toString(), "--input", "@" + big)).isEqualTo(1);
        assertThat(stderr()).contains("JSON_TOO_LARGE");
        Path link = root.resolve("inputs/link.json");
        Files.createSymbolicLink(link, input);
        assertThat(run("check-input", dir.toString(), "--input", "@" + link)).isEqualTo(2);
        assertThat(stderr()).contains("READ_LINK");
        assertThat(run("check-input", dir.toString(), "--input", "@" + root.resolve("inputs/none.json")))
                .isEqualTo(2);
        assertThat(run("check-input", dir.toString(), "--input", "@" + root.resolve("inputs")))
                .isEqualTo(2);
        assertThat(stderr()).contains("READ_NOT_REGULAR");
    }

    @Test
    void checkInputWithoutAManifestOrWithoutInput() throws IOException {
        Path dir = root.resolve("prompt-only");
        write(dir.resolve("SKILL.md"), "---\nname: prompt-only\ndescription: d\n---\n");
        assertThat(run("check-input", dir.toString(), "--input", "{}")).isEqualTo(1);
        assertThat(stderr()).contains("no input schema").contains("MANIFEST_ABSENT");
        assertThat(run("check-input", "--json", dir.toString(), "--input", "{}"))
                .isEqualTo(1);
        assertThat(jsonTree().get("schemaAvailable").booleanValue()).isFalse();
        assertThat(run("check-input", dir.toString())).isEqualTo(2);
        assertThat(stderr()).contains("--input is required");
    }

    /** A publisher key, a signed skill and the host's allowed signers, made with the real ssh-keygen. */
    private record Signed(Path dir, Path key, Path allowedSigners) {}

    private Signed signedSkill() throws IOException {
        Path dir = skill("signed-skill");
        write(dir.resolve("skill.contract.json"), contract("signed-skill", "signed"));
        Path key = root.resolve("keys/publisher");
        Files.createDirectories(key.getParent());
        ssh("-q", "-t", "ed25519", "-N", "", "-C", "publisher@test", "-f", key.toString());
        Path allowed = write(
                root.resolve("allowed_signers"),
                "alice@example.com " + Files.readString(Path.of(key + ".pub")).strip() + "\n");
        sign(dir, key);
        return new Signed(dir, key, allowed);
    }

    /** The publisher workflow of docs/signatures.md: take the statement from inspect, sign it, cat. */
    private void sign(Path dir, Path key) throws IOException {
        assertThat(run("inspect", "--json", dir.toString())).isIn(0, 1);
        String statementText = jsonTree().get("contract").get("statement").stringValue();
        Path statement = write(root.resolve("statement"), statementText);
        Files.deleteIfExists(Path.of(statement + ".sig"));
        ssh("-Y", "sign", "-n", "skillgate", "-f", key.toString(), statement.toString());
        byte[] armored = Files.readAllBytes(Path.of(statement + ".sig"));
        byte[] text = statementText.getBytes(StandardCharsets.US_ASCII);
        byte[] file = new byte[text.length + armored.length];
        System.arraycopy(text, 0, file, 0, text.length);
        System.arraycopy(armored, 0, file, text.length, armored.length);
        Files.write(dir.resolve("skill.contract.sig"), file);
    }

    private static void ssh(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(SSH_KEYGEN.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().clear();
        builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        Process p = builder.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        assertThat(p.exitValue()).as("ssh-keygen: %s", output).isZero();
    }

    /** The signature file with the blob byte {@code fromEnd} bytes before its end flipped. */
    private static byte[] flipBlobByte(byte[] file, int fromEnd) {
        String text = new String(file, StandardCharsets.US_ASCII);
        String begin = "-----BEGIN SSH SIGNATURE-----\n";
        String end = "-----END SSH SIGNATURE-----\n";
        int b = text.indexOf(begin) + begin.length();
        int e = text.indexOf(end);
        byte[] blob = java.util.Base64.getDecoder().decode(text.substring(b, e).replace("\n", ""));
        blob[blob.length - fromEnd] ^= 0x01;
        String base64 = java.util.Base64.getEncoder().encodeToString(blob);
        StringBuilder armored = new StringBuilder(text.substring(0, b));
        for (int i = 0; i < base64.length(); i += 70) {
            armored.append(base64, i, Math.min(base64.length(), i + 70)).append('\n');
        }
        armored.append(end);
        return armored.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private String rejectionCode() {
        return jsonTree().get("signature").get("diagnostic").get("code").stringValue();
    }

    @Test
    void anSshKeygenSignatureVerifies() throws IOException {
        Signed s = signedSkill();
        assertThat(run(
                        "verify-signature",
                        s.dir().toString(),
                        "--allowed-signers",
                        s.allowedSigners().toString()))
                .as(stderr())
                .isZero();
        assertThat(stdout()).startsWith("verified: ").contains("principals alice@example.com");
        assertThat(run(
                        "verify-signature",
                        "--json",
                        s.dir().toString(),
                        "--allowed-signers",
                        s.allowedSigners().toString()))
                .isZero();
        JsonNode doc = jsonTree();
        assertThat(doc.get("schema").stringValue()).isEqualTo("skillgate.verify-signature/1");
        assertThat(doc.get("verified").booleanValue()).isTrue();
        assertThat(doc.get("signature").get("keyFingerprint").stringValue()).startsWith("SHA256:");
        assertThat(doc.get("statement").stringValue()).startsWith("skillgate-signature-v1\ncontract sha256:");
        assertThat(run(
                        "inspect",
                        s.dir().toString(),
                        "--allowed-signers",
                        s.allowedSigners().toString()))
                .isZero();
        assertThat(stdout()).contains("signature: verified");
        assertThat(run("inspect", s.dir().toString())).isZero();
        assertThat(stdout()).contains("signature: not checked (no publisher keys are configured)");
    }

    @Test
    void aFlippedByteInContentContractOrSignatureFailsWithItsCode() throws IOException {
        Signed s = signedSkill();
        String[] verify = {
            "verify-signature",
            "--json",
            s.dir().toString(),
            "--allowed-signers",
            s.allowedSigners().toString()
        };

        Path skillMd = s.dir().resolve("run.mjs");
        byte[] content = Files.readAllBytes(skillMd);
        content[3] ^= 0x01;
        Files.write(skillMd, content);
        assertThat(run(verify)).isEqualTo(1);
        assertThat(rejectionCode()).isEqualTo("SIGNATURE_REVISION_MISMATCH");
        assertThat(jsonTree().get("signature").get("diagnostic").get("message").stringValue())
                .contains("revision");
        content[3] ^= 0x01;
        Files.write(skillMd, content);
        assertThat(run(verify)).isZero();

        Path contractFile = s.dir().resolve("skill.contract.json");
        String original = Files.readString(contractFile);
        Files.writeString(contractFile, original.replace("\"1.0.0\"", "\"1.0.1\""));
        assertThat(run(verify)).isEqualTo(1);
        assertThat(rejectionCode()).isEqualTo("SIGNATURE_REVISION_MISMATCH");
        assertThat(jsonTree().get("signature").get("diagnostic").get("message").stringValue())
                .contains("contract digest and revision");
        Files.writeString(contractFile, original);
        assertThat(run(verify)).isZero();

        Path sig = s.dir().resolve("skill.contract.sig");
        byte[] signature = Files.readAllBytes(sig);
        // One flipped byte inside the Ed25519 signature of the SSHSIG blob, re-armored as ssh-keygen does.
        Files.write(sig, flipBlobByte(signature, 10));
        assertThat(run(verify)).isEqualTo(1);
        assertThat(rejectionCode()).isEqualTo("SIGNATURE_INVALID");
        // One flipped digit of the signed statement's contract digest.
        byte[] statementFlip = signature.clone();
        statementFlip[40] = (byte) (statementFlip[40] == 'a' ? 'b' : 'a');
        Files.write(sig, statementFlip);
        assertThat(run(verify)).isEqualTo(1);
        assertThat(rejectionCode()).isEqualTo("SIGNATURE_INVALID");
        // A byte of the armor structure.
        byte[] armorFlip = signature.clone();
        armorFlip[186] = '#';
        Files.write(sig, armorFlip);
        assertThat(run(verify)).isEqualTo(1);
        assertThat(rejectionCode()).isEqualTo("SIGNATURE_FORMAT");
        Files.write(sig, signature);
        assertThat(run(verify)).isZero();

        Files.delete(sig);
        assertThat(run(verify)).isEqualTo(1);
        assertThat(rejectionCode()).isEqualTo("SIGNATURE_MISSING");
    }

    @Test
    void unknownKeysAndPublishersAreRefused() throws IOException {
        Signed s = signedSkill();
        Path other = root.resolve("keys/other");
        ssh("-q", "-t", "ed25519", "-N", "", "-C", "other@test", "-f", other.toString());
        Path strangers = write(
                root.resolve("strangers"),
                "alice@example.com " + Files.readString(Path.of(other + ".pub")).strip() + "\n");
        assertThat(run("verify-signature", "--json", s.dir().toString(), "--allowed-signers", strangers.toString()))
                .isEqualTo(1);
        assertThat(rejectionCode()).isEqualTo("SIGNATURE_UNKNOWN_KEY");
        Path bob = write(
                root.resolve("bob"),
                "bob@example.com " + Files.readString(Path.of(s.key() + ".pub")).strip() + "\n");
        assertThat(run("verify-signature", "--json", s.dir().toString(), "--allowed-signers", bob.toString()))
                .isEqualTo(1);
        assertThat(rejectionCode()).isEqualTo("SIGNATURE_PUBLISHER_MISMATCH");
    }

    @Test
    void verifySignatureUsageAndUnsignedSkills() throws IOException {
        Signed s = signedSkill();
        assertThat(run("verify-signature", s.dir().toString())).isEqualTo(2);
        assertThat(stderr()).contains("--allowed-signers is required");
        assertThat(run(
                        "verify-signature",
                        s.dir().toString(),
                        "--allowed-signers",
                        root.resolve("nope").toString()))
                .isEqualTo(2);
        Path malformed = write(root.resolve("malformed"), "alice@example.com ssh-ed25519 !!!\n");
        assertThat(run("verify-signature", s.dir().toString(), "--allowed-signers", malformed.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("SIGNATURE_FORMAT");

        Path unsigned = skill("plain");
        write(unsigned.resolve("skill.contract.json"), contract("plain", "local-unsigned"));
        assertThat(run(
                        "verify-signature",
                        unsigned.toString(),
                        "--allowed-signers",
                        s.allowedSigners().toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("unsigned local skill");
        Path noContract = skill("bare");
        assertThat(run(
                        "verify-signature",
                        noContract.toString(),
                        "--allowed-signers",
                        s.allowedSigners().toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("no accepted contract");
    }
}
