package dev.skillgate.audit.internal;

import java.util.Optional;

/** The record types of log format version 1; the byte is stored in every frame. */
enum RecordType {
    /** Trust granted to a scope. */
    APPROVE(1),
    /** Trust removed from a scope. */
    REVOKE(2),
    /** First record of a log started by an operator repair; carries the evidence of the old one. */
    REPAIR(3),
    /** A consent grant was consumed (informational; never grants trust). */
    CONSUME(4),
    /** The execution policy changed (informational; never grants trust). */
    POLICY_CHANGE(5),
    /** An authorised execution settled (informational; never grants trust). */
    SETTLE(6),
    /** An operator resolved an execution whose cleanup was unknown (informational). */
    RESOLVE(7),
    /** A workflow plan was approved for one run (informational; the plan lives in memory). */
    PLAN_APPROVE(8),
    /** A step of an approved workflow plan was used (informational; never grants trust). */
    PLAN_STEP(9),
    /** A durable workflow was taken over, had an unknown step decided, or was removed by retention (informational). */
    WORKFLOW(10),
    /** A human's answer arrived after the engine stopped waiting for it and was ignored (informational). */
    LATE_ANSWER(11);

    final int code;

    RecordType(int code) {
        this.code = code;
    }

    /** The type with this stored byte; empty for an unknown byte (never skipped: corrupt). */
    static Optional<RecordType> of(int code) {
        for (RecordType t : values()) {
            if (t.code == code) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
