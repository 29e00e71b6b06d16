/**
 * {@link dev.skillgate.springai.SkillgateToolCallbackProvider}: Skillgate's agent tools for a Spring
 * AI {@code ChatClient}.
 */
package dev.skillgate.springai;
