package dev.skillgate.protocol;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.EntrypointKind;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.shared.Text;
import dev.skillgate.protocol.internal.JsonPointers;
import dev.skillgate.protocol.internal.ManifestCache;
import dev.skillgate.protocol.internal.StrictJsonDecoder;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;
import tools.jackson.databind.JsonNode;

/**
 * Parses the bytes of {@code execution.json} (schemaVersion 1, SPEC §4) strictly.
 *
 * <p>The bytes must be at most 64 KiB of strict UTF-8 holding one JSON object (depth ≤ 32, ≤ 4,096
 * nodes, no duplicate keys, no {@code __proto__} key). Fields: {@code schemaVersion} (must be 1;
 * any other version is refused without reading further), {@code entrypoint} (a portable path ending
 * in {@code .mjs} or {@code .cjs}, listed in {@code files}; other extensions get an "unsupported
 * runtime" diagnostic), {@code files} (1–64 distinct portable paths), {@code inputSchema} and
 * {@code outputSchema} (through the {@link SchemaGate}), optional {@code timeoutMs}
 * (1,000–120,000) and {@code maxOutputBytes} (1–262,144). Unknown fields, wrong types and
 * out-of-range numbers are errors; nothing is clamped or defaulted except the two optional limits
 * when absent. Integers follow JSON Schema: {@code 5000.0} is the integer 5000.
 *
 * <p>Every problem found is reported with the JSON pointer of the offending field. The parser does
 * not read files — the caller supplies the bytes, read through the bounded reader — and does not
 * check that declared files exist. Thread-safe. An accepted verdict is kept by content (at most 256,
 * least recently used out; decision 0806) and returned again for equal bytes: parsing the same
 * manifest twice compiles its schemas once, and the verdict is the same immutable value.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class ManifestParser {

    private static final Set<String> FIELDS = Set.of(
            "schemaVersion", "entrypoint", "files", "inputSchema", "outputSchema", "timeoutMs", "maxOutputBytes");

    /** Unknown fields reported one by one before the rest are summarised. */
    private static final int UNKNOWN_FIELDS_LISTED = 5;

    private ManifestParser() {}

    /**
     * Parses manifest bytes.
     *
     * @param bytes the complete content of {@code execution.json} (copied; not kept)
     * @return {@link ManifestVerdict.Accepted} or {@link ManifestVerdict.Rejected}; never absent
     */
    public static ManifestVerdict parse(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        byte[] copy = bytes.clone();
        if (copy.length > Limits.MANIFEST_BYTES) {
            return parseCopy(copy);
        }
        // Accepted manifests are kept by content (decision 0806): the same bytes compile nothing again.
        return ManifestCache.SHARED.verdict(copy, ManifestParser::parseCopy);
    }

    private static ManifestVerdict parseCopy(byte[] copy) {
        if (copy.length > Limits.MANIFEST_BYTES) {
            return rejected(Diagnostic.error(
                    ErrorCode.MANIFEST_TOO_LARGE,
                    "",
                    "execution.json is " + copy.length + " bytes; the bound is " + Limits.MANIFEST_BYTES));
        }
        StrictJsonDecoder.Outcome outcome = StrictJsonDecoder.decode(copy, Limits.MANIFEST_BYTES);
        if (outcome instanceof StrictJsonDecoder.Failed failed) {
            ErrorCode code = switch (failed.code()) {
                case JSON_TOO_LARGE -> ErrorCode.MANIFEST_TOO_LARGE;
                case JSON_DUPLICATE_KEY -> ErrorCode.MANIFEST_DUPLICATE_KEY;
                case JSON_DEPTH -> ErrorCode.MANIFEST_DEPTH;
                case JSON_NODES -> ErrorCode.MANIFEST_NODES;
                default -> ErrorCode.MANIFEST_SYNTAX;
            };
            return rejected(failed.toDiagnostic(code));
        }
        return new Fields(((StrictJsonDecoder.Decoded) outcome).root()).parse();
    }

    private static ManifestVerdict rejected(Diagnostic diagnostic) {
        return new ManifestVerdict.Rejected(List.of(diagnostic));
    }

    /** One parse: collects every problem before deciding. */
    private static final class Fields {
        private final JsonNode root;
        private final List<Diagnostic> problems = new ArrayList<>();

        Fields(JsonNode root) {
            this.root = root;
        }

        ManifestVerdict parse() {
            if (!root.isObject()) {
                return rejected(
                        Diagnostic.error(ErrorCode.MANIFEST_TYPE, "", "execution.json must hold a JSON object"));
            }
            if (!version()) {
                return new ManifestVerdict.Rejected(problems);
            }
            unknownFields();
            Optional<PortablePath> entrypoint = entrypoint();
            Optional<List<PortablePath>> files = files();
            if (entrypoint.isPresent() && files.isPresent() && !files.get().contains(entrypoint.get())) {
                error(
                        ErrorCode.MANIFEST_ENTRYPOINT_NOT_LISTED,
                        "/entrypoint",
                        "the entrypoint '" + Text.excerpt(entrypoint.get().value()) + "' is not listed in files");
            }
            Optional<CompiledSchema> input = schema("inputSchema", SchemaRole.INPUT);
            Optional<CompiledSchema> output = schema("outputSchema", SchemaRole.OUTPUT);
            Optional<Timeout> timeout = limit(
                            "timeoutMs", Timeout.MIN_MILLIS, Timeout.MAX_MILLIS, Timeout.DEFAULT_MILLIS)
                    .map(Timeout::new);
            Optional<OutputLimit> maxOutput = limit(
                            "maxOutputBytes", OutputLimit.MIN_BYTES, OutputLimit.MAX_BYTES, OutputLimit.DEFAULT_BYTES)
                    .map(OutputLimit::new);
            if (!problems.isEmpty()) {
                return new ManifestVerdict.Rejected(problems);
            }
            ExecutionManifest manifest;
            try {
                manifest = new ExecutionManifest(
                        ExecutionManifest.SCHEMA_VERSION,
                        entrypoint.orElseThrow(),
                        files.orElseThrow(),
                        input.orElseThrow().json(),
                        output.orElseThrow().json(),
                        timeout.orElseThrow(),
                        maxOutput.orElseThrow());
            } catch (InvalidValueException e) {
                // The checks above mirror the model's rules, so this is a backstop; fail closed.
                return rejected(e.toDiagnostic(locationOf(e.code())));
            }
            return new ManifestVerdict.Accepted(manifest, input.orElseThrow(), output.orElseThrow());
        }

        /** Whether {@code schemaVersion} is 1; any other version stops the parse. */
        private boolean version() {
            JsonNode value = root.get("schemaVersion");
            if (value == null) {
                error(ErrorCode.MANIFEST_MISSING_FIELD, "/schemaVersion", "schemaVersion is required");
                return false;
            }
            if (!value.isNumber()) {
                error(ErrorCode.MANIFEST_TYPE, "/schemaVersion", "schemaVersion must be the number 1");
                return false;
            }
            if (value.decimalValue().compareTo(BigDecimal.ONE) != 0) {
                error(
                        ErrorCode.MANIFEST_VERSION,
                        "/schemaVersion",
                        "schemaVersion " + Text.excerpt(value.asString()) + " is not supported; only 1 is");
                return false;
            }
            return true;
        }

        private void unknownFields() {
            int unknown = 0;
            for (String name : root.propertyNames()) {
                if (FIELDS.contains(name)) {
                    continue;
                }
                unknown++;
                if (unknown <= UNKNOWN_FIELDS_LISTED) {
                    String at = JsonPointers.child("", name);
                    if ("__proto__".equals(name)) {
                        error(ErrorCode.MANIFEST_PROTO_KEY, at, "__proto__ is refused as a key");
                    } else {
                        error(
                                ErrorCode.MANIFEST_UNKNOWN_FIELD,
                                at,
                                "unknown field '" + Text.excerpt(name) + "' (schemaVersion 1 defines none such)");
                    }
                }
            }
            if (unknown > UNKNOWN_FIELDS_LISTED) {
                error(
                        ErrorCode.MANIFEST_UNKNOWN_FIELD,
                        "",
                        "and " + (unknown - UNKNOWN_FIELDS_LISTED) + " more unknown fields");
            }
        }

        private Optional<PortablePath> entrypoint() {
            JsonNode value = required("entrypoint");
            if (value == null) {
                return Optional.empty();
            }
            if (!value.isString()) {
                error(ErrorCode.MANIFEST_TYPE, "/entrypoint", "entrypoint must be a string");
                return Optional.empty();
            }
            Optional<PortablePath> path = path(value.stringValue(), "/entrypoint");
            if (path.isEmpty()) {
                return path;
            }
            try {
                EntrypointKind.of(path.get());
            } catch (InvalidValueException e) {
                problems.add(e.toDiagnostic("/entrypoint"));
                return Optional.empty();
            }
            return path;
        }

        private Optional<List<PortablePath>> files() {
            JsonNode value = required("files");
            if (value == null) {
                return Optional.empty();
            }
            if (!value.isArray()) {
                error(ErrorCode.MANIFEST_TYPE, "/files", "files must be an array of paths");
                return Optional.empty();
            }
            if (value.size() < 1 || value.size() > Limits.DECLARED_FILES) {
                error(
                        ErrorCode.MANIFEST_FILES_COUNT,
                        "/files",
                        "files must list 1-" + Limits.DECLARED_FILES + " paths, lists " + value.size());
                return Optional.empty();
            }
            List<PortablePath> paths = new ArrayList<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean ok = true;
            for (int i = 0; i < value.size(); i++) {
                String at = JsonPointers.child("/files", i);
                JsonNode entry = value.get(i);
                if (!entry.isString()) {
                    error(ErrorCode.MANIFEST_TYPE, at, "each file must be a string");
                    ok = false;
                    continue;
                }
                Optional<PortablePath> path = path(entry.stringValue(), at);
                if (path.isEmpty()) {
                    ok = false;
                    continue;
                }
                Integer first = seen.putIfAbsent(path.get().collisionKey(), i);
                if (first != null) {
                    error(
                            ErrorCode.MANIFEST_FILE_DUPLICATE,
                            at,
                            "'" + Text.excerpt(path.get().value()) + "' names the same file as /files/" + first
                                    + " (case-insensitively)");
                    ok = false;
                    continue;
                }
                paths.add(path.get());
            }
            return ok ? Optional.of(List.copyOf(paths)) : Optional.empty();
        }

        private Optional<PortablePath> path(String text, String at) {
            try {
                return Optional.of(PortablePath.of(text));
            } catch (InvalidValueException e) {
                problems.add(e.toDiagnostic(at));
                return Optional.empty();
            }
        }

        private Optional<CompiledSchema> schema(String field, SchemaRole role) {
            JsonNode value = required(field);
            if (value == null) {
                return Optional.empty();
            }
            if (!value.isObject() && !value.isBoolean()) {
                // The manifest field itself has the wrong JSON type; a boolean is a schema, which
                // the gate refuses with its own code.
                problems.add(Diagnostic.error(
                        ErrorCode.MANIFEST_TYPE, "/" + field, field + " must be a JSON object (a schema)"));
                return Optional.empty();
            }
            SchemaCompilation compilation = SchemaGate.compileTree(role, value, "/" + field);
            problems.addAll(compilation.diagnostics());
            return compilation.compiled();
        }

        /** An optional integer field within [min, max]: the default when absent, empty on error. */
        private Optional<Integer> limit(String field, int min, int max, int defaultValue) {
            JsonNode value = root.get(field);
            String at = "/" + field;
            if (value == null) {
                return Optional.of(defaultValue);
            }
            if (!value.isNumber()) {
                error(ErrorCode.MANIFEST_TYPE, at, field + " must be an integer");
                return Optional.empty();
            }
            BigDecimal number = value.decimalValue();
            if (number.signum() != 0 && number.stripTrailingZeros().scale() > 0) {
                error(ErrorCode.MANIFEST_TYPE, at, field + " must be an integer");
                return Optional.empty();
            }
            if (number.compareTo(BigDecimal.valueOf(min)) < 0 || number.compareTo(BigDecimal.valueOf(max)) > 0) {
                error(
                        ErrorCode.LIMIT_OUT_OF_RANGE,
                        at,
                        field + " must be " + min + "-" + max + "; it is never clamped (was "
                                + Text.excerpt(value.asString()) + ")");
                return Optional.empty();
            }
            return Optional.of(number.intValueExact());
        }

        private JsonNode required(String field) {
            JsonNode value = root.get(field);
            if (value == null) {
                error(ErrorCode.MANIFEST_MISSING_FIELD, "/" + field, field + " is required");
            }
            return value;
        }

        private void error(ErrorCode code, String at, String message) {
            problems.add(Diagnostic.error(code, at, message));
        }

        private static String locationOf(ErrorCode code) {
            return switch (code) {
                case MANIFEST_UNSUPPORTED_RUNTIME, MANIFEST_ENTRYPOINT_NOT_LISTED -> "/entrypoint";
                case MANIFEST_FILES_COUNT, MANIFEST_FILE_DUPLICATE -> "/files";
                default -> "";
            };
        }
    }
}
