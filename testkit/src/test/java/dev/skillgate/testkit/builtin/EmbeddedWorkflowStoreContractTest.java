package dev.skillgate.testkit.builtin;

import dev.skillgate.testkit.contract.AbstractWorkflowStoreContractTest;
import dev.skillgate.workflow.WorkflowStore;
import java.nio.file.Path;

/** The embedded file store against the workflow store TCK. */
class EmbeddedWorkflowStoreContractTest extends AbstractWorkflowStoreContractTest {
    @Override
    protected WorkflowStore openStore(Path location) {
        return WorkflowStore.embedded(location);
    }
}
