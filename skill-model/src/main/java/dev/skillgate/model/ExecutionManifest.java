package dev.skillgate.model;

import dev.skillgate.model.shared.Text;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * A parsed and checked {@code execution.json} (schemaVersion 1, SPEC §4).
 *
 * <p>The constructor enforces the rules that need no I/O: the entrypoint is a {@code .mjs} or
 * {@code .cjs} file listed in {@code files}; {@code files} holds 1–64 distinct paths (distinct even
 * on a case-insensitive file system). The schemas are kept as the JSON text the manifest parser
 * produced from the manifest; the protocol gate compiles and checks them. That the files exist, are
 * regular and within size bounds is checked at capture, not here. A manifest grants nothing: it
 * describes what would run, and running still needs consent.
 *
 * @param schemaVersion always {@value #SCHEMA_VERSION}
 * @param entrypoint the script Node runs
 * @param files every file captured with the skill, in manifest order
 * @param inputSchemaJson the input schema as JSON text
 * @param outputSchemaJson the output schema as JSON text
 * @param timeout the execution deadline
 * @param maxOutputBytes the stdout bound
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ExecutionManifest(
        int schemaVersion,
        PortablePath entrypoint,
        List<PortablePath> files,
        String inputSchemaJson,
        String outputSchemaJson,
        Timeout timeout,
        OutputLimit maxOutputBytes) {

    /** The only supported schema version. */
    public static final int SCHEMA_VERSION = 1;

    /** The manifest file name next to SKILL.md. */
    public static final String FILE_NAME = "execution.json";

    public ExecutionManifest {
        if (schemaVersion != SCHEMA_VERSION) {
            throw new InvalidValueException(ErrorCode.MANIFEST_VERSION, "schemaVersion must be 1");
        }
        Objects.requireNonNull(entrypoint, "entrypoint");
        files = List.copyOf(files);
        Objects.requireNonNull(inputSchemaJson, "inputSchemaJson");
        Objects.requireNonNull(outputSchemaJson, "outputSchemaJson");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(maxOutputBytes, "maxOutputBytes");
        EntrypointKind.of(entrypoint);
        if (files.isEmpty() || files.size() > Limits.DECLARED_FILES) {
            throw new InvalidValueException(
                    ErrorCode.MANIFEST_FILES_COUNT, "files must list 1-" + Limits.DECLARED_FILES + " paths");
        }
        Set<String> seen = new HashSet<>();
        for (PortablePath file : files) {
            if (!seen.add(file.collisionKey())) {
                throw new InvalidValueException(
                        ErrorCode.MANIFEST_FILE_DUPLICATE, "files lists '" + Text.excerpt(file.value()) + "' twice");
            }
        }
        if (!files.contains(entrypoint)) {
            throw new InvalidValueException(
                    ErrorCode.MANIFEST_ENTRYPOINT_NOT_LISTED, "the entrypoint must be listed in files");
        }
    }

    /** The entrypoint's module kind. */
    public EntrypointKind entrypointKind() {
        return EntrypointKind.of(entrypoint);
    }
}
