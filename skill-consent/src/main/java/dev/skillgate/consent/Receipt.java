package dev.skillgate.consent;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * The approval record of one trusted-revision scope: a random UUID and the UTC instant the local
 * user's save approved it.
 *
 * <p>Receipts are minted by {@link PolicyAdmin#save} (the store side), never taken from a caller:
 * {@link PolicyUpdate} has no place for one, and receipts in submitted JSON are ignored. This
 * constructor exists so that a {@code PolicyStore} can read back what it stored. A receipt is an
 * active approval record, not an audit entry; the audit log keeps history.
 *
 * @param id the receipt id
 * @param approvedAt when the scope was approved (UTC)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Receipt(UUID id, Instant approvedAt) {
    public Receipt {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(approvedAt, "approvedAt");
    }
}
