package dev.skillgate.inspect;

import dev.skillgate.inspect.shared.DialectMapping;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.shared.Text;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * How {@link SkillInspector} inspects: the validation profile, the catalog namespace a contract's
 * {@code identity.id} must use, and what the host offers — an agent context to check the contract
 * against, a credential broker, a signature checker with its publisher keys, and the trust-contract
 * dialects ({@link ContractDialect}) besides the built-in {@code skill-contract} record.
 *
 * <p>Everything is optional except the profile (default {@link ValidationProfile#STRICT}). Without
 * a namespace any valid namespace is accepted; without a context the contract is only checked for
 * what needs no context; without a signature checker signatures are "not checked"; without dialects
 * only the built-in record is read. Immutable.
 *
 * @param profile the SKILL.md validation profile
 * @param namespace the catalog namespace, if the host has one
 * @param agentContext the agent that would use the skill, if known
 * @param credentialBroker the host's credential broker, if configured
 * @param signatureChecker the host's signature checker, if publisher keys are configured
 * @param contractDialects the configured contract dialects by their record type (read once, at
 *     registration); never the built-in {@code skill-contract}
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record InspectOptions(
        ValidationProfile profile,
        Optional<String> namespace,
        Optional<AgentContext> agentContext,
        Optional<CredentialBroker> credentialBroker,
        Optional<SignatureChecker> signatureChecker,
        Map<String, ContractDialect> contractDialects) {

    public InspectOptions {
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(agentContext, "agentContext");
        Objects.requireNonNull(credentialBroker, "credentialBroker");
        Objects.requireNonNull(signatureChecker, "signatureChecker");
        contractDialects = DialectMapping.checked(contractDialects);
        namespace.ifPresent(ns -> {
            if (!SkillName.isValid(ns)) {
                throw new IllegalArgumentException("a namespace follows the skill-name rules");
            }
        });
    }

    /** Options without contract dialects (the form before dialects existed). */
    public InspectOptions(
            ValidationProfile profile,
            Optional<String> namespace,
            Optional<AgentContext> agentContext,
            Optional<CredentialBroker> credentialBroker,
            Optional<SignatureChecker> signatureChecker) {
        this(profile, namespace, agentContext, credentialBroker, signatureChecker, Map.of());
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
        private final Map<String, ContractDialect> contractDialects = new LinkedHashMap<>();

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

        /**
         * Adds a trust-contract dialect: a {@code skill.contract.json} whose {@code recordType} is
         * exactly {@code dialect.recordType()} (read once, here) is mapped by it. Several dialects are
         * allowed, one per record type.
         *
         * @throws IllegalArgumentException when the record type is invalid, is or starts with {@code
         *     skill-contract} (the built-in record cannot be replaced), cannot be read, or already has
         *     a dialect here
         */
        public Builder contractDialect(ContractDialect dialect) {
            Objects.requireNonNull(dialect, "dialect");
            String type;
            try {
                type = dialect.recordType();
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("the contract dialect's recordType() failed", e);
            }
            if (!ContractDialect.isValidRecordType(type)) {
                throw new IllegalArgumentException("'" + Text.excerpt(String.valueOf(type))
                        + "' cannot name a contract dialect: 1-64 of [a-z0-9._/-], not skill-contract or a"
                        + " name starting with it");
            }
            if (contractDialects.containsKey(type)) {
                throw new IllegalArgumentException("two contract dialects for record type '" + type + "'");
            }
            contractDialects.put(type, dialect);
            return this;
        }

        /** The options. */
        public InspectOptions build() {
            return new InspectOptions(
                    profile, namespace, agentContext, credentialBroker, signatureChecker, contractDialects);
        }
    }
}
