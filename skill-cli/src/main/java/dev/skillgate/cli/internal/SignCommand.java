package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.InspectOptions;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SkillInspector;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.SkillName;
import dev.skillgate.protocol.ManifestVerdict;
import dev.skillgate.signature.SignatureSigner;
import dev.skillgate.signature.SignatureStatement;
import dev.skillgate.signature.SignatureVerifier;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * {@code skillgate sign DIR --key FILE [--namespace NS] [--force] [--json]}: signs the captured
 * contract and revision of a skill whose contract origin is {@code signed} with the publisher's
 * unencrypted OpenSSH Ed25519 key and writes {@code DIR/skill.contract.sig} atomically ({@code
 * docs/signatures.md}, decision 0380). Exit 0 signed, 1 not signed (key refused, bundle not
 * signable, signature file present, write failed), 2 usage error (including a key path that names
 * no usable file).
 */
final class SignCommand implements Command {
    /** Key refusals that mean the command line names no usable file (decision 0351). */
    private static final Set<ErrorCode> UNUSABLE_PATH =
            Set.of(ErrorCode.READ_NOT_FOUND, ErrorCode.READ_LINK, ErrorCode.READ_NOT_REGULAR, ErrorCode.READ_IO);

    @Override
    public String name() {
        return "sign";
    }

    @Override
    public String summary() {
        return "sign a skill's contract and revision with an SSH key (writes skill.contract.sig)";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate sign DIR --key FILE [--namespace NS] [--force] [--json]

                Captures the skill in DIR like verify-signature does and, if its contract's origin is
                signed, signs the statement naming the contract's SHA-256 and the revision with the
                OpenSSH Ed25519 private key FILE (unencrypted, not readable by group or others), as
                ssh-keygen -Y sign -n skillgate would, and writes DIR/skill.contract.sig. A signature
                vouches for these bytes; it is not a safety verdict. Exit 0 signed, 1 not signed,
                2 usage error.

                  --key FILE      the publisher's private key (ssh-keygen -t ed25519 -N '')
                  --namespace NS  the catalog namespace identity.id must use
                  --force         replace an existing skill.contract.sig (a regular file only)
                  --json          print the documented JSON report (docs/cli.md)
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Args parsed = Args.parse(args, Set.of("--json", "--force"), Set.of("--key", "--namespace"));
        if (parsed.positionals().size() != 1) {
            throw new UsageException("needs exactly one skill directory");
        }
        String keyArgument = parsed.value("--key").orElseThrow(() -> new UsageException("--key is required"));
        if (keyArgument.isEmpty()) {
            throw new UsageException("--key needs a file name");
        }
        Path dir = ValidateCommand.skillDirectory(parsed.positionals().get(0));
        InspectOptions.Builder options = InspectOptions.builder();
        if (parsed.value("--namespace").isPresent()) {
            String ns = parsed.value("--namespace").get();
            if (!SkillName.isValid(ns)) {
                throw new UsageException("--namespace must be a skill-style name, not '" + Args.printable(ns) + "'");
            }
            options.namespace(ns);
        }
        Path keyPath;
        try {
            keyPath = Path.of(keyArgument);
        } catch (InvalidPathException e) {
            throw new UsageException("--key is not a usable path: " + Args.path(keyArgument));
        }
        // The directory as given, never resolved: a skill root that is a link fails the capture
        // (exit 1), exactly as for verify-signature, before anything is written.
        Path skillDir;
        BasicFileAttributes dirIdentity;
        try {
            skillDir = dir.toAbsolutePath().normalize();
            dirIdentity = Files.readAttributes(skillDir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | InvalidPathException e) {
            throw new UsageException("the skill directory cannot be examined: " + Args.path(dir.toString()));
        }
        SignatureSigner.Opening opening;
        try {
            opening = SignatureSigner.open(keyPath);
        } catch (IOException e) {
            throw new UsageException(
                    "--key file cannot be read (" + e.getClass().getSimpleName() + ")");
        }
        Report report = new Report(dir, parsed.has("--json"));
        if (opening instanceof SignatureSigner.Refused refused) {
            if (UNUSABLE_PATH.contains(refused.code())) {
                throw new UsageException("--key file cannot be used: "
                        + refused.code().name() + ": " + refused.diagnostic().message());
            }
            return report.refused(List.of(keyProblem(refused.diagnostic())), out, err);
        }
        try (SignatureSigner signer = ((SignatureSigner.Ready) opening).signer()) {
            report.key(signer);
            return sign(skillDir, dirIdentity, signer, options.build(), parsed.has("--force"), report, out, err);
        }
    }

    private static ExitCode sign(
            Path skillDir,
            BasicFileAttributes dirIdentity,
            SignatureSigner signer,
            InspectOptions options,
            boolean force,
            Report report,
            PrintStream out,
            PrintStream err) {
        Inspection inspection = SkillInspector.inspect(skillDir, options);
        List<Diagnostic> problems = whyNotSignable(inspection);
        if (!problems.isEmpty()) {
            return report.refused(problems, out, err);
        }
        ContractVerdict.Accepted contract =
                (ContractVerdict.Accepted) inspection.contract().orElseThrow();
        SignatureStatement statement =
                new SignatureStatement(contract.sha256(), inspection.revision().orElseThrow());
        report.statement(statement, contract.contract().origin().publisher().orElseThrow());
        Path target = skillDir.resolve(SignatureVerifier.SIGNATURE_FILE_NAME);
        Optional<Diagnostic> occupied;
        boolean replacing;
        try {
            Optional<BasicFileAttributes> existing = attributes(target);
            replacing = existing.isPresent();
            occupied = occupied(existing, force);
        } catch (IOException e) {
            return report.ioFault("cannot examine " + SignatureVerifier.SIGNATURE_FILE_NAME, e, err);
        }
        if (occupied.isPresent()) {
            return report.refused(List.of(occupied.get()), out, err);
        }
        byte[] file = signer.signatureFile(statement);
        try {
            Optional<Diagnostic> lost = write(skillDir, dirIdentity, target, file, force);
            if (lost.isPresent()) {
                return report.refused(List.of(lost.get()), out, err);
            }
        } catch (IOException e) {
            return report.ioFault("cannot write " + SignatureVerifier.SIGNATURE_FILE_NAME, e, err);
        }
        return report.signed(replacing, out);
    }

    /** Why this inspection must not be signed: it is what verify-signature or run would refuse. */
    static List<Diagnostic> whyNotSignable(Inspection inspection) {
        if (inspection.captureProblem().isPresent()) {
            return List.of(inspection.captureProblem().get());
        }
        List<Diagnostic> problems = new ArrayList<>();
        if (!inspection.format().loadable()) {
            inspection.format().diagnostics().stream()
                    .filter(Diagnostic::isError)
                    .forEach(problems::add);
        }
        if (inspection.manifest().orElseThrow() instanceof ManifestVerdict.Rejected rejected) {
            problems.addAll(rejected.diagnostics());
        }
        ContractVerdict contract = inspection.contract().orElseThrow();
        if (contract instanceof ContractVerdict.Rejected rejected) {
            problems.addAll(rejected.diagnostics());
        } else if (contract instanceof ContractVerdict.Absent) {
            problems.add(Diagnostic.error(
                    ErrorCode.SIGNATURE_ORIGIN_UNSIGNED,
                    "skill.contract.json",
                    "the bundle has no skill.contract.json; only a contract whose origin is signed is signed"));
        } else {
            SkillContract accepted = ((ContractVerdict.Accepted) contract).contract();
            if (accepted.origin().type() != OriginType.SIGNED) {
                problems.add(Diagnostic.error(
                        ErrorCode.SIGNATURE_ORIGIN_UNSIGNED,
                        "/origin/type",
                        "the contract's origin is local-unsigned; set origin.type to signed and name the"
                                + " publisher to sign it"));
            }
        }
        return problems.size() > 20 ? List.copyOf(problems.subList(0, 20)) : problems;
    }

    private static Optional<BasicFileAttributes> attributes(Path path) throws IOException {
        try {
            return Optional.of(Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Why the signature file's name is taken: anything but a regular file, or one without force. */
    private static Optional<Diagnostic> occupied(Optional<BasicFileAttributes> existing, boolean force) {
        if (existing.isEmpty()) {
            return Optional.empty();
        }
        String name = SignatureVerifier.SIGNATURE_FILE_NAME;
        BasicFileAttributes a = existing.get();
        if (a.isSymbolicLink()) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.READ_LINK, name, "the signature file is a symbolic link; it is never written through"));
        }
        if (!a.isRegularFile()) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.READ_NOT_REGULAR, name, "the signature file's name is taken by something not a file"));
        }
        if (!force) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.SIGNATURE_FILE_EXISTS,
                    name,
                    "the bundle already has a signature file; pass --force to replace it"));
        }
        return Optional.empty();
    }

    /**
     * Writes {@code file} as {@code target}: a new temporary file in the same directory (created,
     * never opened through a link), fsync, a rename over the name, fsync of the directory. The name
     * and the directory's identity are checked again just before the rename; a racing writer in the
     * same instant can still win (the residual window of {@code docs/signatures.md}).
     *
     * @return a diagnostic when the name was taken or the directory swapped meanwhile
     */
    private static Optional<Diagnostic> write(
            Path dir, BasicFileAttributes dirIdentity, Path target, byte[] file, boolean force) throws IOException {
        Path temp = dir.resolve("." + SignatureVerifier.SIGNATURE_FILE_NAME + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(
                    temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer buffer = ByteBuffer.wrap(file);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            BasicFileAttributes now = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!now.isDirectory() || !Objects.equals(now.fileKey(), dirIdentity.fileKey())) {
                return Optional.of(Diagnostic.error(
                        ErrorCode.SOURCE_CHANGED, "", "the skill directory was replaced while it was signed"));
            }
            Optional<Diagnostic> occupied = occupied(attributes(target), force);
            if (occupied.isPresent()) {
                return occupied;
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException e) {
                return occupied(attributes(target), false);
            }
            try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
                directory.force(true);
            }
            return Optional.empty();
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static Diagnostic keyProblem(Diagnostic d) {
        return Diagnostic.error(d.code(), "--key", d.message());
    }

    /** Collects what was signed and prints it as text or as the {@code skillgate.sign/1} document. */
    private static final class Report {
        private final Path dir;
        private final boolean json;
        private String fingerprint;
        private String publicKey;
        private SignatureStatement statement;
        private String publisher;

        Report(Path dir, boolean json) {
            this.dir = dir;
            this.json = json;
        }

        void key(SignatureSigner signer) {
            fingerprint = signer.keyFingerprint();
            publicKey = signer.publicKey();
        }

        void statement(SignatureStatement signed, String contractPublisher) {
            statement = signed;
            publisher = contractPublisher;
        }

        ExitCode signed(boolean replaced, PrintStream out) {
            if (json) {
                JsonOut.print(out, document(true, replaced, List.of()));
            } else {
                out.println("signed: " + Args.safe(dir.toString()));
                out.println("  wrote " + SignatureVerifier.SIGNATURE_FILE_NAME
                        + (replaced ? " (replaced the previous one)" : ""));
                out.println("  revision " + statement.revision());
                out.println("  contract " + statement.contractDigest());
                out.println("  key " + fingerprint + " (ssh-ed25519), namespace " + SignatureVerifier.NAMESPACE + ", "
                        + SignatureSigner.HASH_ALGORITHM);
                out.println("  allowed_signers line: " + Args.safe(publisher) + " " + publicKey);
                out.println("  a signature vouches for these bytes; it is not a safety verdict");
            }
            return ExitCode.OK;
        }

        ExitCode refused(List<Diagnostic> problems, PrintStream out, PrintStream err) {
            if (json) {
                JsonOut.print(out, document(false, false, problems));
            } else {
                err.println("not signed: " + Args.safe(dir.toString()));
                for (Diagnostic d : problems) {
                    err.println("  " + InspectCommand.line(d));
                }
            }
            return ExitCode.INVALID;
        }

        ExitCode ioFault(String what, IOException e, PrintStream err) {
            err.println("skillgate sign: " + what + " (" + e.getClass().getSimpleName()
                    + "); no signature file was written");
            return ExitCode.INVALID;
        }

        private Map<String, Object> document(boolean signed, boolean replaced, List<Diagnostic> problems) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", "skillgate.sign/1");
            doc.put("path", dir.toString());
            doc.put("signed", signed);
            doc.put("replaced", replaced);
            doc.put("signatureFile", signed ? SignatureVerifier.SIGNATURE_FILE_NAME : null);
            doc.put("revision", statement == null ? null : statement.revision().toString());
            doc.put(
                    "contractSha256",
                    statement == null ? null : statement.contractDigest().toString());
            doc.put("statement", statement == null ? null : statement.toText());
            doc.put("publisher", publisher);
            doc.put("keyFingerprint", fingerprint);
            doc.put("publicKey", publicKey);
            doc.put("sshNamespace", SignatureVerifier.NAMESPACE);
            doc.put("hashAlgorithm", SignatureSigner.HASH_ALGORITHM);
            doc.put("problems", JsonOut.diagnostics(problems));
            return doc;
        }
    }
}
