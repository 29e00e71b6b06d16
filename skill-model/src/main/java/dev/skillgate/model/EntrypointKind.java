package dev.skillgate.model;

import dev.skillgate.model.shared.Text;
import org.apiguardian.api.API;

/** The module system a Node entrypoint uses, fixed by its file extension (SPEC §4). */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum EntrypointKind {
    /** An ES module, {@code .mjs}. */
    ES_MODULE(".mjs"),
    /** A CommonJS module, {@code .cjs}. */
    COMMONJS(".cjs");

    private final String extension;

    EntrypointKind(String extension) {
        this.extension = extension;
    }

    /** The file extension, including the dot. */
    public String extension() {
        return extension;
    }

    /**
     * The kind of {@code path}, or {@link InvalidValueException} with
     * {@link ErrorCode#MANIFEST_UNSUPPORTED_RUNTIME} for any other extension ({@code .js}, {@code .ts},
     * {@code .py}, shell scripts...). There is no fallback runtime.
     */
    public static EntrypointKind of(PortablePath path) {
        for (EntrypointKind kind : values()) {
            if (path.hasSuffix(kind.extension)) {
                return kind;
            }
        }
        throw new InvalidValueException(
                ErrorCode.MANIFEST_UNSUPPORTED_RUNTIME,
                "entrypoint '" + Text.excerpt(path.value()) + "' is not a .mjs or .cjs file; no other runtime is"
                        + " supported");
    }
}
