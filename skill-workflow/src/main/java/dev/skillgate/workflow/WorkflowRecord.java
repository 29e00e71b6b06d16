package dev.skillgate.workflow;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.Sha256Digest;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * One versioned record of a durable workflow (schema version {@link #SCHEMA_VERSION}). The closed set
 * of what is ever stored: the definition, a step's start (its exact input), its settlement (outcome,
 * cleanup proof, checked output), an operator's decision about an unknown step, and the end. There is
 * no record type for consent, a grant or a receipt: none is ever stored.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public sealed interface WorkflowRecord {
    /** The schema version this build writes and the only one it reads; any other is refused. */
    int SCHEMA_VERSION = 1;

    /** The most bytes a step's input may have (the invocation bound). */
    int MAX_INPUT_BYTES = 64 * 1024;

    /** The most bytes a step's checked output may have (the output limit's maximum). */
    int MAX_OUTPUT_BYTES = 262_144;

    /** The workflow's definition; always record 0. */
    record Defined(WorkflowDefinition definition) implements WorkflowRecord {
        public Defined {
            Objects.requireNonNull(definition, "definition");
        }
    }

    /**
     * A step is about to launch: written after its run-scoped consent was used and recorded, before
     * the process starts. A start without a settlement is an interrupted write: its effect is unknown.
     *
     * @param step the step's index in the definition
     * @param input the exact invocation bytes
     * @param inputDigest their SHA-256
     */
    record StepStarted(int step, byte[] input, Sha256Digest inputDigest) implements WorkflowRecord {
        public StepStarted {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(inputDigest, "inputDigest");
            if (step < 0 || step >= WorkflowDefinition.MAX_STEPS || input.length > MAX_INPUT_BYTES) {
                throw new IllegalArgumentException("step index or input size out of range");
            }
            if (!Sha256Digest.hash(input).equals(inputDigest)) {
                throw new IllegalArgumentException("the input digest does not match the input");
            }
            input = input.clone();
        }

        @Override
        public byte[] input() {
            return input.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StepStarted s && step == s.step && Arrays.equals(input, s.input);
        }

        @Override
        public int hashCode() {
            return 31 * step + Arrays.hashCode(input);
        }

        @Override
        public String toString() {
            return "StepStarted[" + step + ", " + inputDigest + "]";
        }
    }

    /**
     * A step settled: how it ended, whether cleanup was proven, its codes, and its output when it
     * succeeded (already checked against the skill's output schema).
     *
     * @param step the step's index
     * @param status the settled status
     * @param cleanup the cleanup status
     * @param codes at most 16 distinct codes
     * @param checkedOutput the validated output bytes (only for {@code SUCCEEDED})
     */
    record StepSettled(
            int step,
            ExecutionStatus status,
            CleanupStatus cleanup,
            List<ErrorCode> codes,
            Optional<byte[]> checkedOutput)
            implements WorkflowRecord {
        public StepSettled {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(cleanup, "cleanup");
            codes = List.copyOf(codes);
            Objects.requireNonNull(checkedOutput, "checkedOutput");
            if (step < 0 || step >= WorkflowDefinition.MAX_STEPS || codes.size() > 16) {
                throw new IllegalArgumentException("step index or code count out of range");
            }
            if (checkedOutput.isPresent() && status != ExecutionStatus.SUCCEEDED) {
                throw new IllegalArgumentException("only a succeeded step has a checked output");
            }
            if (checkedOutput.isPresent() && checkedOutput.get().length > MAX_OUTPUT_BYTES) {
                throw new IllegalArgumentException("output too long");
            }
            checkedOutput = checkedOutput.map(byte[]::clone);
        }

        @Override
        public Optional<byte[]> checkedOutput() {
            return checkedOutput.map(byte[]::clone);
        }

        /** Whether this settlement leaves the step's effect unknown (cleanup not proven). */
        public boolean effectUnknown() {
            return cleanup == CleanupStatus.UNKNOWN || status == ExecutionStatus.CLEANUP_UNKNOWN;
        }

        /** Whether the step never started (refused before launch). */
        public boolean neverStarted() {
            return cleanup == CleanupStatus.NOT_STARTED && status == ExecutionStatus.REFUSED;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StepSettled s
                    && step == s.step
                    && status == s.status
                    && cleanup == s.cleanup
                    && codes.equals(s.codes)
                    && checkedOutput.isPresent() == s.checkedOutput.isPresent()
                    && (checkedOutput.isEmpty() || Arrays.equals(checkedOutput.get(), s.checkedOutput.get()));
        }

        @Override
        public int hashCode() {
            return Objects.hash(step, status, cleanup, codes, checkedOutput.map(Arrays::hashCode));
        }
    }

    /**
     * An operator's decision about a step whose effect was unknown.
     *
     * @param step the step's index
     * @param decision what the operator observed
     * @param note the operator's short note (at most 200 printable characters; may be empty)
     */
    record StepDecided(int step, OperatorDecision decision, String note) implements WorkflowRecord {
        public StepDecided {
            Objects.requireNonNull(decision, "decision");
            Objects.requireNonNull(note, "note");
            if (step < 0 || step >= WorkflowDefinition.MAX_STEPS) {
                throw new IllegalArgumentException("step index out of range");
            }
            if (note.length() > 200 || note.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException("a note is at most 200 characters without controls");
            }
        }
    }

    /** The final record. */
    record Ended(EndReason reason) implements WorkflowRecord {
        public Ended {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
