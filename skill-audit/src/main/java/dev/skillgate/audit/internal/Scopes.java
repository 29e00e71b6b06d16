package dev.skillgate.audit.internal;

import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Canonical encoding of trust scopes, their ids, and shared field rules. */
public final class Scopes {
    static final String PROMPT_SKILL = "prompt-skill";
    static final String EXECUTION = "execution";
    static final String NO_CONTRACT = "none";
    private static final Set<String> PROMPT_KEYS = Set.of("agent", "contract", "kind", "revision", "skill");
    private static final Set<String> EXECUTION_KEYS =
            Set.of("agent", "kind", "outputCeiling", "receipt", "revision", "timeoutCeiling", "workspace");
    private static final Set<String> RECEIPT_KEYS = Set.of("id", "issuedAt");
    private static final byte[] SCOPE_TAG = "skillgate-audit/v1/scope\0".getBytes(StandardCharsets.US_ASCII);

    private Scopes() {}

    /** {@code sha256:} over the scope tag and the scope's canonical JSON. */
    public static Sha256Digest id(TrustScope scope) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        md.update(SCOPE_TAG);
        md.update(CanonicalJson.write(encode(scope)));
        return Sha256Digest.of(md.digest());
    }

    /** Whether {@code mode} is a policy mode name: 1–64 of {@code [A-Z0-9_]}, starting with a letter. */
    public static boolean isModeName(String mode) {
        return mode.matches("[A-Z][A-Z0-9_]{0,63}");
    }

    /**
     * Throws {@link InvalidValueException} ({@code AUDIT_RECORD_INVALID}) unless {@code text} is
     * 1–{@code max} characters without control characters or unpaired surrogates.
     */
    public static void checkText(String text, int max, String what) {
        if (text.isEmpty() || text.length() > max) {
            throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, what + " must be 1-" + max + " characters");
        }
        try {
            CanonicalJson.checkString(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, what + ": " + e.getMessage());
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_RECORD_INVALID, what + " must not contain control characters");
            }
        }
    }

    static Map<String, Object> encode(TrustScope scope) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (scope instanceof PromptSkillScope p) {
            m.put("agent", p.agent().value());
            m.put("contract", p.contract().map(Sha256Digest::toString).orElse(NO_CONTRACT));
            m.put("kind", PROMPT_SKILL);
            m.put("revision", p.revision().toString());
            m.put("skill", p.skill().value());
        } else if (scope instanceof ExecutionScope e) {
            m.put("agent", e.agent().value());
            m.put("kind", EXECUTION);
            m.put("outputCeiling", e.outputCeiling().bytes());
            Map<String, Object> receipt = new LinkedHashMap<>();
            receipt.put("id", e.receiptId().toString());
            receipt.put("issuedAt", Instants.format(e.receiptIssuedAt()));
            m.put("receipt", receipt);
            m.put("revision", e.revision().toString());
            m.put("timeoutCeiling", e.timeoutCeiling().millis());
            m.put("workspace", e.workspace().toString());
        } else {
            throw new IllegalArgumentException("unknown scope type");
        }
        return m;
    }

    static TrustScope decode(Object value) throws Frames.FormatException {
        Map<String, Object> m = Fields.object(value, "scope");
        String kind = Fields.string(m, "kind");
        try {
            if (kind.equals(PROMPT_SKILL)) {
                Fields.exactKeys(m, PROMPT_KEYS, "scope");
                String contract = Fields.string(m, "contract");
                Optional<Sha256Digest> contractDigest =
                        contract.equals(NO_CONTRACT) ? Optional.empty() : Optional.of(Sha256Digest.parse(contract));
                return new PromptSkillScope(
                        AgentId.of(Fields.string(m, "agent")),
                        SkillName.of(Fields.string(m, "skill")),
                        contractDigest,
                        Revision.parse(Fields.string(m, "revision")));
            }
            if (kind.equals(EXECUTION)) {
                Fields.exactKeys(m, EXECUTION_KEYS, "scope");
                Map<String, Object> receipt = Fields.object(m.get("receipt"), "receipt");
                Fields.exactKeys(receipt, RECEIPT_KEYS, "receipt");
                return new ExecutionScope(
                        Revision.parse(Fields.string(m, "revision")),
                        AgentId.of(Fields.string(m, "agent")),
                        Sha256Digest.parse(Fields.string(m, "workspace")),
                        Timeout.ofMillis(Fields.integer(m, "timeoutCeiling")),
                        OutputLimit.ofBytes(Fields.integer(m, "outputCeiling")),
                        uuid(Fields.string(receipt, "id")),
                        Instants.parse(Fields.string(receipt, "issuedAt")));
            }
        } catch (InvalidValueException e) {
            throw new Frames.FormatException("a scope field is invalid (" + e.code() + ")");
        }
        throw new Frames.FormatException("unknown scope kind");
    }

    static UUID uuid(String text) throws Frames.FormatException {
        try {
            UUID id = UUID.fromString(text);
            if (!id.toString().equals(text)) {
                throw new Frames.FormatException("a UUID is not in canonical lowercase form");
            }
            return id;
        } catch (IllegalArgumentException e) {
            throw new Frames.FormatException("a UUID is malformed");
        }
    }
}
