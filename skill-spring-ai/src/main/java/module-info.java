/**
 * Skillgate for Spring AI: a {@code ToolCallbackProvider} whose callbacks are {@code
 * activate_skill}, {@code read_skill_resource} and one callback per executable skill, every call
 * gated by the {@code SkillGate}. Boot-independent. Not a sandbox.
 */
module dev.skillgate.springai {
    requires transitive dev.skillgate.tools;
    requires transitive spring.ai.model;
    requires static org.apiguardian.api;

    exports dev.skillgate.springai;
}
