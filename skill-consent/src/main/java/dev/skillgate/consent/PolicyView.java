package dev.skillgate.consent;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A read-only view of the execution policy, safe mode and execute capabilities, for the engine and
 * anything agent-facing.
 *
 * <p>Every call re-reads: {@link #policy()} loads the store again, so a change saved by the
 * {@link PolicyAdmin} applies to the next check. Nothing reachable from a view writes policy,
 * trust, safe mode or capabilities; only the admin that created it can.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class PolicyView {
    private final ControlState state;

    PolicyView(ControlState state) {
        this.state = Objects.requireNonNull(state, "state");
    }

    /** The effective policy, read from the store now (BLOCKED with a diagnostic if unusable). */
    public PolicySnapshot policy() {
        return PolicySnapshot.of(state.load());
    }

    /** Whether safe mode is on (scripts are then refused whatever the policy says). */
    public boolean safeMode() {
        return state.safeMode();
    }

    /** Whether {@code capability} was granted by this view's admin and not revoked. */
    public boolean holds(ExecuteCapability capability) {
        return capability != null && state.holds(capability);
    }

    /** The launch gates over this view. */
    public LaunchGates launchGates() {
        return new LaunchGates(this);
    }
}
