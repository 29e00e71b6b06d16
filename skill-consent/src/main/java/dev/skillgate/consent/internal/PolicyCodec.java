package dev.skillgate.consent.internal;

import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySettings;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.Receipt;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * The policy file format (documented in {@code docs/consent.md}): encoding and strict decoding.
 *
 * <p>Decoding rejects, with a message that never quotes the input: anything the strict reader
 * rejects, unknown or missing members, wrong types, values that are not exactly canonical (paths,
 * UUIDs, instants, integers), more than 64 scopes, duplicate scopes or receipt ids. Nothing is
 * ever partially applied: the result is a complete settings value or an error.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class PolicyCodec {
    /** The {@code format} member's value. */
    public static final String FORMAT = "skillgate-execution-policy";

    /** The {@code version} member's value. */
    public static final int VERSION = 1;

    /** Largest policy file or submitted update, bytes. */
    public static final int MAX_BYTES = 1024 * 1024;

    /** Bounds of the strict reader for policy documents. */
    public static final StrictJsonReader.Bounds BOUNDS = new StrictJsonReader.Bounds(MAX_BYTES, 8, 4096, 8192);

    private PolicyCodec() {}

    /** Why a document is not a valid policy; the message never quotes the input. */
    static final class FormatError extends Exception {
        private static final long serialVersionUID = 1L;

        FormatError(String message) {
            super(message);
        }
    }

    // --- encoding ---

    /** The file bytes for {@code settings}. */
    public static byte[] encode(PolicySettings settings) {
        Map<String, JsonValue> root = new LinkedHashMap<>();
        root.put("format", new JsonValue.JString(FORMAT));
        root.put("version", JsonValue.JNumber.ofLong(VERSION));
        root.put("mode", new JsonValue.JString(settings.mode().name()));
        List<JsonValue> scopes = new ArrayList<>();
        for (ScopeEntry entry : settings.scopes()) {
            Map<String, JsonValue> scope = scopeMembers(entry.scope());
            entry.receipt().ifPresent(r -> {
                Map<String, JsonValue> receipt = new LinkedHashMap<>();
                receipt.put("id", new JsonValue.JString(r.id().toString()));
                receipt.put("approvedAt", new JsonValue.JString(r.approvedAt().toString()));
                scope.put("receipt", new JsonValue.JObject(receipt));
            });
            scopes.add(new JsonValue.JObject(scope));
        }
        root.put("scopes", new JsonValue.JArray(scopes));
        return StrictJsonWriter.write(new JsonValue.JObject(root));
    }

    private static Map<String, JsonValue> scopeMembers(TrustScope scope) {
        Map<String, JsonValue> out = new LinkedHashMap<>();
        out.put("revision", new JsonValue.JString(scope.revision().toString()));
        out.put("agent", new JsonValue.JString(scope.agent().value()));
        Map<String, JsonValue> workspace = new LinkedHashMap<>();
        workspace.put(
                "realPath", new JsonValue.JString(scope.workspace().realPath().toString()));
        workspace.put("fileKey", new JsonValue.JString(scope.workspace().fileKey()));
        out.put("workspace", new JsonValue.JObject(workspace));
        out.put(
                "timeoutCeilingMillis",
                JsonValue.JNumber.ofLong(scope.timeoutCeiling().millis()));
        out.put(
                "outputCeilingBytes",
                JsonValue.JNumber.ofLong(scope.outputCeiling().bytes()));
        return out;
    }

    // --- decoding ---

    /** Decodes a stored policy file: FOUND with the settings, or UNUSABLE with POLICY_CORRUPT. */
    public static PolicyLoad decode(byte[] bytes) {
        try {
            Fields root = Fields.of(parse(bytes), "policy");
            requireHeader(root, true);
            ExecutionPolicy mode = mode(root.string("mode"));
            List<JsonValue> items = root.array("scopes");
            if (items.size() > Limits.TRUSTED_SCOPES) {
                throw new FormatError("more than " + Limits.TRUSTED_SCOPES + " scopes");
            }
            List<ScopeEntry> entries = new ArrayList<>();
            Set<TrustScope> seen = new HashSet<>();
            Set<UUID> receipts = new HashSet<>();
            for (int i = 0; i < items.size(); i++) {
                String where = "scopes[" + i + "]";
                Fields f = Fields.of(items.get(i), where);
                TrustScope scope = scope(f, where);
                Optional<Receipt> receipt = Optional.empty();
                if (f.has("receipt")) {
                    receipt = Optional.of(receipt(Fields.of(f.take("receipt"), where + ".receipt"), where));
                }
                f.finish();
                if (!seen.add(scope)) {
                    throw new FormatError(where + " repeats an earlier scope");
                }
                if (receipt.isPresent() && !receipts.add(receipt.get().id())) {
                    throw new FormatError(where + " repeats an earlier receipt id");
                }
                entries.add(new ScopeEntry(scope, receipt));
            }
            root.finish();
            return PolicyLoad.found(new PolicySettings(mode, entries));
        } catch (FormatError e) {
            return PolicyLoad.unusable(ErrorCode.POLICY_CORRUPT, "the policy file is invalid: " + e.getMessage());
        }
    }

    /**
     * Decodes an update submitted by a settings UI: the file's shape, {@code format} and
     * {@code version} optional, receipts accepted and ignored.
     */
    public static ConsentResult<PolicyUpdate> decodeUpdate(byte[] bytes) {
        try {
            Fields root = Fields.of(parse(bytes), "update");
            requireHeader(root, false);
            ExecutionPolicy mode = mode(root.string("mode"));
            List<TrustScope> scopes = new ArrayList<>();
            if (root.has("scopes")) {
                List<JsonValue> items = root.array("scopes");
                if (items.size() > Limits.TRUSTED_SCOPES) {
                    return ConsentResult.failure(
                            ErrorCode.POLICY_SCOPE_LIMIT, "more than " + Limits.TRUSTED_SCOPES + " scopes");
                }
                for (int i = 0; i < items.size(); i++) {
                    String where = "scopes[" + i + "]";
                    Fields f = Fields.of(items.get(i), where);
                    TrustScope scope = scope(f, where);
                    if (f.has("receipt")) {
                        // Submitted receipts are ignored: only the admin's save mints them.
                        f.take("receipt");
                    }
                    f.finish();
                    scopes.add(scope);
                }
            }
            root.finish();
            return ConsentResult.success(new PolicyUpdate(mode, scopes));
        } catch (FormatError e) {
            return ConsentResult.failure(ErrorCode.POLICY_INVALID, "the policy update is invalid: " + e.getMessage());
        }
    }

    private static JsonValue parse(byte[] bytes) throws FormatError {
        try {
            return StrictJsonReader.parse(bytes, BOUNDS);
        } catch (JsonException e) {
            throw new FormatError(e.reason() + " (" + e.getMessage() + ")");
        }
    }

    private static void requireHeader(Fields root, boolean required) throws FormatError {
        if (required || root.has("format")) {
            if (!root.string("format").equals(FORMAT)) {
                throw new FormatError("format is not " + FORMAT);
            }
        }
        if (required || root.has("version")) {
            if (root.integer("version") != VERSION) {
                throw new FormatError("version is not " + VERSION);
            }
        }
    }

    private static ExecutionPolicy mode(String name) throws FormatError {
        for (ExecutionPolicy p : ExecutionPolicy.values()) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new FormatError("mode is not a known policy");
    }

    private static TrustScope scope(Fields f, String where) throws FormatError {
        try {
            Revision revision = Revision.parse(f.string("revision"));
            AgentId agent = AgentId.of(f.string("agent"));
            Fields ws = Fields.of(f.take("workspace"), where + ".workspace");
            WorkspaceIdentity workspace = workspace(ws.string("realPath"), ws.string("fileKey"), where);
            ws.finish();
            Timeout timeout = Timeout.ofMillis(f.integer("timeoutCeilingMillis"));
            OutputLimit output = OutputLimit.ofBytes(f.integer("outputCeilingBytes"));
            return new TrustScope(revision, agent, workspace, timeout, output);
        } catch (IllegalArgumentException e) {
            // InvalidValueException and friends: name the field group, never the value.
            throw new FormatError(where + " has an invalid value");
        }
    }

    private static WorkspaceIdentity workspace(String realPath, String fileKey, String where) throws FormatError {
        Path path;
        try {
            path = Path.of(realPath);
        } catch (InvalidPathException e) {
            throw new FormatError(where + ".workspace.realPath is not a path");
        }
        if (!path.isAbsolute() || !path.toString().equals(realPath)) {
            throw new FormatError(where + ".workspace.realPath is not an absolute, canonical path");
        }
        if (fileKey.isEmpty()) {
            throw new FormatError(where + ".workspace.fileKey is empty");
        }
        return new WorkspaceIdentity(path, fileKey);
    }

    private static Receipt receipt(Fields f, String where) throws FormatError {
        String id = f.string("id");
        String at = f.string("approvedAt");
        f.finish();
        UUID uuid;
        try {
            uuid = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new FormatError(where + ".receipt.id is not a UUID");
        }
        if (!uuid.toString().equals(id)) {
            throw new FormatError(where + ".receipt.id is not a canonical lowercase UUID");
        }
        Instant instant;
        try {
            instant = Instant.parse(at);
        } catch (DateTimeParseException e) {
            throw new FormatError(where + ".receipt.approvedAt is not a UTC instant");
        }
        if (!instant.toString().equals(at)) {
            throw new FormatError(where + ".receipt.approvedAt is not a canonical UTC instant");
        }
        return new Receipt(uuid, instant);
    }

    /** Reads members of one object, each at most once, and rejects members nobody asked for. */
    static final class Fields {
        private final Map<String, JsonValue> members;
        private final String where;
        private final Set<String> taken = new HashSet<>();

        private Fields(Map<String, JsonValue> members, String where) {
            this.members = members;
            this.where = where;
        }

        static Fields of(JsonValue value, String where) throws FormatError {
            if (!(value instanceof JsonValue.JObject)) {
                throw new FormatError(where + " is not an object");
            }
            return new Fields(((JsonValue.JObject) value).members(), where);
        }

        boolean has(String key) {
            return members.containsKey(key);
        }

        JsonValue take(String key) throws FormatError {
            JsonValue value = members.get(key);
            if (value == null) {
                throw new FormatError(where + "." + key + " is missing");
            }
            taken.add(key);
            return value;
        }

        String string(String key) throws FormatError {
            JsonValue value = take(key);
            if (!(value instanceof JsonValue.JString)) {
                throw new FormatError(where + "." + key + " is not a string");
            }
            return ((JsonValue.JString) value).value();
        }

        List<JsonValue> array(String key) throws FormatError {
            JsonValue value = take(key);
            if (!(value instanceof JsonValue.JArray)) {
                throw new FormatError(where + "." + key + " is not an array");
            }
            return ((JsonValue.JArray) value).items();
        }

        long integer(String key) throws FormatError {
            JsonValue value = take(key);
            if (!(value instanceof JsonValue.JNumber)) {
                throw new FormatError(where + "." + key + " is not a number");
            }
            String lexeme = ((JsonValue.JNumber) value).lexeme();
            boolean plain = !lexeme.isEmpty() && lexeme.length() <= 18;
            for (int i = 0; plain && i < lexeme.length(); i++) {
                char c = lexeme.charAt(i);
                plain = (c >= '0' && c <= '9') || (i == 0 && c == '-' && lexeme.length() > 1);
            }
            if (!plain) {
                throw new FormatError(where + "." + key + " is not a plain integer in range");
            }
            return Long.parseLong(lexeme);
        }

        void finish() throws FormatError {
            for (String key : members.keySet()) {
                if (!taken.contains(key)) {
                    throw new FormatError(where + " has an unknown member");
                }
            }
        }
    }
}
