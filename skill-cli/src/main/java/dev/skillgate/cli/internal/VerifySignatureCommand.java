package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.InspectOptions;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SignatureVerdict;
import dev.skillgate.inspect.SkillInspector;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.signature.SignatureStatement;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code skillgate verify-signature DIR --allowed-signers FILE [--json]}: verifies the skill's
 * publisher signature ({@code skill.contract.sig}) against the host's allowed signers, for the
 * captured contract and revision (SPEC §5, {@code docs/signatures.md}). Inert. Exit 0 verified, 1
 * not verified (rejected, unsigned, no accepted contract, capture failed, malformed allowed
 * signers), 2 usage error.
 */
final class VerifySignatureCommand implements Command {
    @Override
    public String name() {
        return "verify-signature";
    }

    @Override
    public String summary() {
        return "verify a skill's publisher signature against allowed signers (inert)";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate verify-signature DIR --allowed-signers FILE [--namespace NS] [--json]

                Captures the skill in DIR, computes its revision and checks skill.contract.sig: an
                SSH signature (ssh-keygen -Y sign -n skillgate) by a key FILE allows, over exactly this
                contract and revision, by a key listed for the contract's publisher. A verified
                signature is not a safety verdict. Exit 0 verified, 1 not verified, 2 usage error.

                  --allowed-signers FILE  OpenSSH allowed_signers (Ed25519 keys only)
                  --namespace NS          the catalog namespace identity.id must use
                  --json                  print the documented JSON report (docs/cli.md)
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Args parsed = Args.parse(args, Set.of("--json"), Set.of("--allowed-signers", "--namespace"));
        if (parsed.positionals().size() != 1) {
            throw new UsageException("needs exactly one skill directory");
        }
        String signers = parsed.value("--allowed-signers")
                .orElseThrow(() -> new UsageException("--allowed-signers is required"));
        Path dir = ValidateCommand.skillDirectory(parsed.positionals().get(0));
        InspectOptions.Builder options = InspectOptions.builder();
        if (parsed.value("--namespace").isPresent()) {
            String ns = parsed.value("--namespace").get();
            if (!dev.skillgate.model.SkillName.isValid(ns)) {
                throw new UsageException("--namespace must be a skill-style name, not '" + Args.printable(ns) + "'");
            }
            options.namespace(ns);
        }
        SshSignatures.Loaded loaded = SshSignatures.load(signers);
        if (loaded instanceof SshSignatures.Unusable unusable) {
            return InspectCommand.unusableSigners(unusable, err);
        }
        options.signatureChecker(((SshSignatures.Usable) loaded).checker());
        Inspection inspection = SkillInspector.inspect(dir, options.build());
        SignatureVerdict verdict = inspection.signature();
        Optional<Diagnostic> blocker = blocker(inspection);
        boolean verified = verdict instanceof SignatureVerdict.Verified;
        if (parsed.has("--json")) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", "skillgate.verify-signature/1");
            doc.put("path", dir.toString());
            doc.put("verified", verified);
            doc.put("revision", inspection.revision().map(Object::toString).orElse(null));
            Optional<ContractVerdict.Accepted> contract = accepted(inspection);
            doc.put("contractSha256", contract.map(c -> c.sha256().toString()).orElse(null));
            doc.put(
                    "statement",
                    contract.map(c -> new SignatureStatement(
                                            c.sha256(), inspection.revision().orElseThrow())
                                    .toText())
                            .orElse(null));
            doc.put("signature", InspectCommand.signature(verdict));
            doc.put("problems", JsonOut.diagnostics(blocker.map(List::of).orElse(List.of())));
            JsonOut.print(out, doc);
        } else if (verdict instanceof SignatureVerdict.Verified v) {
            out.println("verified: " + Args.safe(dir.toString()));
            out.println("  key " + v.keyFingerprint() + ", principals " + Args.safe(String.join(",", v.principals())));
            out.println("  revision " + inspection.revision().orElseThrow());
            out.println("  a verified signature is not a safety verdict; running still needs consent");
        } else {
            err.println("not verified: " + Args.safe(dir.toString()));
            if (verdict instanceof SignatureVerdict.Rejected r) {
                err.println("  " + InspectCommand.line(r.diagnostic()));
            } else {
                err.println("  " + ((SignatureVerdict.NotChecked) verdict).reason());
            }
            blocker.ifPresent(d -> err.println("  " + InspectCommand.line(d)));
        }
        return verified ? ExitCode.OK : ExitCode.INVALID;
    }

    private static Optional<ContractVerdict.Accepted> accepted(Inspection i) {
        return i.contract()
                .filter(ContractVerdict.Accepted.class::isInstance)
                .map(ContractVerdict.Accepted.class::cast);
    }

    /** Why no signature could be checked: the capture or the contract. */
    private static Optional<Diagnostic> blocker(Inspection i) {
        if (i.captureProblem().isPresent()) {
            return i.captureProblem();
        }
        return i.contract().flatMap(c -> c.problems().stream().findFirst());
    }
}
