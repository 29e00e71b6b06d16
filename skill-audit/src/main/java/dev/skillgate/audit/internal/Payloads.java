package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Confinement;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Record schema version 1: the canonical JSON payload of each record type ({@code docs/audit.md}).
 * Every payload carries {@code "v":1} and {@code recordedAt}; unknown or missing fields, another
 * {@code v}, or a field that breaks its value rule make the record invalid.
 */
final class Payloads {
    static final int SCHEMA_VERSION = 1;

    private Payloads() {}

    private static final Set<String> SCOPE_KEYS = Set.of("v", "recordedAt", "scope");
    private static final Set<String> CONSUME_KEYS = Set.of("v", "recordedAt", "run", "agent", "revision", "binding");
    private static final Set<String> POLICY_KEYS = Set.of("v", "recordedAt", "mode", "policy");
    private static final Set<String> SETTLE_KEYS =
            Set.of("v", "recordedAt", "run", "agent", "revision", "authority", "status", "cleanup", "layer", "early");
    private static final Set<String> WORKFLOW_KEYS = Set.of("v", "recordedAt", "action", "workflow", "run", "detail");
    private static final Set<String> PLAN_KEYS =
            Set.of("v", "recordedAt", "run", "agent", "workspace", "plan", "steps");
    private static final Set<String> STEP_KEYS =
            Set.of("v", "recordedAt", "run", "agent", "revision", "binding", "plan", "step");
    private static final Set<String> LATE_KEYS =
            Set.of("v", "recordedAt", "request", "id", "agent", "run", "skill", "revision", "approved", "afterMillis");
    private static final Set<String> PROCESS_KEYS = Set.of("pid", "token");
    private static final byte[] SCOPE_TAG = "skillgate-audit/v1/scope\0".getBytes(StandardCharsets.US_ASCII);

    /**
     * A decoded payload.
     *
     * @param scopeId for approvals and revocations, the scope id computed from the stored scope bytes
     *     (equal to {@link Scopes#id} because the reader accepts only canonical bytes); else null
     */
    record Decoded(Instant recordedAt, AuditEvent event, ScopeKey scopeId) {
        static Decoded of(Instant recordedAt, AuditEvent event) {
            ScopeKey id = null;
            if (event instanceof AuditEvent.Approved a) {
                id = ScopeKey.of(a.scope().id());
            } else if (event instanceof AuditEvent.Revoked r) {
                id = ScopeKey.of(r.scope().id());
            }
            return new Decoded(recordedAt, event, id);
        }
    }

    static RecordType typeOf(AuditEvent event) {
        if (event instanceof AuditEvent.Approved) {
            return RecordType.APPROVE;
        }
        if (event instanceof AuditEvent.Revoked) {
            return RecordType.REVOKE;
        }
        if (event instanceof AuditEvent.Repaired) {
            return RecordType.REPAIR;
        }
        if (event instanceof AuditEvent.Consumed) {
            return RecordType.CONSUME;
        }
        if (event instanceof AuditEvent.PolicyChanged) {
            return RecordType.POLICY_CHANGE;
        }
        if (event instanceof AuditEvent.Settled) {
            return RecordType.SETTLE;
        }
        if (event instanceof AuditEvent.Resolved) {
            return RecordType.RESOLVE;
        }
        if (event instanceof AuditEvent.PlanApproved) {
            return RecordType.PLAN_APPROVE;
        }
        if (event instanceof AuditEvent.PlanStepConsumed) {
            return RecordType.PLAN_STEP;
        }
        if (event instanceof AuditEvent.WorkflowChanged) {
            return RecordType.WORKFLOW;
        }
        if (event instanceof AuditEvent.LateAnswer) {
            return RecordType.LATE_ANSWER;
        }
        throw new IllegalArgumentException("unknown event type");
    }

    static byte[] encode(AuditEvent event, Instant recordedAt) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v", SCHEMA_VERSION);
        m.put("recordedAt", Instants.format(recordedAt));
        if (event instanceof AuditEvent.Approved a) {
            m.put("scope", Scopes.encode(a.scope()));
        } else if (event instanceof AuditEvent.Revoked r) {
            m.put("scope", Scopes.encode(r.scope()));
        } else if (event instanceof AuditEvent.Consumed c) {
            m.put("run", c.run().value());
            m.put("agent", c.agent().value());
            m.put("revision", c.revision().toString());
            m.put("binding", c.binding().toString());
        } else if (event instanceof AuditEvent.PolicyChanged p) {
            m.put("mode", p.mode());
            m.put("policy", p.policy().toString());
        } else if (event instanceof AuditEvent.Repaired r) {
            m.put("reason", r.reason());
            m.put("cause", r.cause().name());
            r.firstBadSequence().ifPresent(n -> m.put("firstBadSequence", n));
            r.previousLogId().ifPresent(id -> m.put("previousLogId", id));
            r.previousLog().ifPresent(d -> m.put("previousLog", d.toString()));
            r.previousHead().ifPresent(d -> m.put("previousHead", d.toString()));
            m.put("evidence", r.evidence());
        } else if (event instanceof AuditEvent.Settled st) {
            m.put("run", st.run().value());
            m.put("agent", st.agent().value());
            m.put("revision", st.revision().toString());
            m.put("authority", st.authority().name());
            m.put("status", st.status().name());
            m.put("cleanup", st.cleanup().name());
            m.put("layer", st.layer().name());
            if (!st.errors().isEmpty()) {
                m.put(
                        "errors",
                        String.join(",", st.errors().stream().map(Enum::name).toList()));
            }
            m.put("early", st.earlyDelivery());
            st.runtimeSha256().ifPresent(d -> m.put("runtime", d.toString()));
            // Process reach, file writes, network, each ENFORCED / NOT_REQUESTED / NOT_ENFORCED; then
            // memory, process count, CPU only when a resource limit was asked for (records stay as before).
            st.confinement()
                    .ifPresent(c -> m.put(
                            "confinement",
                            c.processReach().name() + "," + c.fileWrites().name() + ","
                                    + c.network().name()
                                    + (c.resourcesRequested()
                                            ? "," + c.memory().name() + ","
                                                    + c.processCount().name() + ","
                                                    + c.cpu().name()
                                            : "")));
        } else if (event instanceof AuditEvent.Resolved rs) {
            m.put("run", rs.run().value());
            rs.revision().ifPresent(rev -> m.put("revision", rev.toString()));
            m.put("attempt", rs.attempt());
            m.put("stager", process(rs.stager()));
            rs.supervisor().ifPresent(p -> m.put("supervisor", process(p)));
        } else if (event instanceof AuditEvent.PlanApproved pa) {
            m.put("run", pa.run().value());
            m.put("agent", pa.agent().value());
            m.put("workspace", pa.workspace().toString());
            m.put("plan", pa.plan().toString());
            m.put("steps", (long) pa.steps());
        } else if (event instanceof AuditEvent.PlanStepConsumed ps) {
            m.put("run", ps.run().value());
            m.put("agent", ps.agent().value());
            m.put("revision", ps.revision().toString());
            m.put("binding", ps.binding().toString());
            m.put("plan", ps.plan().toString());
            m.put("step", (long) ps.step());
        } else if (event instanceof AuditEvent.WorkflowChanged wc) {
            m.put("action", wc.action().name());
            m.put("workflow", wc.workflow());
            m.put("run", wc.run().value());
            m.put("detail", wc.detail());
        } else if (event instanceof AuditEvent.LateAnswer la) {
            m.put("request", la.request().name());
            m.put("id", la.id());
            m.put("agent", la.agent().value());
            la.run().ifPresent(r -> m.put("run", r.value()));
            m.put("skill", la.skill().value());
            m.put("revision", la.revision().toString());
            m.put("approved", la.approved());
            m.put("afterMillis", la.afterMillis());
        }
        try {
            byte[] bytes = CanonicalJson.write(m);
            if (bytes.length > Frames.MAX_PAYLOAD) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "the record exceeds 64 KiB");
            }
            return bytes;
        } catch (IllegalArgumentException e) {
            if (e instanceof InvalidValueException) {
                throw e;
            }
            throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, e.getMessage());
        }
    }

    static Decoded decode(RecordType type, byte[] bytes, int offset, int length) throws Frames.FormatException {
        return decode(type, bytes, offset, length, Sha256Digest.newMessageDigest());
    }

    /** As above, reusing {@code md} for the scope id. */
    static Decoded decode(RecordType type, byte[] bytes, int offset, int length, MessageDigest md)
            throws Frames.FormatException {
        Map<String, Object> m;
        int[] scopeRange = {-1, -1};
        try {
            m = CanonicalJson.read(bytes, offset, length, "scope", scopeRange);
        } catch (CanonicalJson.NotCanonicalException e) {
            throw new Frames.FormatException("payload is not canonical JSON: " + e.getMessage());
        }
        if (!(m.get("v") instanceof Long v) || v != SCHEMA_VERSION) {
            throw new Frames.FormatException("payload schema version is not " + SCHEMA_VERSION);
        }
        Instant recordedAt = Instants.parse(Fields.string(m, "recordedAt"));
        try {
            AuditEvent event = switch (type) {
                case APPROVE -> {
                    Fields.exactKeys(m, SCOPE_KEYS, "payload");
                    yield new AuditEvent.Approved(Scopes.decode(m.get("scope")));
                }
                case REVOKE -> {
                    Fields.exactKeys(m, SCOPE_KEYS, "payload");
                    yield new AuditEvent.Revoked(Scopes.decode(m.get("scope")));
                }
                case CONSUME -> {
                    Fields.exactKeys(m, CONSUME_KEYS, "payload");
                    yield new AuditEvent.Consumed(
                            RunId.of(Fields.string(m, "run")),
                            AgentId.of(Fields.string(m, "agent")),
                            Revision.parse(Fields.string(m, "revision")),
                            Sha256Digest.parse(Fields.string(m, "binding")));
                }
                case POLICY_CHANGE -> {
                    Fields.exactKeys(m, POLICY_KEYS, "payload");
                    yield new AuditEvent.PolicyChanged(
                            Fields.string(m, "mode"), Sha256Digest.parse(Fields.string(m, "policy")));
                }
                case REPAIR -> decodeRepair(m);
                case SETTLE -> decodeSettle(m);
                case RESOLVE -> decodeResolve(m);
                case PLAN_APPROVE -> {
                    Fields.exactKeys(m, PLAN_KEYS, "payload");
                    yield new AuditEvent.PlanApproved(
                            RunId.of(Fields.string(m, "run")),
                            AgentId.of(Fields.string(m, "agent")),
                            Sha256Digest.parse(Fields.string(m, "workspace")),
                            Sha256Digest.parse(Fields.string(m, "plan")),
                            smallInt(m, "steps"));
                }
                case PLAN_STEP -> {
                    Fields.exactKeys(m, STEP_KEYS, "payload");
                    yield new AuditEvent.PlanStepConsumed(
                            RunId.of(Fields.string(m, "run")),
                            AgentId.of(Fields.string(m, "agent")),
                            Revision.parse(Fields.string(m, "revision")),
                            Sha256Digest.parse(Fields.string(m, "binding")),
                            Sha256Digest.parse(Fields.string(m, "plan")),
                            smallInt(m, "step"));
                }
                case WORKFLOW -> {
                    Fields.exactKeys(m, WORKFLOW_KEYS, "payload");
                    AuditEvent.WorkflowChanged.Action action;
                    try {
                        action = AuditEvent.WorkflowChanged.Action.valueOf(Fields.string(m, "action"));
                    } catch (IllegalArgumentException e) {
                        throw new InvalidValueException(ErrorCode.AUDIT_CORRUPT, "unknown workflow action");
                    }
                    yield new AuditEvent.WorkflowChanged(
                            action,
                            Fields.string(m, "workflow"),
                            RunId.of(Fields.string(m, "run")),
                            Fields.string(m, "detail"));
                }
                case LATE_ANSWER -> decodeLateAnswer(m);
            };
            ScopeKey scopeId = null;
            if (event instanceof AuditEvent.Approved || event instanceof AuditEvent.Revoked) {
                md.reset();
                md.update(SCOPE_TAG);
                md.update(bytes, scopeRange[0], scopeRange[1] - scopeRange[0]);
                scopeId = ScopeKey.of(md.digest());
            }
            return new Decoded(recordedAt, event, scopeId);
        } catch (InvalidValueException e) {
            throw new Frames.FormatException("a payload field is invalid (" + e.code() + ")");
        }
    }

    private static Map<String, Object> process(AuditEvent.DeadProcess p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pid", p.pid());
        m.put("token", p.startToken());
        return m;
    }

    private static AuditEvent.DeadProcess decodeProcess(Object value, String what) throws Frames.FormatException {
        Map<String, Object> m = Fields.object(value, what);
        Fields.exactKeys(m, PROCESS_KEYS, what);
        return new AuditEvent.DeadProcess(Fields.integer(m, "pid"), Fields.string(m, "token"));
    }

    /** An integer field that must fit an {@code int} (the record's own constructor bounds it further). */
    private static int smallInt(Map<String, Object> m, String key) throws Frames.FormatException {
        long n = Fields.integer(m, key);
        if (n > Integer.MAX_VALUE) {
            throw new Frames.FormatException("'" + key + "' is out of range");
        }
        return (int) n;
    }

    /** The constant of {@code type} named exactly {@code name}. */
    private static <E extends Enum<E>> E constant(Class<E> type, String name, String what)
            throws Frames.FormatException {
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        throw new Frames.FormatException("unknown " + what);
    }

    private static AuditEvent decodeSettle(Map<String, Object> m) throws Frames.FormatException {
        Set<String> rest = new HashSet<>(m.keySet());
        boolean hasErrors = rest.remove("errors");
        boolean hasRuntime = rest.remove("runtime");
        boolean hasConfinement = rest.remove("confinement");
        if (!rest.equals(SETTLE_KEYS)) {
            throw new Frames.FormatException("'payload' does not have exactly the schema's fields");
        }
        List<ErrorCode> errors = new ArrayList<>();
        if (hasErrors) {
            // The writer omits an empty list and joins names with single commas: anything else
            // (empty text, empty entries, unknown or repeated codes) is not its output.
            String text = Fields.string(m, "errors");
            for (String name : text.split(",", -1)) {
                errors.add(constant(ErrorCode.class, name, "error code"));
            }
            if (errors.size() > AuditEvent.Settled.MAX_ERRORS || new HashSet<>(errors).size() != errors.size()) {
                throw new Frames.FormatException("'errors' repeats a code or holds too many");
            }
        }
        if (!(m.get("early") instanceof Boolean early)) {
            throw new Frames.FormatException("'early' is missing or not a boolean");
        }
        return new AuditEvent.Settled(
                RunId.of(Fields.string(m, "run")),
                AgentId.of(Fields.string(m, "agent")),
                Revision.parse(Fields.string(m, "revision")),
                constant(AuditEvent.Settled.Authority.class, Fields.string(m, "authority"), "authority"),
                constant(ExecutionStatus.class, Fields.string(m, "status"), "status"),
                constant(CleanupStatus.class, Fields.string(m, "cleanup"), "cleanup status"),
                constant(HardeningLayer.class, Fields.string(m, "layer"), "hardening layer"),
                errors,
                early,
                hasRuntime ? Optional.of(Sha256Digest.parse(Fields.string(m, "runtime"))) : Optional.empty(),
                hasConfinement ? Optional.of(confinement(Fields.string(m, "confinement"))) : Optional.empty());
    }

    /** Exactly three (or, with resource limits asked for, six) part names joined by single commas. */
    private static Confinement confinement(String text) throws Frames.FormatException {
        String[] parts = text.split(",", -1);
        if (parts.length != 3 && parts.length != 6) {
            throw new Frames.FormatException("'confinement' does not name three or six parts");
        }
        Confinement.Part[] p = new Confinement.Part[6];
        for (int i = 0; i < 6; i++) {
            p[i] = i < parts.length
                    ? constant(Confinement.Part.class, parts[i], "confinement part")
                    : Confinement.Part.NOT_REQUESTED;
        }
        Confinement c = new Confinement(p[0], p[1], p[2], p[3], p[4], p[5]);
        if (parts.length == 6 && !c.resourcesRequested()) {
            throw new Frames.FormatException("'confinement' names resource parts that were not asked for");
        }
        return c;
    }

    private static AuditEvent decodeLateAnswer(Map<String, Object> m) throws Frames.FormatException {
        Set<String> keys = new java.util.HashSet<>(LATE_KEYS);
        if (!m.containsKey("run")) {
            keys.remove("run");
        }
        Fields.exactKeys(m, keys, "payload");
        AuditEvent.LateAnswer.Request request =
                constant(AuditEvent.LateAnswer.Request.class, Fields.string(m, "request"), "late answer request");
        if (!(m.get("approved") instanceof Boolean approved)) {
            throw new Frames.FormatException("a late answer's approved is not a boolean");
        }
        if (!(m.get("afterMillis") instanceof Long after)) {
            throw new Frames.FormatException("a late answer's afterMillis is not an integer");
        }
        return new AuditEvent.LateAnswer(
                request,
                Fields.string(m, "id"),
                AgentId.of(Fields.string(m, "agent")),
                m.containsKey("run") ? Optional.of(RunId.of(Fields.string(m, "run"))) : Optional.empty(),
                SkillName.of(Fields.string(m, "skill")),
                Revision.parse(Fields.string(m, "revision")),
                approved,
                after);
    }

    private static AuditEvent decodeResolve(Map<String, Object> m) throws Frames.FormatException {
        Set<String> rest = new HashSet<>(m.keySet());
        boolean hasRevision = rest.remove("revision");
        boolean hasSupervisor = rest.remove("supervisor");
        if (!rest.equals(Set.of("v", "recordedAt", "run", "attempt", "stager"))) {
            throw new Frames.FormatException("'payload' does not have exactly the schema's fields");
        }
        return new AuditEvent.Resolved(
                RunId.of(Fields.string(m, "run")),
                hasRevision ? Optional.of(Revision.parse(Fields.string(m, "revision"))) : Optional.empty(),
                Fields.string(m, "attempt"),
                decodeProcess(m.get("stager"), "stager"),
                hasSupervisor ? Optional.of(decodeProcess(m.get("supervisor"), "supervisor")) : Optional.empty());
    }

    private static AuditEvent decodeRepair(Map<String, Object> m) throws Frames.FormatException {
        Set<String> required = Set.of("v", "recordedAt", "reason", "cause", "evidence");
        Set<String> optional = Set.of("firstBadSequence", "previousLogId", "previousLog", "previousHead");
        Set<String> rest = new HashSet<>(m.keySet());
        if (!rest.containsAll(required)) {
            throw new Frames.FormatException("'payload' does not have exactly the schema's fields");
        }
        rest.removeAll(required);
        if (!optional.containsAll(rest)) {
            throw new Frames.FormatException("'payload' does not have exactly the schema's fields");
        }
        ErrorCode cause = ErrorCode.find(Fields.string(m, "cause"))
                .filter(c -> c.name().equals(m.get("cause")))
                .orElseThrow(() -> new Frames.FormatException("unknown repair cause"));
        OptionalLong firstBad = m.containsKey("firstBadSequence")
                ? OptionalLong.of(Fields.integer(m, "firstBadSequence"))
                : OptionalLong.empty();
        Optional<String> logId =
                m.containsKey("previousLogId") ? Optional.of(Fields.string(m, "previousLogId")) : Optional.empty();
        Optional<Sha256Digest> log = m.containsKey("previousLog")
                ? Optional.of(Sha256Digest.parse(Fields.string(m, "previousLog")))
                : Optional.empty();
        Optional<Sha256Digest> head = m.containsKey("previousHead")
                ? Optional.of(Sha256Digest.parse(Fields.string(m, "previousHead")))
                : Optional.empty();
        return new AuditEvent.Repaired(
                Fields.string(m, "reason"), cause, firstBad, logId, log, head, Fields.string(m, "evidence"));
    }
}
