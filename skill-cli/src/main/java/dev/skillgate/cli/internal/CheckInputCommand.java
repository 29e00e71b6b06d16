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
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
final class CheckInputCommand implements Command {
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

                  --input JSON   the invocation text
                  --input @FILE  read the invocation from FILE (a regular file, not a link, <= 64 KiB)
                  --json         print the documented JSON report (docs/cli.md)
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Args parsed = Args.parse(args, Set.of("--json"), Set.of("--input"));
        if (parsed.positionals().size() != 1) {
            throw new UsageException("needs exactly one skill directory");
        }
        String input = parsed.value("--input").orElseThrow(() -> new UsageException("--input is required"));
        Path dir = ValidateCommand.skillDirectory(parsed.positionals().get(0));
        Input bytes = input.startsWith("@") ? readFile(input.substring(1)) : new Input(utf8(input), Optional.empty());
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

    private static byte[] utf8(String text) {
        // A lone surrogate in an argument cannot be encoded: refuse it rather than replace it.
        var encoder = StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        try {
            var buffer = encoder.encode(java.nio.CharBuffer.wrap(text));
            byte[] out = new byte[buffer.remaining()];
            buffer.get(out);
            return out;
        } catch (java.nio.charset.CharacterCodingException e) {
            return new byte[] {(byte) 0xFF}; // invalid UTF-8: the decoder reports JSON_INVALID_UTF8
        }
    }

    private static Input readFile(String name) throws UsageException {
        Optional<byte[]> bytes = CommandLineFiles.read("--input", name, Limits.INVOCATION_BYTES);
        if (bytes.isPresent()) {
            return new Input(bytes.get(), Optional.empty());
        }
        return new Input(
                new byte[0],
                Optional.of(Diagnostic.error(
                        ErrorCode.JSON_TOO_LARGE,
                        "",
                        "the invocation file exceeds " + Limits.INVOCATION_BYTES + " bytes; it was not read")));
    }

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
