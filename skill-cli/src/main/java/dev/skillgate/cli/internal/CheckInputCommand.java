package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.Invocation;
import dev.skillgate.protocol.Validation;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code skillgate check-input DIR --input JSON|@FILE [--json]}: validates an invocation against the
 * skill's {@code inputSchema} (SPEC §6, §13). Inert: captures the skill, checks the bytes, runs
 * nothing. {@code @FILE} is read through the bounded reader: at most 64 KiB, a regular file, the
 * file itself never a link (its parent directories are the caller's choice and are resolved). Exit
 * 0 valid, 1 invalid or no usable manifest, 2 usage error (including an unreadable {@code @FILE}).
 */
final class CheckInputCommand implements Command, Cli.NeedsInput {
    @Override
    public String name() {
        return "check-input";
    }

    @Override
    public String summary() {
        return "validate an invocation against a skill's inputSchema (inert)";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate check-input DIR --input JSON|@FILE [--json]

                Checks the invocation (the JSON text, or the content of FILE after @) against the
                inputSchema of the skill in DIR: at most 64 KiB of strict UTF-8, one JSON object, no
                duplicate keys, valid against the schema. Nothing is run. Exit 0 valid, 1 invalid
                (or the skill has no usable manifest), 2 usage error.

                  --input JSON   the invocation: the argument's bytes, judged exactly like a file's
                  --input @FILE  read the invocation from FILE (a regular file, not a link, <= 64 KiB)
                  --input @-     read the invocation from standard input (<= 64 KiB)
                  --json         print the documented JSON report (docs/cli.md)
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        return run(args, System.in, RawArguments.none(), out, err);
    }

    @Override
    public ExitCode run(List<String> args, InputStream in, RawArguments raw, PrintStream out, PrintStream err)
            throws UsageException {
        Args parsed = Args.parse(args, Set.of("--json"), Set.of("--input"));
        if (parsed.positionals().size() != 1) {
            throw new UsageException("needs exactly one skill directory");
        }
        String input = parsed.value("--input").orElseThrow(() -> new UsageException("--input is required"));
        Path dir = ValidateCommand.skillDirectory(parsed.positionals().get(0));
        Optional<byte[]> read = CommandLineFiles.invocation(input, in, raw);
        Input bytes = read.isPresent()
                ? new Input(read.get(), Optional.empty())
                : new Input(
                        new byte[0],
                        Optional.of(Diagnostic.error(
                                ErrorCode.JSON_TOO_LARGE,
                                "",
                                "the invocation exceeds " + Limits.INVOCATION_BYTES + " bytes; it was not read")));
        boolean json = parsed.has("--json");

        CaptureOutcome outcome = SkillArtifact.capture(dir);
        if (outcome instanceof CaptureOutcome.Failed failed) {
            return report(
                    json, out, err, dir, Optional.empty(), Optional.empty(), List.of(), List.of(failed.diagnostic()));
        }
        try (SkillArtifact artifact = outcome.artifact().orElseThrow()) {
            Optional<CompiledSchema> schema = artifact.inputSchema();
            if (schema.isEmpty()) {
                return report(
                        json,
                        out,
                        err,
                        dir,
                        Optional.of(artifact.revision().toString()),
                        Optional.empty(),
                        List.of(),
                        artifact.executionProblems());
            }
            if (bytes.problem().isPresent()) {
                return report(
                        json,
                        out,
                        err,
                        dir,
                        Optional.of(artifact.revision().toString()),
                        Optional.empty(),
                        List.of(bytes.problem().get()),
                        List.of());
            }
            Validation<Invocation> checked = schema.get().checkInvocation(bytes.bytes());
            return report(
                    json,
                    out,
                    err,
                    dir,
                    Optional.of(artifact.revision().toString()),
                    checked.valueIfValid().map(i -> i.digest().toString()),
                    checked.issues(),
                    List.of());
        }
    }

    /** The invocation bytes, or why they are not a valid invocation (too large). */
    private record Input(byte[] bytes, Optional<Diagnostic> problem) {}

    private static ExitCode report(
            boolean json,
            PrintStream out,
            PrintStream err,
            Path dir,
            Optional<String> revision,
            Optional<String> digest,
            List<Diagnostic> issues,
            List<Diagnostic> unavailable) {
        boolean valid = digest.isPresent();
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", "skillgate.check-input/1");
            doc.put("path", dir.toString());
            doc.put("revision", revision.orElse(null));
            doc.put("schemaAvailable", unavailable.isEmpty());
            doc.put("valid", valid);
            doc.put("digest", digest.orElse(null));
            doc.put("issues", JsonOut.diagnostics(issues));
            doc.put("reasons", JsonOut.diagnostics(unavailable));
            JsonOut.print(out, doc);
        } else if (valid) {
            out.println("valid invocation for " + Args.safe(dir.toString()) + " (digest " + digest.get() + ")");
        } else if (!unavailable.isEmpty()) {
            err.println("no input schema to check against for " + Args.safe(dir.toString()) + ":");
            unavailable.forEach(d -> err.println("  " + InspectCommand.line(d)));
        } else {
            err.println("invalid invocation for " + Args.safe(dir.toString()) + ":");
            issues.forEach(d -> err.println("  " + InspectCommand.line(d)));
        }
        return valid ? ExitCode.OK : ExitCode.INVALID;
    }
}
