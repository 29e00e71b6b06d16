package dev.skillgate.benchmarks.tree;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditTree;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.tlog.CompactTree;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.SignedNote;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;

/**
 * {@code benchmarks/bench audit-tree [appends]}: what the audit log's Merkle tree costs (issue 22).
 *
 * <ol>
 *   <li>Appends, interleaved in rounds of 50: a committed {@link AuditLog#approve} (chain, tree, v2
 *       head, three syncs) beside the tree's own per-append work as the writer does it (copy of the
 *       compact tree, one leaf hash of a 320-byte frame, the root). This build has no writer without
 *       the tree, so "without" is reported as the committed append minus the tree's share, not
 *       measured on its own.
 *   <li>100,000 records (built on {@code /dev/shm} when present, then copied to the temporary
 *       directory): read-only open, {@link AuditLog#tree()} plus a signed checkpoint, every
 *       inclusion proof with its record read back, and 1,000 tlog-proof files.
 * </ol>
 */
public final class AuditTreeCost {
    private AuditTreeCost() {}

    public static void main(String[] args) throws Exception {
        int appends = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
        System.out.println(Machine.describe());
        appends(appends);
        hundredThousand();
        System.out.println("load average after: " + Machine.loadAverage().orElse("unknown"));
    }

    private static PromptSkillScope scope(int i) {
        return new PromptSkillScope(
                AgentId.of("agent-" + Math.floorMod(i, 3)),
                SkillName.of("skill-" + i),
                Optional.empty(),
                new Revision(Sha256Digest.hash(("rev " + i).getBytes(StandardCharsets.UTF_8))));
    }

    private static void appends(int n) throws Exception {
        Path base = Files.createTempDirectory("skillgate-bench-tree-");
        try (AuditLog log = AuditLog.open(AuditLogOptions.builder(base.resolve("audit"))
                .openWait(Duration.ofSeconds(60))
                .build())) {
            CompactTree tree = CompactTree.empty();
            byte[] frame = new byte[320];
            long[] committed = new long[n];
            long[] treeOnly = new long[n];
            for (int w = 0; w < 50; w++) { // warm-up
                log.approve(scope(1_000_000 + w));
                CompactTree t = tree.copy();
                t.appendData(frame, 0, frame.length);
                t.root();
            }
            int done = 0;
            while (done < n) {
                int round = Math.min(50, n - done);
                for (int i = 0; i < round; i++) {
                    long t0 = System.nanoTime();
                    if (!log.approve(scope(done + i)).isCommitted()) {
                        throw new IllegalStateException("append failed");
                    }
                    committed[done + i] = System.nanoTime() - t0;
                }
                for (int i = 0; i < round; i++) {
                    frame[i % frame.length]++;
                    long t0 = System.nanoTime();
                    CompactTree next = tree.copy();
                    next.appendData(frame, 0, frame.length);
                    next.root();
                    tree = next;
                    treeOnly[done + i] = System.nanoTime() - t0;
                }
                done += round;
            }
            double c = median(committed) / 1_000.0;
            double t = median(treeOnly) / 1_000.0;
            System.out.printf(
                    "appends (%d, %s): committed approve median %.1f us (%.0f/s); the tree's share median %.2f us"
                            + " (%.3f%% of an append); without the tree (difference) %.1f us%n",
                    n, base, c, 1e6 / c, t, 100 * t / c, c - t);
        } finally {
            Bundles.deleteTree(base);
        }
    }

    private static void hundredThousand() throws Exception {
        int records = 100_000;
        Path shm = Path.of("/dev/shm");
        Path build = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "skillgate-bench-tree-")
                : Files.createTempDirectory("skillgate-bench-tree-build-");
        Path base = Files.createTempDirectory("skillgate-bench-tree-100k-");
        try {
            try (AuditLog log = AuditLog.open(AuditLogOptions.builder(build.resolve("audit"))
                    .openWait(Duration.ofSeconds(60))
                    .build())) {
                for (int i = 0; i < records; i++) {
                    if (!log.approve(scope(i)).isCommitted()) {
                        throw new IllegalStateException("append failed");
                    }
                }
            }
            Path dir = Files.createDirectory(
                    base.resolve("audit"),
                    java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                            java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            for (String f : new String[] {"audit.log", "audit.head"}) {
                Files.copy(build.resolve("audit").resolve(f), dir.resolve(f));
            }
            NoteSigner signer = NoteSigner.generate("bench.example/audit");
            for (int run = 1; run <= 3; run++) {
                long t0 = System.nanoTime();
                try (AuditLog log = AuditLog.openReadOnly(dir)) {
                    if (log.awaitReady(Duration.ofSeconds(120)).state() != AuditState.OK) {
                        throw new IllegalStateException("the benchmark log must verify");
                    }
                    long t1 = System.nanoTime();
                    AuditTree tree = log.tree().orElseThrow();
                    SignedNote cp = tree.checkpoint(signer);
                    long t2 = System.nanoTime();
                    int hashes = 0;
                    for (long seq = 1; seq <= records; seq++) {
                        hashes += tree.inclusionProof(seq).orElseThrow().path().size();
                        tree.recordBytes(seq).orElseThrow();
                    }
                    long t3 = System.nanoTime();
                    for (long seq = 1; seq <= records; seq += records / 1_000) {
                        tree.prove(seq, cp).orElseThrow().encode();
                    }
                    long t4 = System.nanoTime();
                    System.out.printf(
                            "100k run %d: open+verify %d ms; tree snapshot + checkpoint %d ms; %d inclusion proofs"
                                    + " + record read-back %d ms (%.1f hashes on average); 1,000 tlog-proof files %d ms%n",
                            run,
                            (t1 - t0) / 1_000_000,
                            (t2 - t1) / 1_000_000,
                            records,
                            (t3 - t2) / 1_000_000,
                            hashes / (double) records,
                            (t4 - t3) / 1_000_000);
                }
            }
        } finally {
            Bundles.deleteTree(build);
            Bundles.deleteTree(base);
        }
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
