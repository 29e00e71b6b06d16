package dev.skillgate.consent;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * What a {@code PolicyStore} found: stored settings, nothing (never saved), or an unusable store.
 *
 * <p>An unusable store (malformed, unreadable, unsafe file) makes the effective policy
 * {@link ExecutionPolicy#BLOCKED} with the problem as a diagnostic; it never throws and never
 * applies part of what it read.
 *
 * @param status what was found
 * @param settings the stored settings when {@code FOUND}, {@link PolicySettings#DEFAULT} otherwise
 * @param problem why the store is unusable, when {@code UNUSABLE}
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PolicyLoad(Status status, PolicySettings settings, Optional<Diagnostic> problem) {

    /** What a load found. */
    public enum Status {
        /** Stored settings were read and are valid. */
        FOUND,
        /** Nothing was ever stored: the default policy applies. */
        ABSENT,
        /** The store exists but cannot be used: policy is blocked. */
        UNUSABLE
    }

    public PolicyLoad {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(problem, "problem");
        if ((status == Status.UNUSABLE) != problem.isPresent()) {
            throw new IllegalArgumentException("a problem is present exactly when the store is unusable");
        }
        if (status != Status.FOUND && !settings.equals(PolicySettings.DEFAULT)) {
            throw new IllegalArgumentException("only a FOUND load carries stored settings");
        }
    }

    /** Stored settings. */
    public static PolicyLoad found(PolicySettings settings) {
        return new PolicyLoad(Status.FOUND, settings, Optional.empty());
    }

    /** Nothing stored. */
    public static PolicyLoad absent() {
        return new PolicyLoad(Status.ABSENT, PolicySettings.DEFAULT, Optional.empty());
    }

    /** An unusable store with the reason ({@link ErrorCode#POLICY_CORRUPT} or {@link ErrorCode#POLICY_IO}). */
    public static PolicyLoad unusable(ErrorCode code, String message) {
        return new PolicyLoad(
                Status.UNUSABLE, PolicySettings.DEFAULT, Optional.of(Diagnostic.error(code, "", message)));
    }
}
