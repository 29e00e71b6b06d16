package dev.skillgate.inspect;

import org.apiguardian.api.API;

/**
 * SPI: the host component that would hand credentials to a skill by reference.
 *
 * <p>Skillgate ships no broker. Without one, {@link ContractCheck} refuses every contract that
 * declares credentials ({@code CONTRACT_CREDENTIALS_UNSUPPORTED}, SPEC §5). With one, a declared
 * credential passes only when the {@link AgentContext} lists it <em>and</em> the broker says it can
 * deliver it; otherwise {@code CONTRACT_CREDENTIAL_UNAVAILABLE}. The check never sees or asks for a
 * credential value, and configuring a broker grants nothing by itself.
 */
@FunctionalInterface
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface CredentialBroker {
    /**
     * Whether this broker can deliver the credential named {@code credentialName} to a skill.
     * Must be side-effect free and fast: it is called during a pure check.
     */
    boolean provides(String credentialName);
}
