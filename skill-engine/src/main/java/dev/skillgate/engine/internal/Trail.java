package dev.skillgate.engine.internal;

import dev.skillgate.consent.ConsumedGrant;
import dev.skillgate.consent.TrustedRevisionLaunch;
import dev.skillgate.model.Diagnostic;
import java.util.Optional;

/** The engine's hooks into the trust audit log. Not API. */
public interface Trail {

    /**
     * Records that {@code grant} was consumed, durably, before the launch.
     *
     * @return why the record could not be committed (the launch is then refused), or empty
     */
    Optional<Diagnostic> consumed(ConsumedGrant grant);

    /** Whether the audit log vouches for the receipt behind {@code launch}. */
    boolean vouchesFor(TrustedRevisionLaunch launch);

    /** No audit log: records nothing, vouches for every receipt the policy store holds. */
    Trail NONE = new Trail() {
        @Override
        public Optional<Diagnostic> consumed(ConsumedGrant grant) {
            return Optional.empty();
        }

        @Override
        public boolean vouchesFor(TrustedRevisionLaunch launch) {
            return true;
        }
    };
}
