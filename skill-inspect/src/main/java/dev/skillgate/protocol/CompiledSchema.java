package dev.skillgate.protocol;

import com.networknt.schema.Schema;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.protocol.internal.StrictJsonDecoder;
import dev.skillgate.protocol.internal.Validators;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;
import tools.jackson.databind.JsonNode;

/**
 * A schema admitted by the {@link SchemaGate} and compiled once; immutable and safe to share
 * between threads.
 *
 * <p>Checks take raw bytes: strict decoding first (size bound, no BOM, strict UTF-8, exactly one
 * value, no duplicate keys, no {@code NaN}/{@code Infinity}, no escaped lone surrogate, depth ≤ 32,
 * ≤ 4,096 nodes, numbers exact), then the schema. Nothing is coerced ({@code "1"} is not an integer;
 * {@code 1.0} is, as JSON Schema 2020-12 says) and nothing is stripped (undeclared properties stay
 * unless {@code additionalProperties} is false, in which case they are refused). Each check copies
 * the caller's bytes first and checks the copy, so a caller mutating its array cannot change what
 * was checked.
 *
 * <p>It guarantees that accepted bytes match this schema; it does not make a script or its input
 * safe, and a check never runs anything.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class CompiledSchema {
    private final SchemaRole role;
    private final String json;
    private final Schema schema;

    CompiledSchema(SchemaRole role, String json, Schema schema) {
        this.role = role;
        this.json = json;
        this.schema = schema;
    }

    /** The role this schema was compiled for. */
    public SchemaRole role() {
        return role;
    }

    /** The schema as compact JSON text (numbers exactly as given). */
    public String json() {
        return json;
    }

    /**
     * Checks an invocation: at most {@value Limits#INVOCATION_BYTES} bytes holding one JSON object
     * that matches this input schema.
     *
     * @param bytes the exact bytes received (copied; the caller's array is not kept)
     * @return the invocation with its digest, or 1–20 issues
     * @throws IllegalStateException if this is not an {@link SchemaRole#INPUT} schema
     */
    public Validation<Invocation> checkInvocation(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (role != SchemaRole.INPUT) {
            throw new IllegalStateException("checkInvocation needs an INPUT schema; this one is " + role);
        }
        byte[] copy = bytes.clone();
        StrictJsonDecoder.Outcome outcome = StrictJsonDecoder.decode(copy, Limits.INVOCATION_BYTES);
        if (outcome instanceof StrictJsonDecoder.Failed failed) {
            return new Validation.Invalid<>(List.of(failed.toDiagnostic()));
        }
        JsonNode root = ((StrictJsonDecoder.Decoded) outcome).root();
        if (!root.isObject()) {
            return new Validation.Invalid<>(List.of(Diagnostic.error(
                    ErrorCode.JSON_ROOT_NOT_OBJECT, "", "an invocation must be a JSON object, not " + kind(root))));
        }
        List<Diagnostic> issues = Validators.validate(schema, root);
        return issues.isEmpty() ? new Validation.Valid<>(new Invocation(copy)) : new Validation.Invalid<>(issues);
    }

    /**
     * Checks a script's result: at most {@code limit} bytes holding one JSON value that matches this
     * output schema.
     *
     * @param bytes the script's complete stdout (copied)
     * @param limit the manifest's {@code maxOutputBytes}
     * @return the result, or 1–20 issues
     * @throws IllegalStateException if this is not an {@link SchemaRole#OUTPUT} schema
     */
    public Validation<ValidatedResult> checkResult(byte[] bytes, OutputLimit limit) {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(limit, "limit");
        if (role != SchemaRole.OUTPUT) {
            throw new IllegalStateException("checkResult needs an OUTPUT schema; this one is " + role);
        }
        byte[] copy = bytes.clone();
        StrictJsonDecoder.Outcome outcome = StrictJsonDecoder.decode(copy, limit.bytes());
        if (outcome instanceof StrictJsonDecoder.Failed failed) {
            return new Validation.Invalid<>(List.of(failed.toDiagnostic()));
        }
        JsonNode root = ((StrictJsonDecoder.Decoded) outcome).root();
        List<Diagnostic> issues = Validators.validate(schema, root);
        return issues.isEmpty() ? new Validation.Valid<>(new ValidatedResult(copy)) : new Validation.Invalid<>(issues);
    }

    private static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> "a non-object value";
        };
    }

    /** The networknt schema, for the same-schema baseline of the benchmark harness and for tests. */
    Schema validatorSchema() {
        return schema;
    }

    /** The role only; schema text can be long. */
    @Override
    public String toString() {
        return "CompiledSchema[" + role + ", " + json.length() + " chars]";
    }
}
