package dev.skillgate.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyAdmin;
import dev.skillgate.consent.PolicyChange;
import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySettings;
import dev.skillgate.consent.PolicySnapshot;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.Receipt;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import dev.skillgate.testkit.internal.TestTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apiguardian.api.API;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of the {@link PolicyStore} SPI as a reusable test class (a TCK): a platform team that
 * implements a store extends this class and supplies a store over a location, a way to corrupt what
 * is stored there and, optionally, a way to make a save fail.
 *
 * <pre>{@code
 * class MyPolicyStoreContractTest extends AbstractPolicyStoreContractTest {
 *     @Override
 *     protected PolicyStore openStore(Path location) {
 *         return new MyPolicyStore(location);            // a new instance each call: a "restart"
 *     }
 *
 *     @Override
 *     protected void corruptStoredPolicy(Path location) throws IOException {
 *         // damage the stored bytes as a torn write or a foreign writer would
 *     }
 *
 *     @Override
 *     protected Optional<AutoCloseable> failReplaces(Path location) {
 *         return Optional.of(myStoreFaults.failWritesUntilClosed(location));
 *     }
 * }
 * }</pre>
 *
 * <p>Each test gets a fresh location: a path inside a new temporary directory that does not exist
 * yet (a file-based store creates it; any other store may use it as a key). What is asserted (SPEC §8
 * and the SPI's Javadoc):
 * <ul>
 *   <li>nothing stored loads {@code ABSENT} with the default settings (ask each time);
 *   <li>round trip: every mode, 0 to 64 scopes, receipts with nanosecond instants, non-ASCII and
 *       shell-hostile workspace paths (40 seeded random settings plus edge cases) load back equal,
 *       from the same instance and from a new one over the same location;
 *   <li>{@code load} re-reads: a second instance sees the first one's later saves;
 *   <li>receipts survive a restart: receipts minted by a {@link PolicyAdmin} over one store instance
 *       are loaded unchanged by a new instance, kept by the next save of the same scopes, and a
 *       removed scope stays revoked after another restart;
 *   <li>atomic save: while {@link #failReplaces} is in force, {@code replace} throws, and afterwards
 *       the previous policy is loaded (same and new instance) and no new files are left in the
 *       location's directory; concurrent readers during 100 replacements only ever see one of the two
 *       complete policies, never an unusable or mixed one;
 *   <li>a corrupt store: {@code load} does not throw, reports {@code UNUSABLE} with a
 *       {@code POLICY_CORRUPT} or {@code POLICY_IO} diagnostic and the default settings, the effective
 *       policy (snapshot and admin) is {@code BLOCKED} with no scopes, a new instance sees the same,
 *       and loading does not repair or change it.
 * </ul>
 * Not asserted: file permissions, link handling or size bounds (they depend on the medium; the
 * built-in file store has its own tests), and coordination between processes (not promised).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public abstract class AbstractPolicyStoreContractTest {

    /**
     * A new store instance over {@code location}. Called more than once per test: each call stands
     * for a restart of the host, so it must not share in-memory state with earlier instances.
     */
    protected abstract PolicyStore openStore(Path location) throws Exception;

    /**
     * Damages the policy stored at {@code location} (one was saved before) the way a torn write, a
     * bad disk or a foreign writer would; afterwards {@code load} must report it unusable.
     */
    protected abstract void corruptStoredPolicy(Path location) throws Exception;

    /**
     * Makes every {@code replace} at {@code location} fail — part-way, as a real fault would — until
     * the returned handle is closed. It is armed immediately before {@code replace} is called on the
     * test's thread and closed right after. Empty (the default) when the implementation has no such
     * fault to offer; the atomic-save test is then skipped, visibly.
     */
    protected Optional<AutoCloseable> failReplaces(Path location) throws Exception {
        return Optional.empty();
    }

    private Path temp;
    private Path location;

    @BeforeEach
    public final void freshLocation() throws IOException {
        temp = Files.createTempDirectory("skillgate-policy-tck-");
        location = temp.resolve("store");
    }

    @AfterEach
    public final void deleteLocation() throws IOException {
        TestTrees.delete(temp);
    }

    @Test
    public void nothingStoredLoadsAbsentAndAsksEachTime() throws Exception {
        PolicyLoad load = openStore(location).load();
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.ABSENT);
        assertThat(load.settings()).isEqualTo(PolicySettings.DEFAULT);
        assertThat(PolicySnapshot.of(load).mode()).isEqualTo(ExecutionPolicy.ASK_EACH_TIME);
    }

    @Test
    public void whatIsReplacedLoadsBackEqualFromTheSameAndANewInstance() throws Exception {
        PolicyStore store = openStore(location);
        List<PolicySettings> cases = new ArrayList<>();
        for (ExecutionPolicy mode : ExecutionPolicy.values()) {
            cases.add(new PolicySettings(mode, List.of()));
        }
        Random random = new Random(0x5EED_0001L);
        cases.add(randomSettings(random, Limits.TRUSTED_SCOPES, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        for (int i = 0; i < 40; i++) {
            ExecutionPolicy mode = ExecutionPolicy.values()[random.nextInt(ExecutionPolicy.values().length)];
            cases.add(randomSettings(random, random.nextInt(9), mode));
        }
        for (PolicySettings settings : cases) {
            store.replace(settings);
            assertThat(store.load()).as("same instance").isEqualTo(PolicyLoad.found(settings));
            assertThat(openStore(location).load()).as("new instance").isEqualTo(PolicyLoad.found(settings));
        }
    }

    @Test
    public void loadRereadsWhatAnotherInstanceSaved() throws Exception {
        PolicyStore first = openStore(location);
        PolicyStore second = openStore(location);
        Random random = new Random(0x5EED_0002L);
        PolicySettings a = randomSettings(random, 3, ExecutionPolicy.TRUST_SELECTED_REVISIONS);
        PolicySettings b = randomSettings(random, 2, ExecutionPolicy.ASK_EACH_TIME);
        first.replace(a);
        assertThat(second.load()).isEqualTo(PolicyLoad.found(a));
        first.replace(b);
        assertThat(second.load()).as("a load must re-read, not cache").isEqualTo(PolicyLoad.found(b));
        second.replace(a);
        assertThat(first.load()).isEqualTo(PolicyLoad.found(a));
    }

    @Test
    public void receiptsSurviveARestartAndRevocationStays() throws Exception {
        Random random = new Random(0x5EED_0003L);
        TrustScope kept = randomScope(random, 0);
        TrustScope removed = randomScope(random, 1);
        PolicyAdmin before = PolicyAdmin.open(openStore(location));
        ConsentResult<PolicyChange> saved =
                before.save(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(kept, removed)));
        assertThat(saved.isSuccess()).as(String.valueOf(saved)).isTrue();
        List<ScopeEntry> minted = before.currentPolicy().scopes();
        assertThat(minted).hasSize(2).allMatch(ScopeEntry::isApproved);

        PolicyAdmin restarted = PolicyAdmin.open(openStore(location));
        assertThat(restarted.currentPolicy().mode()).isEqualTo(ExecutionPolicy.TRUST_SELECTED_REVISIONS);
        assertThat(restarted.currentPolicy().scopes())
                .as("receipts (id and instant) after a restart")
                .isEqualTo(minted);
        ConsentResult<PolicyChange> again =
                restarted.save(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(kept, removed)));
        assertThat(again.isSuccess()).isTrue();
        assertThat(restarted.currentPolicy().scopes()).isEqualTo(minted);

        ConsentResult<PolicyChange> revoke =
                restarted.save(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(kept)));
        assertThat(revoke.isSuccess()).isTrue();
        PolicySnapshot third = PolicyAdmin.open(openStore(location)).currentPolicy();
        assertThat(third.scopes()).containsExactly(minted.get(0));
        Optional<Receipt> oldReceipt = minted.get(1).receipt();
        assertThat(third.scopes()).noneMatch(e -> e.receipt().equals(oldReceipt));
    }

    @Test
    public void aFailedReplaceLeavesThePreviousPolicyInForce() throws Exception {
        PolicyStore store = openStore(location);
        Random random = new Random(0x5EED_0004L);
        PolicySettings previous = randomSettings(random, 4, ExecutionPolicy.TRUST_SELECTED_REVISIONS);
        PolicySettings next = randomSettings(random, 6, ExecutionPolicy.TRUST_SELECTED_REVISIONS);
        store.replace(previous);
        List<String> filesBefore = listing();
        Optional<AutoCloseable> fault = failReplaces(location);
        assumeTrue(fault.isPresent(), "this store offers no way to make a replace fail (failReplaces is empty)");
        Throwable thrown;
        try (AutoCloseable armed = fault.get()) {
            thrown = catchThrowable(() -> store.replace(next));
        }
        assertThat(thrown)
                .as("replace must report the failure with an exception")
                .isInstanceOfAny(IOException.class, RuntimeException.class);
        assertThat(store.load()).as("same instance").isEqualTo(PolicyLoad.found(previous));
        assertThat(openStore(location).load()).as("new instance").isEqualTo(PolicyLoad.found(previous));
        assertThat(listing()).as("files left by the failed replace").isEqualTo(filesBefore);
        store.replace(next);
        assertThat(openStore(location).load()).as("a later replace works").isEqualTo(PolicyLoad.found(next));
    }

    @Test
    public void concurrentReadersSeeOnlyWholePolicies() throws Exception {
        PolicyStore writer = openStore(location);
        Random random = new Random(0x5EED_0005L);
        PolicySettings a = randomSettings(random, 20, ExecutionPolicy.TRUST_SELECTED_REVISIONS);
        PolicySettings b = randomSettings(random, 3, ExecutionPolicy.ASK_EACH_TIME);
        writer.replace(a);
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        CountDownLatch readersDone = new CountDownLatch(2);
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            PolicyStore reader = openStore(location);
            Thread t = new Thread(() -> {
                try {
                    while (!done.get()) {
                        PolicyLoad load = reader.load();
                        if (!load.equals(PolicyLoad.found(a)) && !load.equals(PolicyLoad.found(b))) {
                            problems.add(load.status() + " "
                                    + load.problem().map(Object::toString).orElse(""));
                        }
                    }
                } catch (RuntimeException e) {
                    problems.add("load threw " + e.getClass().getName());
                } finally {
                    readersDone.countDown();
                }
            });
            t.setDaemon(true);
            readers.add(t);
            t.start();
        }
        try {
            for (int i = 0; i < 100; i++) {
                writer.replace(i % 2 == 0 ? b : a);
            }
        } finally {
            done.set(true);
        }
        assertThat(readersDone.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(problems).as("loads that saw neither complete policy").isEmpty();
    }

    @Test
    public void aCorruptStoreLoadsUnusableAndThePolicyIsBlocked() throws Exception {
        Random random = new Random(0x5EED_0006L);
        PolicyAdmin admin = PolicyAdmin.open(openStore(location));
        ConsentResult<PolicyChange> saved = admin.save(new PolicyUpdate(
                ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(randomScope(random, 0), randomScope(random, 1))));
        assertThat(saved.isSuccess()).isTrue();

        corruptStoredPolicy(location);

        PolicyStore store = openStore(location);
        for (PolicyStore s : List.of(store, openStore(location), store)) {
            PolicyLoad[] load = new PolicyLoad[1];
            assertThatCode(() -> load[0] = s.load())
                    .as("load must not throw for bad stored data")
                    .doesNotThrowAnyException();
            assertThat(load[0].status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
            assertThat(load[0].settings()).isEqualTo(PolicySettings.DEFAULT);
            assertThat(load[0].problem())
                    .get()
                    .satisfies(d -> assertThat(d.code()).isIn(ErrorCode.POLICY_CORRUPT, ErrorCode.POLICY_IO));
            PolicySnapshot effective = PolicySnapshot.of(load[0]);
            assertThat(effective.mode()).isEqualTo(ExecutionPolicy.BLOCKED);
            assertThat(effective.scopes()).isEmpty();
            assertThat(effective.isUnusable()).isTrue();
        }
        PolicySnapshot viaAdmin = PolicyAdmin.open(openStore(location)).currentPolicy();
        assertThat(viaAdmin.mode()).isEqualTo(ExecutionPolicy.BLOCKED);
        assertThat(viaAdmin.scopes())
                .as("no receipt survives from a corrupt store")
                .isEmpty();
        assertThat(viaAdmin.problems()).isNotEmpty();
    }

    // ------------------------------------------------------------------------------------------

    private List<String> listing() throws IOException {
        try (Stream<Path> s = Files.walk(temp)) {
            return s.map(p -> temp.relativize(p).toString()).sorted().toList();
        }
    }

    private static final String[] PATH_PARTS = {
        "home",
        "Ada Lovelace",
        "w\u00f6rk",
        "\u4e2d\u6587",
        "$(touch x)",
        "'q'",
        "\"d\"",
        "a;b|c&",
        "tab\there",
        "e\u0301"
    };

    private static TrustScope randomScope(Random random, int index) {
        byte[] content = new byte[16];
        random.nextBytes(content);
        StringBuilder path = new StringBuilder();
        int depth = 1 + random.nextInt(4);
        for (int i = 0; i < depth; i++) {
            path.append('/').append(PATH_PARTS[random.nextInt(PATH_PARTS.length)]);
        }
        path.append("/w").append(index);
        return new TrustScope(
                new Revision(Sha256Digest.hash(content)),
                AgentId.of("agent-" + random.nextInt(5) + ".x:" + index),
                new WorkspaceIdentity(
                        Path.of(path.toString()), "(dev=" + random.nextInt(1000) + ",ino=" + random.nextLong() + ")"),
                new Timeout(Timeout.MIN_MILLIS + random.nextInt(Timeout.MAX_MILLIS - Timeout.MIN_MILLIS + 1)),
                new OutputLimit(1 + random.nextInt(OutputLimit.MAX_BYTES)));
    }

    private static PolicySettings randomSettings(Random random, int scopes, ExecutionPolicy mode) {
        List<ScopeEntry> entries = new ArrayList<>();
        for (int i = 0; i < scopes; i++) {
            Optional<Receipt> receipt = random.nextBoolean()
                    ? Optional.of(new Receipt(
                            new UUID(random.nextLong(), random.nextLong()),
                            Instant.ofEpochSecond(
                                    946_684_800L + random.nextInt(2_000_000_000), random.nextInt(1_000_000_000))))
                    : Optional.empty();
            entries.add(new ScopeEntry(randomScope(random, i), receipt));
        }
        return new PolicySettings(mode, entries);
    }
}
