/**
 * {@link dev.skillgate.mcp.SkillgateMcpServer} (skills over MCP, as far as the SDK lets a server
 * serve SEP-2640) and {@link dev.skillgate.mcp.McpElicitationApprovals} (Skillgate's approval
 * requests as MCP elicitations).
 */
package dev.skillgate.mcp;
