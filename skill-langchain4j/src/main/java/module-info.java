/**
 * Skillgate for LangChain4j: a {@code ToolProvider} whose tools are {@code activate_skill}, {@code
 * read_skill_resource} and one tool per executable skill, every call gated by the {@code SkillGate}
 * (exact consent, the Node runner under the process supervisor). Not a sandbox.
 */
module dev.skillgate.langchain4j {
    requires transitive dev.skillgate.tools;
    requires transitive langchain4j;
    requires transitive langchain4j.core;
    requires tools.jackson.databind;
    requires static org.apiguardian.api;

    exports dev.skillgate.langchain4j;
}
