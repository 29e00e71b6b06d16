package dev.skillgate.console.internal;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The requests the console shows and their states, under one lock. A request is decided at most
 * once: only a {@link RequestState#PENDING} one accepts approve or deny, and its deadline (measured
 * on the monotonic clock) ends it as {@link RequestState#EXPIRED}.
 */
public final class Book {
    /** Most requests kept (pending ones are never dropped; decided ones are dropped oldest first). */
    public static final int MAX_REQUESTS = 256;

    /** Most outcomes kept. */
    public static final int MAX_OUTCOMES = 64;

    private static final SecureRandom RANDOM = new SecureRandom();

    enum Kind {
        EXECUTION,
        ACTIVATION,
        WORKFLOW
    }

    static final class Entry {
        final String id;
        final Kind kind;
        Object request;
        final ObjectNode view;
        final Optional<RunId> run;
        final String skill;
        final Optional<ConsentBinding> binding;
        final long deadlineNanos;
        final Instant deadline;
        final CompletableFuture<ApprovalDecision> answer = new CompletableFuture<>();
        Supplier<String> source;
        RequestState state = RequestState.PENDING;
        Instant decidedAt;

        Entry(
                String id,
                Kind kind,
                Object request,
                ObjectNode view,
                Optional<RunId> run,
                String skill,
                Optional<ConsentBinding> binding,
                Supplier<String> source,
                long deadlineNanos,
                Instant deadline) {
            this.id = id;
            this.kind = kind;
            this.request = request;
            this.view = view;
            this.run = run;
            this.skill = skill;
            this.binding = binding;
            this.source = source;
            this.deadlineNanos = deadlineNanos;
            this.deadline = deadline;
        }
    }

    /** The answer to a decision attempt: the state afterwards, and whether this attempt decided. */
    public record Decided(boolean accepted, String state) {}

    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final Deque<ObjectNode> outcomes = new ArrayDeque<>();
    private final Clock clock;
    private final LongSupplier nanos;
    private final Duration answerWindow;
    private final ScheduledExecutorService timer;
    private boolean closed;

    public Book(Clock clock, LongSupplier nanos, Duration answerWindow, ScheduledExecutorService timer) {
        this.clock = clock;
        this.nanos = nanos;
        this.answerWindow = answerWindow;
        this.timer = timer;
    }

    static String newId() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * Adds a request; its deadline is the earlier of {@code expiresAt} and the console's answer
     * window. A new execution request for the same run and skill makes an older pending one
     * {@link RequestState#STALE}, as the ledger does.
     */
    CompletionStage<ApprovalDecision> add(
            String id,
            Kind kind,
            Object request,
            ObjectNode view,
            Optional<RunId> run,
            String skill,
            Optional<ConsentBinding> binding,
            Supplier<String> source,
            Optional<Instant> expiresAt) {
        Instant now = clock.instant();
        long start = nanos.getAsLong();
        Duration window = answerWindow;
        if (expiresAt.isPresent()) {
            Duration left = Duration.between(now, expiresAt.get());
            if (left.compareTo(window) < 0) {
                window = left.isNegative() ? Duration.ZERO : left;
            }
        }
        Entry e = new Entry(
                id, kind, request, view, run, skill, binding, source, start + window.toNanos(), now.plus(window));
        synchronized (this) {
            if (closed) {
                return CompletableFuture.completedFuture(Decisions.superseded(request, "the console is closed"));
            }
            if (entries.containsKey(id) || !makeRoom()) {
                return CompletableFuture.completedFuture(
                        Decisions.superseded(request, "the console cannot show more requests"));
            }
            settleAll();
            if (kind == Kind.EXECUTION) {
                for (Entry old : entries.values()) {
                    if (old.kind == Kind.EXECUTION
                            && old.state == RequestState.PENDING
                            && old.run.equals(run)
                            && old.skill.equals(skill)) {
                        end(old, RequestState.STALE, Decisions.superseded(old.request, "a newer request replaced it"));
                    }
                }
            }
            entries.put(id, e);
        }
        timer.schedule(() -> expireIfDue(id), Math.max(0, window.toNanos()), TimeUnit.NANOSECONDS);
        return e.answer.minimalCompletionStage();
    }

    private boolean makeRoom() {
        if (entries.size() < MAX_REQUESTS) {
            return true;
        }
        Iterator<Entry> it = entries.values().iterator();
        while (it.hasNext()) {
            if (it.next().state != RequestState.PENDING) {
                it.remove();
                return true;
            }
        }
        return false;
    }

    private void end(Entry e, RequestState state, ApprovalDecision answer) {
        e.state = state;
        e.decidedAt = clock.instant();
        e.source = null;
        e.request = null;
        e.answer.complete(answer);
    }

    /** Ends {@code e} as expired when it is pending at or past its deadline. */
    private void settle(Entry e, long now) {
        if (e.state == RequestState.PENDING && now - e.deadlineNanos >= 0) {
            end(e, RequestState.EXPIRED, Decisions.expired(e.request));
        }
    }

    private void settleAll() {
        long now = nanos.getAsLong();
        for (Entry e : entries.values()) {
            settle(e, now);
        }
    }

    private synchronized void expireIfDue(String id) {
        Entry e = entries.get(id);
        if (e != null && e.state == RequestState.PENDING) {
            if (nanos.getAsLong() - e.deadlineNanos >= 0) {
                end(e, RequestState.EXPIRED, Decisions.expired(e.request));
            } else {
                timer.schedule(() -> expireIfDue(id), e.deadlineNanos - nanos.getAsLong(), TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * Decides request {@code id}: accepted only while it is pending and before its deadline (a late
     * click ends it as expired and is refused). Never approves anything but that pending request.
     */
    synchronized Optional<Decided> decide(String id, boolean approve) {
        Entry e = entries.get(id);
        if (e == null) {
            return Optional.empty();
        }
        settle(e, nanos.getAsLong());
        if (e.state != RequestState.PENDING) {
            return Optional.of(new Decided(false, e.state.name()));
        }
        if (approve) {
            end(e, RequestState.APPROVED, Decisions.approve(e.request));
        } else {
            end(e, RequestState.DENIED, Decisions.deny(e.request));
        }
        return Optional.of(new Decided(true, e.state.name()));
    }

    /** The on-demand source of a pending request (the entrypoint, or SKILL.md for an activation). */
    synchronized Optional<Supplier<String>> source(String id) {
        Entry e = entries.get(id);
        return e == null ? Optional.empty() : Optional.ofNullable(e.source);
    }

    /** The binding of execution request {@code id}, for "trust this revision". */
    synchronized Optional<ConsentBinding> binding(String id) {
        Entry e = entries.get(id);
        return e == null ? Optional.empty() : e.binding;
    }

    /** An execution request's binding, offered on the settings page as "trust this revision". */
    public record Candidate(String request, String skill, ConsentBinding binding) {}

    /** The execution requests' bindings, newest first, one per distinct trust scope. */
    synchronized List<Candidate> candidates() {
        List<Candidate> out = new ArrayList<>();
        java.util.Set<List<Object>> seen = new java.util.HashSet<>();
        List<Entry> all = new ArrayList<>(entries.values());
        for (int i = all.size() - 1; i >= 0; i--) {
            Entry e = all.get(i);
            if (e.binding.isEmpty()) {
                continue;
            }
            ConsentBinding b = e.binding.get();
            if (seen.add(List.of(b.revision(), b.agent(), b.workspace(), b.timeout(), b.outputLimit()))) {
                out.add(new Candidate(e.id, e.skill, b));
            }
        }
        return out;
    }

    /** Ends every pending request of {@code run} as cancelled. */
    public synchronized int cancel(RunId run) {
        settleAll();
        int n = 0;
        for (Entry e : entries.values()) {
            if (e.state == RequestState.PENDING && e.run.equals(Optional.of(run))) {
                end(e, RequestState.CANCELLED, Decisions.superseded(e.request, "the host cancelled the run"));
                n++;
            }
        }
        return n;
    }

    /** Ends every pending request as cancelled and refuses new ones. */
    public synchronized void close() {
        settleAll();
        closed = true;
        for (Entry e : entries.values()) {
            if (e.state == RequestState.PENDING) {
                end(e, RequestState.CANCELLED, Decisions.superseded(e.request, "the console closed"));
            }
        }
    }

    public synchronized void outcome(ExecutionEnvelope envelope) {
        ObjectNode o = Display.envelope(envelope);
        String skill = "";
        for (Entry e : entries.values()) {
            if (e.kind == Kind.EXECUTION && e.run.equals(Optional.of(envelope.runId()))) {
                skill = e.skill;
            }
        }
        o.put("skill", Display.line(skill));
        o.put("at", clock.instant().toString());
        outcomes.addFirst(o);
        while (outcomes.size() > MAX_OUTCOMES) {
            outcomes.removeLast();
        }
    }

    /** Counts by state, for the host. */
    public synchronized Map<String, Integer> counts() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (Entry e : entries.values()) {
            out.merge(e.state.name(), 1, Integer::sum);
        }
        return out;
    }

    /** Ids of the pending requests, oldest first. */
    public synchronized List<String> pending() {
        List<String> out = new ArrayList<>();
        for (Entry e : entries.values()) {
            if (e.state == RequestState.PENDING) {
                out.add(e.id);
            }
        }
        return out;
    }

    /** The page's view: every request (newest first) with its state, and the outcomes. */
    synchronized ObjectNode view() {
        long now = nanos.getAsLong();
        ObjectNode n = Display.NODES.objectNode();
        n.put("now", clock.instant().toString());
        ArrayNode list = n.putArray("requests");
        List<Entry> all = new ArrayList<>(entries.values());
        for (int i = all.size() - 1; i >= 0; i--) {
            Entry e = all.get(i);
            settle(e, now);
            ObjectNode o = list.addObject();
            o.put("id", e.id);
            o.put("kind", e.kind.name());
            o.put("state", e.state.name());
            o.put("deadline", e.deadline.toString());
            o.put(
                    "secondsLeft",
                    e.state == RequestState.PENDING ? Math.max(0, (e.deadlineNanos - now) / 1_000_000_000L) : 0);
            o.put("decidedAt", e.decidedAt == null ? "" : e.decidedAt.toString());
            o.put("hasSource", e.source != null);
            o.set("details", e.view);
        }
        ArrayNode outs = n.putArray("outcomes");
        outcomes.forEach(outs::add);
        return n;
    }
}
