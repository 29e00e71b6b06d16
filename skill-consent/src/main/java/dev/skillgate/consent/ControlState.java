package dev.skillgate.consent;

import dev.skillgate.consent.spi.PolicyStore;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * State shared by one {@link PolicyAdmin} (the writer) and its {@link PolicyView}s (readers). Not
 * public: nothing outside this package can reach the store or change a switch through it.
 */
final class ControlState {
    final PolicyStore store;
    private volatile boolean safeMode;
    private final Set<ExecuteCapability> capabilities = Collections.newSetFromMap(new IdentityHashMap<>());

    ControlState(PolicyStore store, boolean safeMode) {
        this.store = store;
        this.safeMode = safeMode;
    }

    boolean safeMode() {
        return safeMode;
    }

    void setSafeMode(boolean on) {
        safeMode = on;
    }

    synchronized void addCapability(ExecuteCapability capability) {
        capabilities.add(capability);
    }

    synchronized boolean removeCapability(ExecuteCapability capability) {
        return capabilities.remove(capability);
    }

    synchronized boolean holds(ExecuteCapability capability) {
        return capability.issuedBy(this) && capabilities.contains(capability);
    }

    /** Reads the store; a store that throws is unusable (fail closed), never a crash. */
    PolicyLoad load() {
        try {
            PolicyLoad load = store.load();
            if (load == null) {
                return PolicyLoad.unusable(
                        dev.skillgate.model.ErrorCode.POLICY_IO, "the policy store returned nothing");
            }
            return load;
        } catch (RuntimeException e) {
            return PolicyLoad.unusable(
                    dev.skillgate.model.ErrorCode.POLICY_IO,
                    "the policy store failed (" + e.getClass().getSimpleName() + ")");
        }
    }
}
