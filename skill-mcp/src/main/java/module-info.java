/**
 * Skillgate for MCP servers (the MCP Java SDK): skills served as {@code skill://} resources whose
 * listing carries each captured file's size and SHA-256, executable skills as tools whose input
 * schema is the skill's, and approval through the host's channel or MCP elicitation. Not a sandbox.
 */
module dev.skillgate.mcp {
    requires transitive dev.skillgate.tools;
    requires transitive io.modelcontextprotocol.sdk.mcp.core;
    requires tools.jackson.core;
    requires tools.jackson.databind;
    requires com.fasterxml.jackson.annotation;
    requires static org.apiguardian.api;

    exports dev.skillgate.mcp;

    // The SDK's Jackson mapper writes the elicitation request record.
    opens dev.skillgate.mcp.internal to
            tools.jackson.databind;
}
