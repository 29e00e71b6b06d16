package dev.skillgate.console;

import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.console.internal.Book;
import dev.skillgate.console.internal.ConsoleChannel;
import dev.skillgate.console.internal.ConsoleServer;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.engine.SkillSummary;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * The approval and settings console: a web page on a loopback address that shows every pending
 * approval request (execution, prompt-skill activation, workflow plan) with approve / deny, and the
 * local user's settings over a {@link SkillGateAdmin}.
 *
 * <p>Give {@link #channel()} to the {@code SkillGate} builder and open {@link #launchUri()} in the
 * person's browser (it carries the per-start token: never log it). Every request to the page must
 * name this console in {@code Host}, come from its own origin, and carry the session the launch
 * address starts; state changes are POST only with the per-start CSRF token, and none is accepted
 * while the host {@linkplain #lock() locked} the console. A request is decided at most once, only
 * while pending and before its deadline (the earlier of its consent expiry and the
 * {@linkplain Builder#answerWindow answer window}); anything else is refused, never an approval.
 *
 * <p>What it does not guarantee: it is not isolation from code already running as the same OS user
 * (such code can read the launch address from the host's memory or drive the browser), and approving
 * does not make a script safe: an approved script runs with the host user's files and network (not
 * a sandbox). See {@code docs/console.md}.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class ApprovalConsole implements AutoCloseable {
    private final Book book;
    private final ConsoleChannel channel;
    private final ConsoleServer server;
    private final ScheduledExecutorService timer;

    private ApprovalConsole(Builder b) throws IOException {
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "skillgate-console-timer");
            t.setDaemon(true);
            return t;
        });
        this.book = new Book(b.clock, System::nanoTime, b.answerWindow, timer);
        Supplier<List<SkillSummary>> catalog = b.catalog;
        Function<SkillName, Optional<String>> describe = skill -> catalog.get().stream()
                .filter(s -> s.name().equals(skill.value()))
                .map(SkillSummary::description)
                .findFirst();
        this.channel = new ConsoleChannel(book, describe);
        try {
            this.server = new ConsoleServer(b.bind, b.port, book, b.admin, b.answerWindow.toSeconds());
        } catch (IOException | RuntimeException e) {
            timer.shutdownNow();
            throw e;
        }
    }

    /** A builder over the admin the settings page uses (the host's, never an agent's). */
    public static Builder builder(SkillGateAdmin admin) {
        return new Builder(admin);
    }

    /**
     * The approval channel to give the engine. It reaches the page's requests and nothing else: not
     * the admin, not the server, not the token.
     */
    public ApprovalChannel channel() {
        return channel;
    }

    /** The address that starts a session in the browser; it carries the per-start token (do not log it). */
    public URI launchUri() {
        return server.launch();
    }

    /** The page's address without the token (a browser without the session is refused). */
    public URI baseUri() {
        return server.base();
    }

    /** Locks the console: until {@link #unlock()}, no decision and no setting is accepted. */
    public void lock() {
        server.lock(true);
    }

    /** Unlocks the console. */
    public void unlock() {
        server.lock(false);
    }

    /** Whether the console is locked. */
    public boolean locked() {
        return server.locked();
    }

    /** Shows the outcome of a run on the page (the host calls this with what {@code execute} returned). */
    public void showOutcome(ExecutionEnvelope envelope) {
        book.outcome(Objects.requireNonNull(envelope, "envelope"));
    }

    /** Ends every pending request of {@code run} as cancelled (a denial); returns how many. */
    public int cancel(RunId run) {
        return book.cancel(Objects.requireNonNull(run, "run"));
    }

    /** The ids of the pending requests, oldest first. */
    public List<String> pendingRequests() {
        return book.pending();
    }

    /** How many requests are in each state ({@code PENDING}, {@code APPROVED}, …). */
    public Map<String, Integer> requestCounts() {
        return book.counts();
    }

    /** Stops the server; every pending request ends as cancelled (a denial). */
    @Override
    public void close() {
        book.close();
        server.stop();
        timer.shutdownNow();
    }

    /** Names the address without the token. */
    @Override
    public String toString() {
        return "ApprovalConsole[" + server.base() + "]";
    }

    /** Configuration of an {@link ApprovalConsole}. */
    public static final class Builder {
        /** Longest answer window: the consent window. */
        public static final Duration MAX_ANSWER_WINDOW = Duration.ofMinutes(5);

        private final SkillGateAdmin admin;
        private InetAddress bind = InetAddress.getLoopbackAddress();
        private int port;
        private Duration answerWindow = MAX_ANSWER_WINDOW;
        private Clock clock = Clock.systemUTC();
        private Supplier<List<SkillSummary>> catalog = List::of;

        private Builder(SkillGateAdmin admin) {
            this.admin = Objects.requireNonNull(admin, "admin");
        }

        /**
         * The loopback address to bind ({@code 127.0.0.1} by default, or {@code ::1}).
         *
         * @throws IllegalArgumentException for any address that is not loopback
         */
        public Builder bindAddress(InetAddress address) {
            Objects.requireNonNull(address, "address");
            if (!address.isLoopbackAddress()) {
                throw new IllegalArgumentException("the console binds to a loopback address only");
            }
            this.bind = address;
            return this;
        }

        /** The port (0, the default, picks a free one). */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port 0-65535");
            }
            this.port = port;
            return this;
        }

        /**
         * How long a request stays answerable on the page (default and maximum 5 minutes); set it to
         * the gate's {@code approvalTimeout} so the page never accepts an answer the engine no longer
         * waits for.
         */
        public Builder answerWindow(Duration window) {
            Objects.requireNonNull(window, "window");
            if (window.isNegative() || window.isZero() || window.compareTo(MAX_ANSWER_WINDOW) > 0) {
                throw new IllegalArgumentException("the answer window is more than 0 and at most 5 minutes");
            }
            this.answerWindow = window;
            return this;
        }

        /** Where the page finds each skill's description to show with its request ({@code gate::catalog}). */
        public Builder catalog(Supplier<List<SkillSummary>> catalog) {
            this.catalog = Objects.requireNonNull(catalog, "catalog");
            return this;
        }

        /** The wall clock for displayed times (deadlines are enforced on the monotonic clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Starts the console. */
        public ApprovalConsole start() {
            try {
                return new ApprovalConsole(this);
            } catch (IOException e) {
                throw new UncheckedIOException("the console could not bind " + bind.getHostAddress(), e);
            }
        }
    }
}
