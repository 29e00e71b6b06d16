/**
 * Skillgate for Google ADK for Java: the skill tools ADK's prompt names (including the missing
 * {@code run_skill_script}) backed by the {@code SkillGate}, and an approval channel carried by
 * ADK's tool confirmation. Not a sandbox.
 */
module dev.skillgate.adk {
    requires transitive dev.skillgate.tools;
    requires transitive google.adk;
    requires transitive com.google.genai;
    requires transitive io.reactivex.rxjava3;
    requires tools.jackson.databind;
    requires static org.apiguardian.api;

    exports dev.skillgate.adk;
}
