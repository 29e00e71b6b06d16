package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code skillgate sign} through {@link Main#run} on real directories with keys made by the real
 * {@code ssh-keygen}: what it writes passes {@code skillgate verify-signature} and {@code ssh-keygen
 * -Y verify}; every unusable key, unsignable bundle and occupied signature name is refused with its
 * code, and then nothing is written. Skipped (visibly) where {@code ssh-keygen} is missing.
 */
class SignCommandTest extends CommandTestSupport {
    private static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");
    private static final String PUBLISHER = "alice@example.com";
    private static final String SIG = "skill.contract.sig";

    @TempDir
    Path root;

    @BeforeEach
    void needsSshKeygen() {
        assumeTrue(Files.isExecutable(SSH_KEYGEN), "ssh-keygen is not installed at " + SSH_KEYGEN + "; skipped");
    }

    private Path skill(String name, String origin) throws IOException {
        Path dir = root.resolve(name);
        write(dir.resolve("SKILL.md"), "---\nname: " + name + "\ndescription: Greets.\n---\n# Greet\n");
        write(dir.resolve("run.mjs"), "console.log(JSON.stringify({}));\n");
        write(
                dir.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"run.mjs\",\"files\":[\"run.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{}},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}}}\n");
        if (origin != null) {
            String publisher = origin.equals("signed") ? ",\"publisher\":\"" + PUBLISHER + "\"" : "";
            write(
                    dir.resolve("skill.contract.json"),
                    "{\"schemaVersion\":1,\"recordType\":\"skill-contract\","
                            + "\"identity\":{\"id\":\"global/" + name + "\",\"version\":\"1.0.0\"},"
                            + "\"origin\":{\"type\":\"" + origin + "\"" + publisher + "},"
                            + "\"agents\":[{\"kind\":\"codex\",\"minVersion\":\"0.130.0\",\"maxVersion\":\"0.200.0\"}],"
                            + "\"inputTypes\":[\"text\"],\"tools\":[],\"credentials\":[],"
                            + "\"permissionMode\":\"read-only\",\"networkDestinations\":[],\"sideEffectClass\":\"none\"}\n");
        }
        return dir;
    }

    private Path key(String name, String... extra) throws IOException {
        Path key = root.resolve("keys").resolve(name);
        Files.createDirectories(key.getParent());
        List<String> args = new ArrayList<>(List.of("-q", "-N", "", "-C", name + "@test", "-f", key.toString()));
        args.addAll(List.of(extra));
        if (!args.contains("-t")) {
            args.addAll(List.of("-t", "ed25519"));
        }
        ssh(args);
        return key;
    }

    private Path allowedSigners(Path... keys) throws IOException {
        StringBuilder text = new StringBuilder();
        for (Path key : keys) {
            text.append(PUBLISHER)
                    .append(' ')
                    .append(Files.readString(Path.of(key + ".pub")).strip())
                    .append('\n');
        }
        return write(root.resolve("allowed_signers_" + keys.length + "_" + keys[0].getFileName()), text.toString());
    }

    private static String ssh(List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(SSH_KEYGEN.toString());
        command.addAll(args);
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
        return output;
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private String revision(Path dir) {
        assertThat(run("inspect", "--json", dir.toString())).isIn(0, 1);
        return jsonTree().get("revision").stringValue();
    }

    private String verifyCode(Path dir, Path allowed) {
        assertThat(run("verify-signature", "--json", dir.toString(), "--allowed-signers", allowed.toString()))
                .isEqualTo(1);
        return jsonTree().get("signature").get("diagnostic").get("code").stringValue();
    }

    @Test
    void aSignedBundlePassesVerifySignatureAndSshKeygenVerify() throws IOException {
        Path dir = skill("greet", "signed");
        Path key = key("publisher");
        String before = revision(dir);

        assertThat(run("sign", dir.toString(), "--key", key.toString()))
                .as(stderr())
                .isZero();
        String fingerprint =
                ssh(List.of("-l", "-E", "sha256", "-f", key + ".pub")).split(" ")[1];
        assertThat(stdout())
                .startsWith("signed: ")
                .contains("wrote " + SIG)
                .contains("revision " + before)
                .contains("key " + fingerprint)
                .contains("allowed_signers line: " + PUBLISHER + " ssh-ed25519 ")
                .contains("not a safety verdict");
        assertThat(revision(dir))
                .as("the signature file is not part of the revision")
                .isEqualTo(before);
        assertThat(listing(dir)).containsExactly("SKILL.md", "execution.json", "run.mjs", "skill.contract.json", SIG);

        Path allowed = allowedSigners(key);
        assertThat(run("verify-signature", dir.toString(), "--allowed-signers", allowed.toString()))
                .as(stderr())
                .isZero();
        assertThat(stdout()).contains("key " + fingerprint);

        byte[] file = Files.readAllBytes(dir.resolve(SIG));
        Path statement = Files.write(root.resolve("statement"), Arrays.copyOf(file, 185));
        Path armored = Files.write(root.resolve("statement.sig"), Arrays.copyOfRange(file, 185, file.length));
        List<String> verify = List.of(
                "-Y", "verify", "-f", allowed.toString(), "-I", PUBLISHER, "-n", "skillgate", "-s", armored.toString());
        List<String> command = new ArrayList<>(List.of(SSH_KEYGEN.toString()));
        command.addAll(verify);
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectInput(statement.toFile())
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("Good \"skillgate\" signature for " + PUBLISHER);
    }

    @Test
    void theJsonReportNamesWhatWasSigned() throws IOException {
        Path dir = skill("greet", "signed");
        Path key = key("publisher");
        assertThat(run("inspect", "--json", dir.toString())).isIn(0, 1);
        String statement = jsonTree().get("contract").get("statement").stringValue();

        assertThat(run("sign", "--json", dir.toString(), "--key=" + key))
                .as(stderr())
                .isZero();
        JsonNode doc = jsonTree();
        assertThat(doc.get("schema").stringValue()).isEqualTo("skillgate.sign/1");
        assertThat(doc.get("signed").booleanValue()).isTrue();
        assertThat(doc.get("replaced").booleanValue()).isFalse();
        assertThat(doc.get("signatureFile").stringValue()).isEqualTo(SIG);
        assertThat(doc.get("statement").stringValue()).isEqualTo(statement);
        assertThat(statement)
                .contains("contract " + doc.get("contractSha256").stringValue())
                .contains("revision " + doc.get("revision").stringValue());
        assertThat(doc.get("publisher").stringValue()).isEqualTo(PUBLISHER);
        assertThat(doc.get("keyFingerprint").stringValue()).startsWith("SHA256:");
        assertThat(Files.readString(Path.of(key + ".pub")))
                .startsWith(doc.get("publicKey").stringValue() + " ");
        assertThat(doc.get("sshNamespace").stringValue()).isEqualTo("skillgate");
        assertThat(doc.get("hashAlgorithm").stringValue()).isEqualTo("sha512");
        assertThat(doc.get("problems").isEmpty()).isTrue();
        assertThat(new String(Files.readAllBytes(dir.resolve(SIG)), StandardCharsets.US_ASCII))
                .startsWith(statement);
    }

    @Test
    void anExistingSignatureIsKeptUnlessForced() throws IOException {
        Path dir = skill("greet", "signed");
        Path first = key("first");
        Path second = key("second");
        assertThat(run("sign", dir.toString(), "--key", first.toString())).isZero();
        byte[] original = Files.readAllBytes(dir.resolve(SIG));

        assertThat(run("sign", "--json", dir.toString(), "--key", second.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("signed").booleanValue()).isFalse();
        assertThat(jsonTree().get("problems").get(0).get("code").stringValue()).isEqualTo("SIGNATURE_FILE_EXISTS");
        assertThat(Files.readAllBytes(dir.resolve(SIG))).isEqualTo(original);
        assertThat(run("sign", dir.toString(), "--key", second.toString())).isEqualTo(1);
        assertThat(stderr()).contains("SIGNATURE_FILE_EXISTS").contains("--force");
        assertThat(Files.readAllBytes(dir.resolve(SIG))).isEqualTo(original);

        assertThat(run("sign", "--json", "--force", dir.toString(), "--key", second.toString()))
                .isZero();
        assertThat(jsonTree().get("replaced").booleanValue()).isTrue();
        assertThat(Files.readAllBytes(dir.resolve(SIG))).isNotEqualTo(original);
        assertThat(run(
                        "verify-signature",
                        dir.toString(),
                        "--allowed-signers",
                        allowedSigners(second).toString()))
                .isZero();
        assertThat(verifyCode(dir, allowedSigners(first))).isEqualTo("SIGNATURE_UNKNOWN_KEY");
        assertThat(listing(dir)).noneMatch(name -> name.endsWith(".tmp"));
    }

    @Test
    void aBundleEditedAfterSigningFailsVerificationWithTheMismatchCode() throws IOException {
        Path dir = skill("greet", "signed");
        Path key = key("publisher");
        Path allowed = allowedSigners(key);
        assertThat(run("sign", dir.toString(), "--key", key.toString())).isZero();
        write(dir.resolve("run.mjs"), "console.log(JSON.stringify({changed: true}));\n");
        assertThat(verifyCode(dir, allowed)).isEqualTo("SIGNATURE_REVISION_MISMATCH");

        assertThat(run("sign", "--force", dir.toString(), "--key", key.toString()))
                .isZero();
        assertThat(run("verify-signature", dir.toString(), "--allowed-signers", allowed.toString()))
                .isZero();
        String contract = Files.readString(dir.resolve("skill.contract.json"));
        write(dir.resolve("skill.contract.json"), contract.replace("\"1.0.0\"", "\"1.0.1\""));
        assertThat(verifyCode(dir, allowed)).isEqualTo("SIGNATURE_REVISION_MISMATCH");
    }

    @Test
    void unusableKeysAreRefusedWithTheirCodesAndNothingIsWritten() throws IOException {
        Path dir = skill("greet", "signed");
        List<String> files = listing(dir);

        Path encrypted = root.resolve("keys").resolve("encrypted");
        Files.createDirectories(encrypted.getParent());
        ssh(List.of("-q", "-t", "ed25519", "-N", "secret", "-C", "x", "-f", encrypted.toString()));
        assertKeyRefused(dir, encrypted, "SIGNATURE_KEY_ENCRYPTED");
        assertKeyRefused(dir, key("rsa", "-t", "rsa", "-b", "2048"), "SIGNATURE_ALGORITHM");
        assertKeyRefused(dir, key("ecdsa", "-t", "ecdsa"), "SIGNATURE_ALGORITHM");

        Path good = key("publisher");
        byte[] bytes = Files.readAllBytes(good);
        Path truncated = Files.write(root.resolve("keys/truncated"), Arrays.copyOf(bytes, bytes.length / 2));
        Files.setPosixFilePermissions(truncated, PosixFilePermissions.fromString("rw-------"));
        assertKeyRefused(dir, truncated, "SIGNATURE_KEY_FORMAT");
        byte[] flipped = bytes.clone();
        flipped[150] = (byte) (flipped[150] == 'A' ? 'B' : 'A');
        Path garbled = Files.write(root.resolve("keys/garbled"), flipped);
        Files.setPosixFilePermissions(garbled, PosixFilePermissions.fromString("rw-------"));
        assertKeyRefused(dir, garbled, "SIGNATURE_KEY_FORMAT");

        Files.setPosixFilePermissions(good, PosixFilePermissions.fromString("rw-r--r--"));
        assertKeyRefused(dir, good, "SIGNATURE_KEY_PERMISSIONS");
        Files.setPosixFilePermissions(good, PosixFilePermissions.fromString("rw-r-----"));
        assertKeyRefused(dir, good, "SIGNATURE_KEY_PERMISSIONS");
        Files.setPosixFilePermissions(good, PosixFilePermissions.fromString("rw-------"));

        // Paths that name no usable file are usage errors (exit 2), as for every command-line file.
        Path link = Files.createSymbolicLink(root.resolve("keys/link"), good);
        assertThat(run("sign", "--json", dir.toString(), "--key", link.toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("READ_LINK");
        assertThat(run(
                        "sign",
                        dir.toString(),
                        "--key",
                        root.resolve("keys/missing").toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("READ_NOT_FOUND");
        Path fifo = root.resolve("keys/fifo");
        Process mkfifo = new ProcessBuilder("/usr/bin/mkfifo", "-m", "600", fifo.toString()).start();
        try {
            assertThat(mkfifo.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        assertThat(mkfifo.exitValue()).isZero();
        assertThat(run("sign", dir.toString(), "--key", fifo.toString())).isEqualTo(2);
        assertThat(stderr()).contains("READ_NOT_REGULAR");

        assertThat(listing(dir)).isEqualTo(files);
        assertThat(run("sign", dir.toString(), "--key", good.toString())).isZero();
    }

    private void assertKeyRefused(Path dir, Path key, String code) {
        assertThat(run("sign", "--json", dir.toString(), "--key", key.toString()))
                .as(stderr())
                .isEqualTo(1);
        JsonNode doc = jsonTree();
        assertThat(doc.get("signed").booleanValue()).isFalse();
        assertThat(doc.get("problems").get(0).get("code").stringValue()).isEqualTo(code);
        assertThat(doc.get("problems").get(0).get("location").stringValue()).isEqualTo("--key");
        assertThat(Files.exists(dir.resolve(SIG), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(run("sign", dir.toString(), "--key", key.toString())).isEqualTo(1);
        assertThat(stderr()).startsWith("not signed: ").contains(code).doesNotContain("Exception");
    }

    @Test
    void onlyAnAcceptedContractWithASignedOriginIsSigned() throws IOException {
        Path key = key("publisher");
        Path unsigned = skill("plain", "local-unsigned");
        assertThat(run("sign", "--json", unsigned.toString(), "--key", key.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("problems").get(0).get("code").stringValue()).isEqualTo("SIGNATURE_ORIGIN_UNSIGNED");
        assertThat(jsonTree().get("problems").get(0).get("location").stringValue())
                .isEqualTo("/origin/type");

        Path bare = skill("bare", null);
        assertThat(run("sign", "--json", bare.toString(), "--key", key.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("problems").get(0).get("code").stringValue()).isEqualTo("SIGNATURE_ORIGIN_UNSIGNED");

        Path badContract = skill("bad", "signed");
        write(badContract.resolve("skill.contract.json"), "{\"schemaVersion\":1,\"recordType\":\"skill-contract\"}");
        assertThat(run("sign", "--json", badContract.toString(), "--key", key.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("problems").get(0).get("code").stringValue()).startsWith("CONTRACT_");

        Path badManifest = skill("manifest", "signed");
        write(badManifest.resolve("execution.json"), "{\"schemaVersion\":1}");
        assertThat(run("sign", "--json", badManifest.toString(), "--key", key.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("problems").get(0).get("code").stringValue()).startsWith("MANIFEST_");

        Path wrongNamespace = skill("ns", "signed");
        assertThat(run("sign", "--json", wrongNamespace.toString(), "--key", key.toString(), "--namespace", "acme"))
                .isEqualTo(1);
        assertThat(jsonTree().get("problems").get(0).get("code").stringValue()).isEqualTo("CONTRACT_IDENTITY_MISMATCH");

        for (Path dir : List.of(unsigned, bare, badContract, badManifest, wrongNamespace)) {
            assertThat(dir.resolve(SIG)).doesNotExist();
        }
        assertThat(run("sign", wrongNamespace.toString(), "--key", key.toString(), "--namespace", "global"))
                .isZero();
    }

    @Test
    void aLinkOrDirectoryAtTheSignatureNameIsNeverWrittenThrough() throws IOException {
        Path dir = skill("greet", "signed");
        Path key = key("publisher");
        Path target = write(root.resolve("elsewhere"), "untouched\n");
        Path link = Files.createSymbolicLink(dir.resolve(SIG), target);
        assertThat(run("sign", "--json", "--force", dir.toString(), "--key", key.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("problems").get(0).get("code").stringValue()).isEqualTo("READ_LINK");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readString(target)).isEqualTo("untouched\n");

        Files.delete(link);
        Files.createDirectory(dir.resolve(SIG));
        assertThat(run("sign", "--json", "--force", dir.toString(), "--key", key.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("problems").get(0).get("code").stringValue()).isEqualTo("READ_NOT_REGULAR");
        assertThat(dir.resolve(SIG)).isDirectory();

        // A skill directory that is itself a link is refused by the capture, as verify-signature refuses it.
        Path real = skill("real", "signed");
        Path linked = Files.createSymbolicLink(root.resolve("linked"), real);
        assertThat(run("sign", "--json", linked.toString(), "--key", key.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("signed").booleanValue()).isFalse();
        assertThat(real.resolve(SIG)).doesNotExist();
    }

    @Test
    void usageErrorsAndHelp() throws IOException {
        Path dir = skill("greet", "signed");
        assertThat(run("sign", dir.toString())).isEqualTo(2);
        assertThat(stderr()).contains("--key is required");
        assertThat(run("sign", "--key", "k")).isEqualTo(2);
        assertThat(run("sign", root.resolve("missing").toString(), "--key", "k"))
                .isEqualTo(2);
        assertThat(run("sign", dir.toString(), "--key", "")).isEqualTo(2);
        assertThat(run("sign", dir.toString(), "--key", "k", "--namespace", "Not Valid"))
                .isEqualTo(2);
        assertThat(run("sign", dir.toString(), "--key", "k", "--unknown")).isEqualTo(2);
        assertThat(run("sign", "--help")).isZero();
        assertThat(stdout()).startsWith("usage: skillgate sign DIR --key FILE");
        assertThat(run("--help")).isZero();
        assertThat(stdout()).contains("  sign ");
        assertThat(dir.resolve(SIG)).doesNotExist();
    }
}
