package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Drives the real OpenSSH {@code ssh-keygen} binary with argument arrays (never a shell) to make
 * keys and SSHSIG signatures for the tests, and to cross-check verdicts with {@code ssh-keygen -Y
 * verify}.
 */
final class SshKeygen {
    static final Path BINARY = Path.of("/usr/bin/ssh-keygen");

    private SshKeygen() {}

    /** The outcome of one run. */
    record Run(int exitCode, String output) {}

    static void requireBinary() {
        assertThat(Files.isExecutable(BINARY))
                .as("these tests need the real OpenSSH ssh-keygen at %s", BINARY)
                .isTrue();
    }

    /** Generates an unencrypted key pair {@code dir/name} and {@code dir/name.pub}. */
    static Path generate(Path dir, String name, String type, String... extra) throws IOException {
        Path key = dir.resolve(name);
        List<String> args = new ArrayList<>(List.of("-q", "-t", type, "-N", "", "-C", name + "@test", "-f"));
        args.add(key.toString());
        args.addAll(List.of(extra));
        expectSuccess(run(args, null));
        return key;
    }

    /** Generates a key pair {@code dir/name} whose private key is encrypted with {@code passphrase}. */
    static Path generateEncrypted(Path dir, String name, String type, String passphrase) throws IOException {
        Path key = dir.resolve(name);
        expectSuccess(
                run(List.of("-q", "-t", type, "-N", passphrase, "-C", name + "@test", "-f", key.toString()), null));
        return key;
    }

    /** Whether the real binary is there; tests that need it skip visibly (an assumption) without it. */
    static boolean present() {
        return Files.isExecutable(BINARY);
    }

    /** The {@code .pub} line of a generated key. */
    static String publicKey(Path key) throws IOException {
        return Files.readString(Path.of(key + ".pub"), StandardCharsets.US_ASCII)
                .strip();
    }

    /** The {@code SHA256:...} fingerprint {@code ssh-keygen -l} prints for a key. */
    static String fingerprint(Path key) throws IOException {
        Run run = run(List.of("-l", "-E", "sha256", "-f", key + ".pub"), null);
        expectSuccess(run);
        return run.output().split(" ")[1];
    }

    /**
     * Signs {@code message} with {@code ssh-keygen -Y sign -n namespace -f key [options]} and returns
     * the armored signature it wrote.
     */
    static byte[] sign(Path key, Path message, String namespace, String... options) throws IOException {
        List<String> args = new ArrayList<>(List.of("-Y", "sign", "-n", namespace, "-f", key.toString()));
        for (String option : options) {
            args.add("-O");
            args.add(option);
        }
        args.add(message.toString());
        Path signature = Path.of(message + ".sig");
        Files.deleteIfExists(signature);
        expectSuccess(run(args, null));
        return Files.readAllBytes(signature);
    }

    /**
     * Writes the statement to {@code dir/statement}, signs it and returns the bundle signature file
     * (statement followed by the armored signature), as a publisher would with {@code cat}.
     */
    static byte[] signStatement(Path dir, Path key, SignatureStatement statement, String namespace, String... options)
            throws IOException {
        Path message = Files.write(Files.createTempFile(dir, "statement", ""), statement.toBytes());
        return statement.signatureFile(sign(key, message, namespace, options));
    }

    /**
     * {@code ssh-keygen -Y verify -f allowedSigners -I principal -n namespace -s signature <
     * message}; returns the run (exit 0 means ssh-keygen accepted).
     */
    static Run verify(
            Path dir, byte[] allowedSigners, String principal, String namespace, byte[] armored, byte[] message)
            throws IOException {
        Path signers = Files.write(Files.createTempFile(dir, "allowed", ""), allowedSigners);
        Path signature = Files.write(Files.createTempFile(dir, "sig", ""), armored);
        Path input = Files.write(Files.createTempFile(dir, "msg", ""), message);
        return run(
                List.of(
                        "-Y",
                        "verify",
                        "-f",
                        signers.toString(),
                        "-I",
                        principal,
                        "-n",
                        namespace,
                        "-s",
                        signature.toString()),
                input);
    }

    private static Run run(List<String> args, Path stdin) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(BINARY.toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().clear();
        if (stdin != null) {
            builder.redirectInput(stdin.toFile());
        } else {
            builder.redirectInput(
                    ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        }
        Process process = builder.start();
        byte[] output = process.getInputStream().readAllBytes();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("ssh-keygen did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted", e);
        }
        return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    private static void expectSuccess(Run run) {
        assertThat(run.exitCode()).as("ssh-keygen output: %s", run.output()).isZero();
    }
}
