package dev.skillgate.engine;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The outcome of {@link SkillGate#activate}: the approved instructions of a prompt skill, or why
 * the agent may not use them.
 *
 * <p>{@link Activated#instructions()} is the {@code SKILL.md} text of the immutable capture that was
 * checked and approved — never re-read from the (mutable) skill directory. Activation never runs the
 * skill's script; that needs its own consent. Approved instructions are not thereby safe.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface Activation permits Activation.Activated, Activation.Refused {

    /** Whether the agent may use the instructions. */
    boolean activated();

    /**
     * The agent may use these instructions.
     *
     * @param skill the skill
     * @param revision the revision of the capture the text comes from
     * @param contract the SHA-256 of the accepted contract, empty when the skill has none
     * @param instructions the captured {@code SKILL.md} text
     * @param askedNow whether the human approved this scope now (first use); false when the audit log
     *     already trusted it
     */
    record Activated(
            SkillName skill, Revision revision, Optional<Sha256Digest> contract, String instructions, boolean askedNow)
            implements Activation {
        public Activated {
            Objects.requireNonNull(skill, "skill");
            Objects.requireNonNull(revision, "revision");
            Objects.requireNonNull(contract, "contract");
            Objects.requireNonNull(instructions, "instructions");
        }

        @Override
        public boolean activated() {
            return true;
        }

        /** Never prints the instructions. */
        @Override
        public String toString() {
            return "Activated[" + skill + ", " + revision + ", " + instructions.length() + " chars, askedNow="
                    + askedNow + "]";
        }
    }

    /**
     * The agent may not use the skill.
     *
     * @param skill the skill asked for
     * @param reasons why (at least one)
     */
    record Refused(SkillName skill, List<Diagnostic> reasons) implements Activation {
        public Refused {
            Objects.requireNonNull(skill, "skill");
            reasons = List.copyOf(reasons);
            if (reasons.isEmpty()) {
                throw new IllegalArgumentException("a refusal needs a reason");
            }
        }

        @Override
        public boolean activated() {
            return false;
        }

        /** The reasons' codes, in order. */
        public List<ErrorCode> codes() {
            return reasons.stream().map(Diagnostic::code).toList();
        }
    }
}
