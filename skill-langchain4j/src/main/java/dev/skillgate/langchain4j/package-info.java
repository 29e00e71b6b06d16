/**
 * {@link dev.skillgate.langchain4j.SkillgateToolProvider}: Skillgate's agent tools for a LangChain4j
 * {@code AiServices} agent.
 */
package dev.skillgate.langchain4j;
