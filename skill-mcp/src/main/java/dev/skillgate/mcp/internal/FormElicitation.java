package dev.skillgate.mcp.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.Objects;

/**
 * A form-mode elicitation request that serialises on Jackson 3.2 and later: the SDK's own {@code
 * ElicitFormRequest} (2.1.0) declares {@code mode} both as its type id and as a property, which
 * Jackson since 3.2 refuses to write ("Conflict between type id property 'mode' and bean
 * property"), so the request never reaches the client. This record writes the same wire form —
 * {@code mode: "form"}, {@code message}, {@code requestedSchema}, {@code _meta} — with the type id
 * switched off and {@code mode} as a plain property. Clients read it as an {@code ElicitFormRequest}.
 *
 * @param message the text shown to the human
 * @param requestedSchema the form's flat object schema
 * @param meta the request's {@code _meta}
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NONE)
@JsonInclude(JsonInclude.Include.NON_ABSENT)
public record FormElicitation(
        @JsonProperty("message") String message,
        @JsonProperty("requestedSchema") Map<String, Object> requestedSchema,
        @JsonProperty("_meta") Map<String, Object> meta)
        implements McpSchema.ElicitRequest {

    public FormElicitation {
        Objects.requireNonNull(message, "message");
        requestedSchema = Map.copyOf(requestedSchema);
        meta = Map.copyOf(meta);
    }

    @Override
    @JsonProperty("mode")
    public String mode() {
        return McpSchema.ElicitFormRequest.MODE;
    }
}
