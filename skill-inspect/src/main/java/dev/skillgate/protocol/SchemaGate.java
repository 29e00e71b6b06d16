package dev.skillgate.protocol;

import com.networknt.schema.Schema;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.protocol.internal.CompactJson;
import dev.skillgate.protocol.internal.StrictJsonDecoder;
import dev.skillgate.protocol.internal.SubsetGate;
import dev.skillgate.protocol.internal.Validators;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;
import tools.jackson.databind.JsonNode;

/**
 * The schema gate: admits a schema only if every keyword in it is one the bounded subset enforces
 * exactly (SPEC §6), then compiles it once.
 *
 * <p>Admitted: {@code type} (one name), {@code properties}, {@code required},
 * {@code additionalProperties} (boolean), {@code items} (one schema), {@code enum}/{@code const}
 * (scalars), {@code minLength}/{@code maxLength} (code points), {@code minItems}/{@code maxItems},
 * {@code minimum}/{@code maximum}/{@code exclusiveMinimum}/{@code exclusiveMaximum}, {@code anyOf}
 * (2–4 branches, only annotations beside it), the annotations {@code title}/{@code description}/
 * {@code default}/{@code examples}, and {@code $schema} at the root naming draft 2020-12. Everything
 * else — {@code $ref}, {@code $defs}, {@code pattern}, {@code format}, {@code oneOf}, unknown
 * keywords… — is rejected by name and JSON pointer, as are malformed keyword values, object schemas
 * without {@code properties}, array schemas without {@code items}, boolean schemas outside
 * {@code additionalProperties}, {@code __proto__} keys, keywords that cannot apply to the declared
 * type, and schemas deeper than 32 or larger than 4,096 nodes. An {@link SchemaRole#INPUT} root must
 * be an explicit object schema.
 *
 * <p>It guarantees that what it admits is enforced exactly by the validator; it says nothing about
 * whether a schema is a good description of a script. Stateless and thread-safe.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SchemaGate {

    private SchemaGate() {}

    /** Every keyword the gate can admit ({@code $schema} only at a schema root). */
    public static Set<String> allowedKeywords() {
        return SubsetGate.ALLOWED;
    }

    /** Gates and compiles schema text (at most 64 KiB of UTF-8, like the manifest holding it). */
    public static SchemaCompilation compile(SchemaRole role, String schemaJson) {
        Objects.requireNonNull(schemaJson, "schemaJson");
        return compile(role, schemaJson.getBytes(StandardCharsets.UTF_8));
    }

    /** Gates and compiles schema bytes (at most 64 KiB of strict UTF-8 JSON). */
    public static SchemaCompilation compile(SchemaRole role, byte[] schemaUtf8) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(schemaUtf8, "schemaUtf8");
        StrictJsonDecoder.Outcome outcome = StrictJsonDecoder.decode(schemaUtf8.clone(), Limits.MANIFEST_BYTES);
        if (outcome instanceof StrictJsonDecoder.Failed failed) {
            ErrorCode code = switch (failed.code()) {
                case JSON_DEPTH -> ErrorCode.SCHEMA_DEPTH;
                case JSON_NODES -> ErrorCode.SCHEMA_NODES;
                default -> failed.code();
            };
            return new SchemaCompilation.Rejected(role, List.of(failed.toDiagnostic(code)));
        }
        return compileTree(role, ((StrictJsonDecoder.Decoded) outcome).root(), "");
    }

    /** Gates and compiles a decoded tree; pointers in diagnostics get {@code pointerPrefix}. */
    static SchemaCompilation compileTree(SchemaRole role, JsonNode tree, String pointerPrefix) {
        SubsetGate.Verdict verdict = SubsetGate.check(tree, role == SchemaRole.INPUT, pointerPrefix);
        if (verdict instanceof SubsetGate.Refused refused) {
            return new SchemaCompilation.Rejected(role, refused.problems());
        }
        JsonNode admitted = ((SubsetGate.Admitted) verdict).normalized();
        Optional<Schema> schema = Validators.compile(admitted);
        if (schema.isEmpty()) {
            return new SchemaCompilation.Rejected(
                    role,
                    List.of(Diagnostic.error(
                            ErrorCode.SCHEMA_KEYWORD_VALUE,
                            pointerPrefix,
                            "the validator refused a schema the gate admitted; refused to be safe")));
        }
        return new SchemaCompilation.Compiled(new CompiledSchema(role, CompactJson.write(tree), schema.get()));
    }
}
