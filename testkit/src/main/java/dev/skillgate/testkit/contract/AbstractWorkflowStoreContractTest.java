package dev.skillgate.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.testkit.internal.TestTrees;
import dev.skillgate.workflow.InstanceId;
import dev.skillgate.workflow.OwnerIdentity;
import dev.skillgate.workflow.ProcessIdentity;
import dev.skillgate.workflow.SealedRecord;
import dev.skillgate.workflow.StoredWorkflow;
import dev.skillgate.workflow.TakeoverCondition;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowStore;
import dev.skillgate.workflow.WorkflowStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of the {@link WorkflowStore} SPI as a reusable test class (a TCK): an implementer
 * extends it and supplies {@link #openStore} — a new instance over the same location per call (a
 * restart, or another instance of the host on the same shared store).
 *
 * <p>What it asserts: records round-trip byte for byte through another instance; an append with a
 * stale fencing token, out of sequence, or after the end changes nothing; a lease takeover is refused
 * while the lease runs and allowed after it ended; a proven-dead takeover ignores the lease; a
 * takeover raises the token and fences the old owner's appends and renewals; races between separate
 * instances — 8 appends of the same next record, 8 takeovers of one workflow — have exactly one
 * winner; retention removes only ended workflows. Not asserted: crash safety (the built-in stores
 * have crash-loop tests) and the store's durability configuration.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public abstract class AbstractWorkflowStoreContractTest {

    /** A new store instance over {@code location} (each call: another process on the same store). */
    protected abstract WorkflowStore openStore(Path location) throws Exception;

    private Path temp;
    private Path location;
    private final List<WorkflowStore> opened = new ArrayList<>();

    @BeforeEach
    public final void freshLocation() throws IOException {
        temp = Files.createTempDirectory("skillgate-workflow-tck-");
        location = temp.resolve("store");
    }

    @AfterEach
    public final void closeAndDelete() throws IOException {
        opened.forEach(WorkflowStore::close);
        TestTrees.delete(temp);
    }

    private WorkflowStore store() throws Exception {
        WorkflowStore s = openStore(location);
        opened.add(s);
        return s;
    }

    private static OwnerIdentity owner(String name) {
        return new OwnerIdentity(InstanceId.of(name), "tck-host", Optional.of(new ProcessIdentity(4242, "12345")));
    }

    private static SealedRecord record(WorkflowId id, int sequence, long token, Random random) {
        byte[] bytes = new byte[1 + random.nextInt(2000)];
        random.nextBytes(bytes);
        return new SealedRecord(id, sequence, 1, token, bytes);
    }

    private static ErrorCode code(Callable<?> call) {
        WorkflowStoreException e = catchThrowableOfType(() -> call.call(), WorkflowStoreException.class);
        assertThat(e).as("a WorkflowStoreException").isNotNull();
        return e.code();
    }

    @Test
    public void recordsRoundTripThroughAnotherInstance() throws Exception {
        Random random = new Random(0x5EED_0101L);
        WorkflowStore a = store();
        WorkflowId id = WorkflowId.random();
        List<SealedRecord> written = new ArrayList<>();
        written.add(record(id, 0, 1, random));
        StoredWorkflow head = a.create(owner("a"), Duration.ofMinutes(1), written.get(0));
        assertThat(head.fencingToken()).isEqualTo(1);
        assertThat(head.records()).isEqualTo(1);
        assertThat(head.owner()).isEqualTo(owner("a"));
        for (int i = 1; i < 20; i++) {
            written.add(record(id, i, 1, random));
            head = a.append(id, 1, written.get(i), false);
            assertThat(head.records()).isEqualTo(i + 1);
        }
        WorkflowStore b = store();
        assertThat(b.records(id)).containsExactlyElementsOf(written);
        assertThat(b.find(id)).contains(head);
        assertThat(b.list(100)).extracting(StoredWorkflow::id).contains(id);
        assertThat(b.find(WorkflowId.random())).isEmpty();
        assertThat(code(() -> b.create(owner("b"), Duration.ofMinutes(1), record(id, 0, 1, random))))
                .isEqualTo(ErrorCode.WORKFLOW_INVALID);
    }

    @Test
    public void aStaleTokenAWrongSequenceAndAnEndedWorkflowChangeNothing() throws Exception {
        Random random = new Random(0x5EED_0102L);
        WorkflowStore s = store();
        WorkflowId id = WorkflowId.random();
        s.create(owner("a"), Duration.ofMinutes(1), record(id, 0, 1, random));
        assertThat(code(() -> s.append(id, 2, record(id, 1, 2, random), false))).isEqualTo(ErrorCode.WORKFLOW_FENCED);
        assertThat(code(() -> s.append(id, 1, record(id, 2, 1, random), false))).isEqualTo(ErrorCode.WORKFLOW_INVALID);
        assertThat(code(() -> s.renew(id, 7, Duration.ofMinutes(1)))).isEqualTo(ErrorCode.WORKFLOW_FENCED);
        assertThat(s.find(id).orElseThrow().records()).isEqualTo(1);
        StoredWorkflow ended = s.append(id, 1, record(id, 1, 1, random), true);
        assertThat(ended.endedAt()).isPresent();
        assertThat(code(() -> s.append(id, 1, record(id, 2, 1, random), false))).isEqualTo(ErrorCode.WORKFLOW_TERMINAL);
        assertThat(store().find(id).orElseThrow().records()).isEqualTo(2);
        assertThat(code(() -> s.append(WorkflowId.random(), 1, record(id, 1, 1, random), false)))
                .isIn(ErrorCode.WORKFLOW_INVALID, ErrorCode.WORKFLOW_NOT_FOUND);
    }

    @Test
    public void aLeaseTakeoverWaitsForTheLeaseAndFencesTheOldOwner() throws Exception {
        Random random = new Random(0x5EED_0103L);
        WorkflowStore a = store();
        WorkflowStore b = store();
        WorkflowId id = WorkflowId.random();
        a.create(owner("a"), Duration.ofMillis(700), record(id, 0, 1, random));
        assertThat(code(() -> b.takeOver(id, 1, owner("b"), Duration.ofMinutes(1), TakeoverCondition.LEASE_EXPIRED)))
                .isEqualTo(ErrorCode.WORKFLOW_OWNER_ALIVE);
        Thread.sleep(1000);
        StoredWorkflow taken = b.takeOver(id, 1, owner("b"), Duration.ofMinutes(1), TakeoverCondition.LEASE_EXPIRED);
        assertThat(taken.fencingToken()).isEqualTo(2);
        assertThat(taken.owner()).isEqualTo(owner("b"));
        assertThat(code(() -> a.append(id, 1, record(id, 1, 1, random), false))).isEqualTo(ErrorCode.WORKFLOW_FENCED);
        assertThat(code(() -> a.renew(id, 1, Duration.ofMinutes(1)))).isEqualTo(ErrorCode.WORKFLOW_FENCED);
        assertThat(code(() ->
                        a.takeOver(id, 1, owner("a"), Duration.ofMinutes(1), TakeoverCondition.OWNER_PROVEN_DEAD)))
                .isEqualTo(ErrorCode.WORKFLOW_FENCED);
        assertThat(b.append(id, 2, record(id, 1, 2, random), false).records()).isEqualTo(2);
        assertThat(a.records(id)).hasSize(2);
    }

    @Test
    public void aProvenDeadTakeoverIgnoresTheLeaseAndRenewalExtendsIt() throws Exception {
        Random random = new Random(0x5EED_0104L);
        WorkflowStore a = store();
        WorkflowId id = WorkflowId.random();
        StoredWorkflow created = a.create(owner("a"), Duration.ofMinutes(10), record(id, 0, 1, random));
        StoredWorkflow renewed = a.renew(id, 1, Duration.ofMinutes(20));
        assertThat(renewed.leaseExpiresAt()).isAfter(created.leaseExpiresAt());
        StoredWorkflow taken =
                store().takeOver(id, 1, owner("b"), Duration.ofMinutes(1), TakeoverCondition.OWNER_PROVEN_DEAD);
        assertThat(taken.fencingToken()).isEqualTo(2);
    }

    @Test
    public void racingAppendsAndTakeoversHaveExactlyOneWinner() throws Exception {
        Random random = new Random(0x5EED_0105L);
        WorkflowStore first = store();
        List<WorkflowStore> racers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            racers.add(store());
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 10; round++) {
                WorkflowId id = WorkflowId.random();
                first.create(owner("a"), Duration.ofMillis(1), record(id, 0, 1, random));
                SealedRecord next = record(id, 1, 1, random);
                assertThat(race(pool, racers, s -> s.append(id, 1, next, false)))
                        .as("appends, round %d", round)
                        .isEqualTo(1);
                assertThat(first.records(id)).hasSize(2);
                Thread.sleep(5);
                assertThat(race(
                                pool,
                                racers,
                                s -> s.takeOver(
                                        id, 1, owner("b"), Duration.ofMinutes(1), TakeoverCondition.LEASE_EXPIRED)))
                        .as("takeovers, round %d", round)
                        .isEqualTo(1);
                assertThat(first.find(id).orElseThrow().fencingToken()).isEqualTo(2);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private interface Op {
        StoredWorkflow apply(WorkflowStore s) throws Exception;
    }

    private static int race(ExecutorService pool, List<WorkflowStore> racers, Op op) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (WorkflowStore s : racers) {
            results.add(pool.submit(() -> {
                go.await();
                try {
                    op.apply(s);
                    return true;
                } catch (WorkflowStoreException e) {
                    assertThat(e.code()).isIn(ErrorCode.WORKFLOW_INVALID, ErrorCode.WORKFLOW_FENCED);
                    return false;
                }
            }));
        }
        go.countDown();
        int wins = 0;
        for (Future<Boolean> f : results) {
            if (f.get(60, TimeUnit.SECONDS)) {
                wins++;
            }
        }
        return wins;
    }

    @Test
    public void retentionRemovesOnlyEndedWorkflows() throws Exception {
        Random random = new Random(0x5EED_0106L);
        WorkflowStore s = store();
        WorkflowId ended = WorkflowId.random();
        WorkflowId open = WorkflowId.random();
        s.create(owner("a"), Duration.ofMillis(1), record(ended, 0, 1, random));
        s.create(owner("a"), Duration.ofMillis(1), record(open, 0, 1, random));
        s.append(ended, 1, record(ended, 1, 1, random), true);
        assertThat(s.purgeEnded(Duration.ofHours(1))).isEmpty();
        Thread.sleep(50);
        assertThat(s.purgeEnded(Duration.ZERO)).extracting(StoredWorkflow::id).containsExactly(ended);
        assertThat(s.find(ended)).isEmpty();
        assertThat(s.find(open)).isPresent();
        assertThat(code(() -> s.records(ended))).isEqualTo(ErrorCode.WORKFLOW_NOT_FOUND);
    }
}
