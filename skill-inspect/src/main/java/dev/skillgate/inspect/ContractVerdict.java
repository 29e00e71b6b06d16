package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillContract;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What {@link ContractParser} concluded about a skill's {@code skill.contract.json}: {@link
 * Accepted}, {@link Rejected} or {@link Absent}.
 *
 * <p>An accepted contract is well formed and internally consistent; whether it fits the agent that
 * would use the skill is {@link ContractCheck}'s question, asked at preflight and again just before
 * use. Neither says the skill is safe. The contract is a declaration; nothing confines what a
 * consented script then does.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface ContractVerdict
        permits ContractVerdict.Accepted, ContractVerdict.Rejected, ContractVerdict.Absent {

    /** Whether the contract was accepted. */
    boolean accepted();

    /** The problems found; empty for an accepted or absent contract. */
    List<Diagnostic> problems();

    /**
     * A well-formed contract.
     *
     * @param contract the parsed contract
     * @param sha256 SHA-256 of the exact contract bytes (the "contract hash" trust scopes and
     *     publisher signatures bind to)
     * @param recordType the {@code recordType} that produced the contract: {@link
     *     SkillContract#RECORD_TYPE} for the built-in record, otherwise the {@link ContractDialect}'s
     */
    record Accepted(SkillContract contract, Sha256Digest sha256, String recordType) implements ContractVerdict {
        public Accepted {
            Objects.requireNonNull(contract, "contract");
            Objects.requireNonNull(sha256, "sha256");
            Objects.requireNonNull(recordType, "recordType");
            if (!recordType.equals(SkillContract.RECORD_TYPE) && !ContractDialect.isValidRecordType(recordType)) {
                throw new IllegalArgumentException("not a contract record type");
            }
        }

        /** A contract of the built-in {@code skill-contract} record. */
        public Accepted(SkillContract contract, Sha256Digest sha256) {
            this(contract, sha256, SkillContract.RECORD_TYPE);
        }

        /** Whether a {@link ContractDialect} rather than the built-in record produced the contract. */
        public boolean fromDialect() {
            return !recordType.equals(SkillContract.RECORD_TYPE);
        }

        @Override
        public boolean accepted() {
            return true;
        }

        @Override
        public List<Diagnostic> problems() {
            return List.of();
        }
    }

    /**
     * The contract was refused; every problem found is listed with its JSON pointer.
     *
     * @param diagnostics at least one error
     */
    record Rejected(List<Diagnostic> diagnostics) implements ContractVerdict {
        public Rejected {
            diagnostics = List.copyOf(diagnostics);
            if (diagnostics.stream().noneMatch(Diagnostic::isError)) {
                throw new IllegalArgumentException("a rejection carries at least one error");
            }
        }

        @Override
        public boolean accepted() {
            return false;
        }

        @Override
        public List<Diagnostic> problems() {
            return diagnostics;
        }
    }

    /** The skill has no {@code skill.contract.json}. */
    record Absent() implements ContractVerdict {
        @Override
        public boolean accepted() {
            return false;
        }

        @Override
        public List<Diagnostic> problems() {
            return List.of();
        }
    }
}
