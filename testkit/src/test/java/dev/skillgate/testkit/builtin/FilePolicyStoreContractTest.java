package dev.skillgate.testkit.builtin;

import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.testkit.contract.AbstractPolicyStoreContractTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Optional;

/**
 * The policy-store TCK against the built-in private file ({@link PolicyStore#privateFile}).
 *
 * <p>Corruption is a torn write: {@code policy.json} cut to half its length in place. The replace
 * fault is an interrupted writer: the store writes through a {@code FileChannel}, which abandons the
 * write with {@code ClosedByInterruptException} when the writing thread is interrupted — after the
 * temporary file was created, so the fault lands in the middle of a save. (Permissions cannot be
 * used: these tests may run as root, for whom a read-only directory is writable.)
 */
// snippet:begin policy-store-contract (docs/testkit.md)
class FilePolicyStoreContractTest extends AbstractPolicyStoreContractTest {
    @Override
    protected PolicyStore openStore(Path location) {
        return PolicyStore.privateFile(location);
    }

    @Override
    protected void corruptStoredPolicy(Path location) throws IOException {
        Path file = location.resolve("policy.json");
        byte[] whole = Files.readAllBytes(file);
        Files.write(
                file,
                Arrays.copyOf(whole, whole.length / 2),
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING,
                LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    protected Optional<AutoCloseable> failReplaces(Path location) {
        Thread.currentThread().interrupt();
        return Optional.of(Thread::interrupted);
    }
}
// snippet:end policy-store-contract
