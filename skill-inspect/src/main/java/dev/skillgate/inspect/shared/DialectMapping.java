package dev.skillgate.inspect.shared;

import dev.skillgate.inspect.ContractDialect;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.internal.ContractRules;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.shared.Text;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * Runs one {@link ContractDialect} over a decoded contract file, fail closed: whatever the dialect
 * does, the outcome is a {@link ContractVerdict}, never an exception.
 *
 * <p>Public only so that {@code InspectOptions} and {@link ContractParser} in two packages share it;
 * the package is exported to no host (decision 0634).
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class DialectMapping {
    private DialectMapping() {}

    /** Checks a registry of dialects keyed by record type: valid names, no null. */
    public static Map<String, ContractDialect> checked(Map<String, ContractDialect> dialects) {
        Map<String, ContractDialect> copy = Map.copyOf(dialects);
        for (String type : copy.keySet()) {
            if (!ContractDialect.isValidRecordType(type)) {
                throw new IllegalArgumentException("'" + Text.excerpt(type) + "' cannot name a contract dialect: "
                        + "1-64 of [a-z0-9._/-], not skill-contract or a name starting with it");
            }
        }
        return copy;
    }

    public static ContractVerdict map(
            String recordType,
            ContractDialect dialect,
            byte[] bytes,
            String directoryName,
            Optional<String> namespace,
            Sha256Digest digest) {
        ContractDialect.Result result;
        try {
            result = dialect.parse(bytes.clone(), directoryName, namespace);
        } catch (VirtualMachineError e) {
            if (!(e instanceof StackOverflowError)) {
                throw e; // the JVM itself is failing (out of memory); nothing here can recover it
            }
            return failed(recordType, "overflowed its stack");
        } catch (Throwable e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return failed(recordType, "threw " + Text.excerpt(e.getClass().getSimpleName()));
        }
        if (result == null) {
            return failed(recordType, "returned null");
        }
        if (result instanceof ContractDialect.Result.Refused refused) {
            return new ContractVerdict.Rejected(refused.diagnostics());
        }
        SkillContract contract = ((ContractDialect.Result.Mapped) result).contract();
        Optional<Diagnostic> broken = brokenRule(recordType, contract, directoryName, namespace);
        if (broken.isPresent()) {
            return new ContractVerdict.Rejected(List.of(broken.get()));
        }
        return new ContractVerdict.Accepted(contract, digest, recordType);
    }

    /**
     * The first rule of the built-in record the mapped contract breaks; the model's constructors
     * already enforce the rest (side effects need permission, external-write a destination, a signed
     * origin a publisher, agent kinds and ranges, destinations' syntax).
     */
    private static Optional<Diagnostic> brokenRule(
            String recordType, SkillContract c, String directoryName, Optional<String> namespace) {
        SkillContract.Identity identity = c.identity();
        boolean identityOk = identity.directoryName().equals(directoryName)
                && namespace.map(identity.namespace()::equals).orElse(true)
                && SkillName.isValid(identity.namespace());
        if (!identityOk) {
            String expected = namespace.orElse("<namespace>") + "/" + directoryName;
            return Optional.of(Diagnostic.error(
                    ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                    "/identity/id",
                    "identity.id '" + Text.excerpt(identity.id()) + "' (from contract dialect '" + recordType
                            + "') must be " + Text.excerpt(expected)));
        }
        if (c.agents().isEmpty() || c.agents().size() > ContractRules.MAX_AGENTS) {
            return broken(recordType, "1-" + ContractRules.MAX_AGENTS + " agent requirements");
        }
        if (c.credentials().size() > ContractRules.MAX_CREDENTIALS) {
            return broken(recordType, "at most " + ContractRules.MAX_CREDENTIALS + " credentials");
        }
        Set<String> names = new HashSet<>();
        for (String name : c.credentials()) {
            if (!ContractRules.isCredentialName(name) || !names.add(name)) {
                return broken(recordType, "distinct credential names of 1-64 [A-Za-z0-9._-]");
            }
        }
        if (c.networkDestinations().size() > ContractRules.MAX_DESTINATIONS) {
            return broken(recordType, "at most " + ContractRules.MAX_DESTINATIONS + " network destinations");
        }
        Set<NetworkDestination> destinations = new HashSet<>(c.networkDestinations());
        if (destinations.size() != c.networkDestinations().size()) {
            return broken(recordType, "distinct network destinations");
        }
        return Optional.empty();
    }

    private static Optional<Diagnostic> broken(String recordType, String rule) {
        return Optional.of(Diagnostic.error(
                ErrorCode.CONTRACT_DIALECT_FAILED,
                "",
                "contract dialect '" + recordType + "' produced a contract that breaks the contract rules: it needs "
                        + rule));
    }

    private static ContractVerdict failed(String recordType, String what) {
        return new ContractVerdict.Rejected(List.of(Diagnostic.error(
                ErrorCode.CONTRACT_DIALECT_FAILED,
                "",
                "contract dialect '" + recordType + "' " + what + "; the contract is refused")));
    }
}
