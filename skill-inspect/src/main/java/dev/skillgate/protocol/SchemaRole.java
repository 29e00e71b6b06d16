package dev.skillgate.protocol;

import org.apiguardian.api.API;

/**
 * Which side of the protocol a schema describes.
 *
 * <p>The role changes one gate rule and which check a compiled schema offers: an {@link #INPUT}
 * schema's root must be an explicit object schema and it checks invocations; an {@link #OUTPUT}
 * schema may have any root and checks results.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum SchemaRole {
    /** The manifest's {@code inputSchema}: what a script may be invoked with. */
    INPUT,
    /** The manifest's {@code outputSchema}: what a script's stdout must hold. */
    OUTPUT
}
