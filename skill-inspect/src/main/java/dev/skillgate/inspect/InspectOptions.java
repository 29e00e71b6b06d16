package dev.skillgate.inspect;

import dev.skillgate.model.SkillName;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link SkillInspector} inspects: the validation profile, the catalog namespace a contract's
 * {@code identity.id} must use, and what the host offers — an agent context to check the contract
 * against, a credential broker, a signature checker with its publisher keys.
 *
 * <p>Everything is optional except the profile (default {@link ValidationProfile#STRICT}). Without
 * a namespace any valid namespace is accepted; without a context the contract is only checked for
 * what needs no context; without a signature checker signatures are "not checked". Immutable.
 *
 * @param profile the SKILL.md validation profile
 * @param namespace the catalog namespace, if the host has one
 * @param agentContext the agent that would use the skill, if known
 * @param credentialBroker the host's credential broker, if configured
 * @param signatureChecker the host's signature checker, if publisher keys are configured
 */
public record InspectOptions(
        ValidationProfile profile,
        Optional<String> namespace,
        Optional<AgentContext> agentContext,
        Optional<CredentialBroker> credentialBroker,
        Optional<SignatureChecker> signatureChecker) {

    public InspectOptions {
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(agentContext, "agentContext");
        Objects.requireNonNull(credentialBroker, "credentialBroker");
        Objects.requireNonNull(signatureChecker, "signatureChecker");
        namespace.ifPresent(ns -> {
            if (!SkillName.isValid(ns)) {
                throw new IllegalArgumentException("a namespace follows the skill-name rules");
            }
        });
    }

    /** The defaults: strict profile, nothing else configured. */
    public static InspectOptions defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link InspectOptions}. Not thread-safe. */
    public static final class Builder {
        private ValidationProfile profile = ValidationProfile.STRICT;
        private Optional<String> namespace = Optional.empty();
        private Optional<AgentContext> agentContext = Optional.empty();
        private Optional<CredentialBroker> credentialBroker = Optional.empty();
        private Optional<SignatureChecker> signatureChecker = Optional.empty();

        private Builder() {}

        /** The validation profile. */
        public Builder profile(ValidationProfile value) {
            profile = Objects.requireNonNull(value, "profile");
            return this;
        }

        /** The catalog namespace {@code identity.id} must start with. */
        public Builder namespace(String value) {
            namespace = Optional.of(Objects.requireNonNull(value, "namespace"));
            return this;
        }

        /** The agent context to check the contract against. */
        public Builder agentContext(AgentContext value) {
            agentContext = Optional.of(Objects.requireNonNull(value, "agentContext"));
            return this;
        }

        /** The host's credential broker. */
        public Builder credentialBroker(CredentialBroker value) {
            credentialBroker = Optional.of(Objects.requireNonNull(value, "credentialBroker"));
            return this;
        }

        /** The host's signature checker. */
        public Builder signatureChecker(SignatureChecker value) {
            signatureChecker = Optional.of(Objects.requireNonNull(value, "signatureChecker"));
            return this;
        }

        /** The options. */
        public InspectOptions build() {
            return new InspectOptions(profile, namespace, agentContext, credentialBroker, signatureChecker);
        }
    }
}
