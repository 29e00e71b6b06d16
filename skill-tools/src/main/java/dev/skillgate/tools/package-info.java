/**
 * Skillgate as an agent's toolset, independent of any agent framework: {@link
 * dev.skillgate.tools.SkillTools} (what the model can call), {@link dev.skillgate.tools.ToolBinding}
 * (what only the host decides), {@link dev.skillgate.tools.ToolResult} (what goes back to the model).
 * The LangChain4j, Spring AI, Google ADK and MCP adapters are thin mappings of this surface.
 */
package dev.skillgate.tools;
