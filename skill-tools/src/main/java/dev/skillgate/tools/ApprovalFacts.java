package dev.skillgate.tools;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.internal.ApprovalText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * An approval request as an approval surface other than Skillgate's console shows it — an MCP
 * elicitation, an ADK tool confirmation: the same text the console prints (every fact of SPEC §8:
 * revision, every file with size and SHA-256, the input and its digest, the argv, the workspace,
 * the runtime, the limits, what is and is not enforced, and the full-trust warning; untrusted
 * characters escaped), and the same facts as plain values for a structured payload.
 *
 * <p>It renders; it decides nothing. Whoever shows it must show all of it.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class ApprovalFacts {
    /** Longest entrypoint source appended to a rendering, in characters; longer sources are named only. */
    public static final int MAX_INLINE_SOURCE = 16 * 1024;

    private ApprovalFacts() {}

    /** The console's rendering of {@code request}, then the entrypoint source when it is short. */
    public static String text(ApprovalRequest request) {
        StringBuilder out = new StringBuilder(ApprovalText.render(request));
        Optional<String> source = request.artifact().readEntrypointSource();
        if (source.isPresent() && source.get().length() <= MAX_INLINE_SOURCE) {
            out.append("entrypoint source:\n").append(ApprovalText.block(source.get()));
        } else {
            out.append("entrypoint source: not shown here (")
                    .append(source.map(s -> s.length() + " characters").orElse("unavailable"))
                    .append("); its digest is listed above\n");
        }
        return out.toString();
    }

    /** The console's rendering of an activation request, then the captured SKILL.md text. */
    public static String text(ActivationApprovalRequest request) {
        StringBuilder out = new StringBuilder(ApprovalText.render(request));
        out.append("instructions (SKILL.md):\n")
                .append(request.readInstructions().map(ApprovalText::block).orElse("  (unavailable)\n"));
        return out.toString();
    }

    /** The facts of {@code request} as plain values (strings, numbers, lists, maps). */
    public static Map<String, Object> values(ApprovalRequest request) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", "execution");
        m.put("warning", ApprovalRequest.FULL_TRUST_WARNING);
        m.put("proposal", request.proposal().toString());
        m.put("skill", request.skill().value());
        m.put("revision", request.artifact().revision().toString());
        m.put("run", request.run().value());
        m.put("agent", request.agent().value());
        m.put("workspace", request.workspace().realPath().toString());
        m.put(
                "runtime",
                request.runtime().executable() + " " + request.runtime().version());
        m.put("argv", request.argv());
        m.put("timeoutMs", request.timeout().millis());
        m.put("maxOutputBytes", request.outputLimit().bytes());
        m.put("isolation", request.enforcement().isolation());
        m.put("enforced", request.enforcement().applied());
        m.put("notEnforced", request.enforcement().notEnforced());
        m.put("files", files(request.artifact().files()));
        m.put("entrypoint", request.artifact().entrypoint().value());
        m.put("inputDigest", request.invocation().digest().toString());
        m.put("input", request.invocation().prettyText());
        m.put("expiresAt", request.expiresAt().toString());
        return m;
    }

    /** The facts of an activation request as plain values. */
    public static Map<String, Object> values(ActivationApprovalRequest request) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", "activation");
        m.put("warning", ActivationApprovalRequest.PROMPT_WARNING);
        m.put("skill", request.skill().value());
        m.put("revision", request.revision().toString());
        m.put("agent", request.agent().value());
        m.put("contract", request.contractDigest().map(Object::toString).orElse("none"));
        m.put("files", files(request.files()));
        return m;
    }

    private static List<Map<String, Object>> files(List<ArtifactDescription.FileEntry> files) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ArtifactDescription.FileEntry f : files) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("path", f.path().value());
            e.put("size", f.size());
            e.put("sha256", f.digest().toString());
            out.add(e);
        }
        return out;
    }
}
