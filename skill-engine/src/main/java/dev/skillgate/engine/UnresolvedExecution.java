package dev.skillgate.engine;

import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * An execution whose process-tree cleanup is not proven, or whose settlement is not in the audit log:
 * listed by {@link SkillGate#unresolved()}, never replayed automatically.
 *
 * <p>Only an operator action resolves one ({@link SkillGateAdmin#resolve}): a retained staging
 * directory only after the staging janitor has proven every recorded owner dead and the resolution
 * was committed to the audit log; an unrecorded settlement by committing its record.
 *
 * @param run the run id
 * @param skill the skill, when known (unknown for a directory left by an earlier process)
 * @param revision the revision that ran; for a directory left by an earlier process, the revision
 *     of the retained bundle as found on disk
 * @param time when the execution started, or the directory's last modification for one left by an
 *     earlier process
 * @param retainedStaging the staging directory kept for inspection, when there is one
 * @param state why it is listed
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record UnresolvedExecution(
        RunId run,
        Optional<SkillName> skill,
        Optional<Revision> revision,
        Instant time,
        Optional<Path> retainedStaging,
        State state) {

    /** Why an execution is unresolved. */
    public enum State {
        /** An outcome was delivered early (cancel, caller deadline, close); the runner has not settled yet. */
        SETTLING,
        /** The runner settled without proving that the process tree is gone. */
        CLEANUP_UNKNOWN,
        /** A staging directory left by an earlier process, not resolved yet (see {@link SkillGateAdmin#resolve}). */
        RETAINED_ON_DISK,
        /**
         * The execution settled (cleanup proven or nothing started) but its settlement record could not be
         * committed to the audit log; {@link SkillGateAdmin#resolve} records it.
         */
        SETTLEMENT_UNRECORDED
    }

    public UnresolvedExecution {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(retainedStaging, "retainedStaging");
        Objects.requireNonNull(state, "state");
    }
}
