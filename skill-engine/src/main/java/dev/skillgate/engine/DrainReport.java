package dev.skillgate.engine;

import dev.skillgate.model.RunId;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What {@link SkillGate#close(Duration)} found: how many in-flight executions it stopped, how many
 * settled within the wait, and which did not.
 *
 * <p>An execution that did not settle keeps being supervised by its runner thread (and its
 * watchdog); it is listed by {@link SkillGate#unresolved()} and its staging directory is retained.
 *
 * @param stopped executions that were still in flight and were stopped
 * @param settled of those, how many settled within the wait
 * @param unsettled the runs that did not settle within the wait
 * @param waited how long the drain waited
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record DrainReport(int stopped, int settled, List<RunId> unsettled, Duration waited) {
    public DrainReport {
        unsettled = List.copyOf(unsettled);
        Objects.requireNonNull(waited, "waited");
        if (stopped < 0 || settled < 0 || settled > stopped) {
            throw new IllegalArgumentException("0 <= settled <= stopped");
        }
    }

    /** Whether everything that was in flight settled. */
    public boolean complete() {
        return unsettled.isEmpty();
    }
}
