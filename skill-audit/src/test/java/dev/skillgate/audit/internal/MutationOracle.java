package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.Fixtures;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Mutates a valid log with flips, truncations, splices (from a longer version of the same log and
 * from a foreign log), reorders, deletions, appended junk and head damage, then checks that the
 * outcome is explained: either the log is disabled, or the verified state is exactly an earlier
 * committed state of the original log (only when an older head was put back: the documented
 * rollback that no local check can see) with trust never exceeding that state's.
 */
final class MutationOracle {
    /** A source of choices: the fuzzer's data, or a seeded random. */
    interface Choices {
        int pick(int bound);

        byte[] bytes(int max);
    }

    static Choices of(Random r) {
        return new Choices() {
            @Override
            public int pick(int bound) {
                return bound <= 0 ? 0 : r.nextInt(bound);
            }

            @Override
            public byte[] bytes(int max) {
                byte[] b = new byte[r.nextInt(max + 1)];
                r.nextBytes(b);
                return b;
            }
        };
    }

    static final LogBuilder ORIGINAL = new LogBuilder(7);
    static final LogBuilder LONGER = new LogBuilder(7);
    static final LogBuilder FOREIGN = new LogBuilder(8);
    static final int N = 10;

    static {
        for (LogBuilder b : List.of(ORIGINAL, LONGER, FOREIGN)) {
            b.add(new AuditEvent.Approved(Fixtures.prompt(0)));
            b.add(new AuditEvent.Approved(Fixtures.prompt(1)));
            b.add(new AuditEvent.Approved(Fixtures.execution(2)));
            b.add(new AuditEvent.Revoked(Fixtures.prompt(1)));
            b.add(new AuditEvent.Approved(Fixtures.prompt(4)));
            b.add(new AuditEvent.Approved(Fixtures.prompt(5)));
            // Evidence records (settlement, resolution, workflow plan and step) take part in the chain
            // like any other record and grant nothing.
            Fixtures.evidence(3).forEach(b::add);
        }
        LONGER.add(new AuditEvent.Revoked(Fixtures.prompt(0)));
        LONGER.add(new AuditEvent.Approved(Fixtures.prompt(9)));
    }

    /** A mutated pair and whether an older head of the same log was put back. */
    record Mutated(byte[] head, byte[] log, boolean olderHead, String program) {}

    static Mutated mutate(Choices c) {
        byte[] log = ORIGINAL.log();
        byte[] head = ORIGINAL.head();
        boolean olderHead = false;
        StringBuilder program = new StringBuilder();
        int ops = 1 + c.pick(3);
        for (int i = 0; i < ops; i++) {
            int op = c.pick(9);
            program.append(op).append(' ');
            switch (op) {
                case 0 -> { // flip a bit of the log
                    if (log.length > 0) {
                        log[c.pick(log.length)] ^= (byte) (1 << c.pick(8));
                    }
                }
                case 1 -> log = Arrays.copyOf(log, c.pick(log.length + 1)); // truncate
                case 2 -> { // splice bytes from the longer or a foreign log over the log
                    byte[] src = c.pick(2) == 0 ? LONGER.log() : FOREIGN.log();
                    int from = c.pick(src.length);
                    int len = c.pick(Math.min(400, src.length - from) + 1);
                    int to = c.pick(log.length + 1);
                    byte[] out = Arrays.copyOf(log, Math.max(log.length, to + len));
                    System.arraycopy(src, from, out, to, len);
                    log = out;
                }
                case 3 -> { // swap two ranges of equal length
                    if (log.length > 2) {
                        int len = 1 + c.pick(Math.min(300, log.length / 2));
                        int a = c.pick(log.length - len + 1);
                        int b = c.pick(log.length - len + 1);
                        byte[] tmp = Arrays.copyOfRange(log, a, a + len);
                        System.arraycopy(log, b, log, a, len);
                        System.arraycopy(tmp, 0, log, b, len);
                    }
                }
                case 4 -> { // delete a range
                    int a = c.pick(log.length + 1);
                    int len = c.pick(log.length - a + 1);
                    byte[] out = new byte[log.length - len];
                    System.arraycopy(log, 0, out, 0, a);
                    System.arraycopy(log, a + len, out, a, log.length - a - len);
                    log = out;
                }
                case 5 -> { // append junk, or the longer log's next frame(s)
                    byte[] extra = c.pick(2) == 0
                            ? c.bytes(300)
                            : Arrays.copyOfRange(
                                    LONGER.log(),
                                    ORIGINAL.log().length,
                                    ORIGINAL.log().length
                                            + LONGER.frames.get(N).length
                                            + (c.pick(2) == 0 ? 0 : LONGER.frames.get(N + 1).length));
                    log = AdversarialTableTest.concat(log, extra);
                }
                case 6 -> { // damage the head
                    if (head.length > 0) {
                        head = head.clone();
                        if (c.pick(2) == 0) {
                            head[c.pick(head.length)] ^= (byte) (1 << c.pick(8));
                        } else {
                            head = Arrays.copyOf(head, c.pick(head.length));
                        }
                    }
                }
                case 7 -> { // put back an older head of the same log
                    head = ORIGINAL.headAt(c.pick(N));
                    olderHead = true;
                }
                default -> { // duplicate a whole frame in place
                    int f = c.pick(N);
                    int start = offset(f);
                    byte[] frame = ORIGINAL.frames.get(f);
                    if (start + frame.length <= log.length) {
                        byte[] out = new byte[log.length + frame.length];
                        System.arraycopy(log, 0, out, 0, start + frame.length);
                        System.arraycopy(frame, 0, out, start + frame.length, frame.length);
                        System.arraycopy(
                                log,
                                start + frame.length,
                                out,
                                start + 2 * frame.length,
                                log.length - start - frame.length);
                        log = out;
                    }
                }
            }
        }
        return new Mutated(head, log, olderHead, program.toString());
    }

    static int offset(int frame) {
        int pos = Frames.HEADER_SIZE;
        for (int i = 0; i < frame; i++) {
            pos += ORIGINAL.frames.get(i).length;
        }
        return pos;
    }

    /** What a writer's open concludes (mirrors {@code Engine.recover}, without side effects). */
    record Outcome(boolean disabled, long committed, Set<Sha256Digest> trusted) {}

    static Outcome evaluate(byte[] headBytes, byte[] logBytes) throws IOException {
        Head h;
        try {
            h = Head.parse(headBytes);
        } catch (Frames.FormatException e) {
            return new Outcome(true, 0, Set.of());
        }
        LogScanner.Result r = LogScanner.scan(Source.of(logBytes), h, null);
        if (r.problem != null || r.tail.kind() == LogScanner.TailKind.CORRUPT) {
            return new Outcome(true, 0, Set.of());
        }
        Set<Sha256Digest> trusted = trustedIn(r.trust);
        long committed = h.sequence();
        if (r.tail.kind() == LogScanner.TailKind.SINGLE
                && r.tail.decoded().orElseThrow().event() instanceof AuditEvent.Revoked v) {
            trusted.remove(v.scope().id());
            committed++;
        }
        return new Outcome(false, committed, trusted);
    }

    static Set<Sha256Digest> trustedIn(TrustTable table) {
        Set<Sha256Digest> out = new HashSet<>();
        for (dev.skillgate.audit.TrustDecision d : table.list(true, Set.of())) {
            if (d.status() == dev.skillgate.audit.TrustStatus.TRUSTED) {
                out.add(d.scope().id());
            }
        }
        return out;
    }

    static Set<Sha256Digest> trustedAt(int k) throws IOException {
        try {
            return trustedIn(
                    LogScanner.scan(Source.of(ORIGINAL.logUpTo(k)), Head.parse(ORIGINAL.headAt(k)), null).trust);
        } catch (Frames.FormatException e) {
            throw new AssertionError(e);
        }
    }

    /** The oracle. Returns the outcome for callers that compare it with a real open. */
    static Outcome check(Mutated m) throws IOException {
        Outcome o = evaluate(m.head(), m.log());
        boolean unchanged = Arrays.equals(m.head(), ORIGINAL.head()) && Arrays.equals(m.log(), ORIGINAL.log());
        if (unchanged) {
            assertThat(o.disabled()).isFalse();
            assertThat(o.trusted()).isEqualTo(trustedAt(N));
            return o;
        }
        if (o.disabled()) {
            return o;
        }
        // Not disabled: the committed part must be exactly a committed state k of the original log.
        Head h;
        try {
            h = Head.parse(m.head());
        } catch (Frames.FormatException e) {
            throw new AssertionError(e);
        }
        int k = (int) h.sequence();
        assertThat(k).as(m.program()).isBetween(0, N);
        assertThat(m.head()).as(m.program()).isEqualTo(ORIGINAL.headAt(k));
        assertThat(Arrays.copyOf(m.log(), (int) h.length())).as(m.program()).isEqualTo(ORIGINAL.logUpTo(k));
        if (!m.olderHead()) {
            assertThat(k)
                    .as("without an older head, nothing before the commit point can change: " + m.program())
                    .isEqualTo(N);
        }
        // Whatever lay beyond the commit point can only have reduced trust.
        assertThat(trustedAt(k)).as(m.program()).containsAll(o.trusted());
        return o;
    }
}
