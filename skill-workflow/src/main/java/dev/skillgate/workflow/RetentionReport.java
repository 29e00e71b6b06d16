package dev.skillgate.workflow;

import java.util.List;

/**
 * What a retention cleanup removed: only workflows that had ended before the retention period, each
 * as its head was. The host records it in its audit log.
 *
 * @param removed the removed workflows
 */
public record RetentionReport(List<StoredWorkflow> removed) {
    public RetentionReport {
        removed = List.copyOf(removed);
    }
}
