package dev.skillgate.consent.spi;

import dev.skillgate.consent.PolicyAdmin;
import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySettings;
import dev.skillgate.consent.internal.FilePolicyStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import org.apiguardian.api.API;

/**
 * Persists the execution policy (SPEC §8). Platform teams may supply their own; the default is a
 * private JSON file ({@link #privateFile}).
 *
 * <p>A store only keeps what {@link PolicyAdmin} gives it: receipts are minted by the admin's save,
 * never by callers. Contract: {@link #load} never throws for bad stored data — it reports it as
 * {@link PolicyLoad.Status#UNUSABLE} (the policy is then {@code BLOCKED}); it is called before every
 * launch, so it must be cheap and must re-read rather than cache. {@link #replace} is atomic:
 * afterwards a load returns either the old or the new settings, never a mixture. A store is trusted
 * code: anything that can write it can grant trust, so never hand one to agent-facing code.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface PolicyStore {

    /** Reads the stored policy. Never throws for malformed or unsafe stored data. */
    PolicyLoad load();

    /** Atomically replaces the stored policy; on an exception the old policy is still in force. */
    void replace(PolicySettings settings) throws IOException;

    /**
     * Reads the stored policy, lets {@code change} compute the next one from exactly what was read,
     * and stores it, as one atomic step: no other {@code update} of this store can read or write in
     * between. {@link PolicyAdmin#save} mints receipts inside it, so two admins saving the same new
     * scope at once mint one receipt, not two — the second sees the first's receipt and keeps it.
     *
     * <p>The default serialises updates through this store instance only ({@code load} then
     * {@code replace} under its monitor): enough for one process. A store shared by several
     * processes or machines must override it with a real transaction (the PostgreSQL store holds a
     * row lock from the read to the commit). {@code change} may be called more than once if the
     * store retries; it must not have side effects beyond its result. When it returns empty, nothing
     * is written.
     *
     * @throws IOException when the new policy could not be stored; the old one is then still in force
     */
    default void update(Function<PolicyLoad, Optional<PolicySettings>> change) throws IOException {
        synchronized (this) {
            Optional<PolicySettings> next = change.apply(load());
            if (next.isPresent()) {
                replace(next.get());
            }
        }
    }

    /**
     * The default store: {@code directory/policy.json}, directory 0700 and file 0600 where POSIX
     * permissions exist, replaced atomically (temp file in the same directory, fsync, atomic rename,
     * fsync of the directory), read with a size bound and a strict parser, links never followed. A
     * malformed, oversized, linked or group/world-writable file makes the policy {@code BLOCKED}
     * with a diagnostic; it never crashes the host.
     */
    static PolicyStore privateFile(Path directory) {
        return new FilePolicyStore(directory);
    }
}
