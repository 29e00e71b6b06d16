package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.SkillContract;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * SPI: a trust-contract dialect — another {@code recordType} of the same {@code
 * skill.contract.json} file, mapped by host code to the very {@link SkillContract} the built-in
 * {@code skill-contract} record produces ({@code docs/contracts.md}, "Dialects").
 *
 * <p>Only the mapping is pluggable. The file is captured, bounded (64 KiB), strictly decoded (UTF-8,
 * one JSON object, no duplicate keys, depth and node bounds) and covered by the revision and by the
 * contract SHA-256 publisher signatures bind to before a dialect sees it, exactly as for the built-in
 * record. After it, everything is unchanged: the {@code identity.id} rule, {@link ContractCheck}
 * against the agent context, the credential broker, the signed / local-unsigned origin rule and
 * signature verification, consent. A dialect is consulted only for a file whose {@code recordType}
 * is exactly its {@link #recordType()}; the built-in {@code skill-contract} record cannot be
 * replaced, and a record type no dialect is configured for keeps {@code CONTRACT_VERSION}.
 *
 * <p>Fail closed: a dialect that throws, returns {@code null}, or returns a contract that breaks a
 * rule of the built-in record (the identity rule gives {@code CONTRACT_IDENTITY_MISMATCH}; the
 * counts, credential names and duplicates give {@code CONTRACT_DIALECT_FAILED}) gets the contract
 * rejected — never "no contract", never an exception out of inspection. The dialect runs on the
 * caller's thread with no time bound: it is host code, trusted like a {@link CredentialBroker}, and
 * must be pure, fast, thread-safe and must never read anything but the bytes it is given. Declaring
 * a dialect grants nothing.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface ContractDialect {
    /** Longest record type, in characters. */
    int MAX_RECORD_TYPE_LENGTH = 64;

    /**
     * The syntax of a dialect record type: 1–64 of {@code [a-z0-9._/-]}, starting with a letter or
     * digit (for example {@code acme-permissions/1}).
     */
    Pattern RECORD_TYPE = Pattern.compile("[a-z0-9][a-z0-9._/-]{0,63}");

    /**
     * The exact {@code recordType} value this dialect reads. Read once, when the dialect is
     * registered. Must match {@link #RECORD_TYPE} and must not start with {@code skill-contract}
     * (reserved for the built-in record and its future versions).
     */
    String recordType();

    /**
     * Maps one contract file.
     *
     * @param contractBytes the exact captured bytes of {@code skill.contract.json} (a fresh copy per
     *     call; already strictly decoded, so they are one JSON object of at most 64 KiB whose {@code
     *     recordType} is this dialect's)
     * @param directoryName the skill directory's name, which {@code identity.id} must end with
     * @param namespace the catalog namespace {@code identity.id} must start with; empty accepts any
     *     valid namespace
     * @return the mapped contract, or why the file is refused; never {@code null}
     */
    Result parse(byte[] contractBytes, String directoryName, Optional<String> namespace);

    /**
     * Whether {@code recordType} may name a dialect: the syntax of {@link #RECORD_TYPE}, not the
     * built-in {@link SkillContract#RECORD_TYPE} nor any name starting with it.
     */
    static boolean isValidRecordType(String recordType) {
        return recordType != null
                && RECORD_TYPE.matcher(recordType).matches()
                && !recordType.startsWith(SkillContract.RECORD_TYPE);
    }

    /** What a dialect concluded: {@link Mapped} or {@link Refused}. */
    sealed interface Result permits Result.Mapped, Result.Refused {
        /** Most diagnostics a refusal carries. */
        int MAX_DIAGNOSTICS = 64;

        /** The file maps to {@code contract}. */
        static Result mapped(SkillContract contract) {
            return new Mapped(contract);
        }

        /** The file is refused for {@code diagnostics}. */
        static Result refused(List<Diagnostic> diagnostics) {
            return new Refused(diagnostics);
        }

        /**
         * The file maps to this contract. It is still checked against the built-in record's rules
         * before it is accepted.
         *
         * @param contract the contract, the same value type the built-in record gives
         */
        record Mapped(SkillContract contract) implements Result {
            public Mapped {
                Objects.requireNonNull(contract, "contract");
            }
        }

        /**
         * The file is refused.
         *
         * @param diagnostics 1–{@value #MAX_DIAGNOSTICS} diagnostics with {@code CONTRACT_*} codes, at
         *     least one of them an error
         */
        record Refused(List<Diagnostic> diagnostics) implements Result {
            public Refused {
                diagnostics = List.copyOf(diagnostics);
                if (diagnostics.isEmpty() || diagnostics.size() > MAX_DIAGNOSTICS) {
                    throw new IllegalArgumentException("a refusal carries 1-" + MAX_DIAGNOSTICS + " diagnostics");
                }
                if (diagnostics.stream().noneMatch(Diagnostic::isError)) {
                    throw new IllegalArgumentException("a refusal carries at least one error");
                }
                if (diagnostics.stream().anyMatch(d -> d.code().group() != ErrorGroup.CONTRACT)) {
                    throw new IllegalArgumentException("a dialect refuses with CONTRACT_* codes only");
                }
            }
        }
    }
}
