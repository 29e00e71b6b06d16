package dev.skillgate.workflow;

import java.util.List;
import org.apiguardian.api.API;

/**
 * What a retention cleanup removed: only workflows that had ended before the retention period, each
 * as its head was. The host records it in its audit log.
 *
 * @param removed the removed workflows
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record RetentionReport(List<StoredWorkflow> removed) {
    public RetentionReport {
        removed = List.copyOf(removed);
    }
}
