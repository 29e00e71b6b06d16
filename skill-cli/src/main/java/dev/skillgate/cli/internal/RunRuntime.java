package dev.skillgate.cli.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.runner.NodeRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The runtime steps of {@code skillgate run}: the Node binary's pinned digest checked, its version
 * given or asked once, the runtime pinned (decisions 0826, 0866). Asks a binary only after its
 * digest, when one is pinned, matched; never looks a binary up on {@code PATH}.
 */
final class RunRuntime {
    private RunRuntime() {}

    /** A refusal of the runtime steps: the line for stderr and the diagnostic for {@code --json}. */
    record Refusal(String line, Diagnostic diagnostic) {}

    /** What the runtime steps concluded: the runtime and its version, or the refusal they end in. */
    record Outcome(Optional<NodeRuntime> runtime, Optional<String> version, Optional<Refusal> refusal) {
        static Outcome refusedWith(String line, Diagnostic diagnostic) {
            return new Outcome(Optional.empty(), Optional.empty(), Optional.of(new Refusal(line, diagnostic)));
        }
    }

    /** Thrown by the gate's runtime supplier when the runtime steps refused: the gate is not built. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused() {
            super("the runtime was refused", null, false, false);
        }
    }

    /**
     * The runtime steps' outcome, worked out once, at its first use; without a version or a digest
     * given, node is asked on a thread of its own from {@link #start} on, so the question runs while
     * the caller creates the data directory and the gate opens (decision 0866). As the gate's runtime
     * supplier it gives the runtime or throws {@link Refused}.
     */
    static final class Answer implements Supplier<NodeRuntime> {
        private final Path node;
        private final Optional<String> givenVersion;
        private final Optional<Sha256Digest> nodeDigest;
        /** {@code askAndPin}'s answer, asked ahead; empty when a version or a digest was given. */
        private final Optional<CompletableFuture<Optional<NodeRuntime>>> asking;

        private Outcome outcome;

        private Answer(
                Path node,
                Optional<String> givenVersion,
                Optional<Sha256Digest> nodeDigest,
                Optional<CompletableFuture<Optional<NodeRuntime>>> asking) {
            this.node = node;
            this.givenVersion = givenVersion;
            this.nodeDigest = nodeDigest;
            this.asking = asking;
        }

        /** The steps for {@code node}; asks it ahead when neither a version nor a digest is given. */
        static Answer start(Path node, Optional<String> givenVersion, Optional<Sha256Digest> nodeDigest) {
            if (givenVersion.isPresent() || nodeDigest.isPresent()) {
                return new Answer(node, givenVersion, nodeDigest, Optional.empty());
            }
            CompletableFuture<Optional<NodeRuntime>> asking = new CompletableFuture<>();
            // Not a lambda: each call site is linked in every cold JVM, ≈ 0.3 ms (decision 0895).
            Thread ask = new Thread(
                    new Runnable() {
                        @Override
                        public void run() {
                            try {
                                asking.complete(NodeRuntime.askAndPin(node));
                            } catch (RuntimeException | Error e) {
                                asking.completeExceptionally(e);
                            }
                        }
                    },
                    "skillgate-run-node-version");
            ask.setDaemon(true);
            ask.start();
            return new Answer(node, givenVersion, nodeDigest, Optional.of(asking));
        }

        /** Whether node is being asked on a thread of its own (the outcome may still be unknown). */
        boolean askedAhead() {
            return asking.isPresent();
        }

        /** The outcome, waiting for the question asked ahead when there is one. */
        synchronized Outcome outcome() {
            if (outcome == null) {
                outcome = steps();
            }
            return outcome;
        }

        /** The pinned runtime, for the gate's builder; {@link Refused} when the steps refused. */
        @Override
        public NodeRuntime get() {
            Optional<NodeRuntime> runtime = outcome().runtime();
            if (runtime.isEmpty()) {
                throw new Refused();
            }
            return runtime.get();
        }

        /**
         * The steps, in their order: the version given, asked and pinned (without a digest), or
         * asked after the digest check; the runtime pinned.
         */
        private Outcome steps() {
            Optional<String> version = givenVersion;
            Optional<NodeRuntime> pinnedByAsking = Optional.empty();
            if (asking.isPresent()) {
                try {
                    pinnedByAsking = answerOf(asking.get());
                } catch (InvalidValueException e) {
                    return refusal(e);
                }
                version = pinnedByAsking.isPresent()
                        ? Optional.of(pinnedByAsking.get().identity().version())
                        : Optional.empty();
            } else if (version.isEmpty()) {
                version = askVersion(node);
            }
            if (version.isEmpty()) {
                String message = Args.path(node.toString()) + " did not answer --version";
                return Outcome.refusedWith(
                        "skillgate run: RUNTIME_UNAVAILABLE: " + message,
                        Diagnostic.error(ErrorCode.RUNTIME_UNAVAILABLE, "", message));
            }
            try {
                NodeRuntime runtime = pinnedByAsking.isPresent()
                        ? pinnedByAsking.get()
                        : nodeDigest.isPresent()
                                ? NodeRuntime.pinned(node, version.get(), nodeDigest.get())
                                : NodeRuntime.pinned(node, version.get());
                return new Outcome(Optional.of(runtime), version, Optional.empty());
            } catch (InvalidValueException e) {
                return refusal(e);
            }
        }

        private static Outcome refusal(InvalidValueException e) {
            return Outcome.refusedWith(
                    "skillgate run: " + e.code() + ": " + e.getMessage(),
                    Diagnostic.error(e.code(), "", e.getMessage()));
        }

        /** {@code askAndPin}'s answer from the thread that asked, or what it threw, unchanged. */
        private static Optional<NodeRuntime> answerOf(CompletableFuture<Optional<NodeRuntime>> asking) {
            try {
                return asking.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof Error er) {
                    throw er;
                }
                throw e;
            }
        }
    }

    /**
     * Why the binary's bytes are not the pinned digest ({@link #fileDigest}); empty when they are.
     */
    static Optional<String> digestMismatch(Path node, Sha256Digest pinned) {
        Optional<Sha256Digest> actual = fileDigest(node);
        if (actual.isEmpty()) {
            return Optional.of("the Node binary at " + Args.safe(node.toString()) + " cannot be read");
        }
        return actual.get().equals(pinned)
                ? Optional.empty()
                : Optional.of("the Node binary at " + Args.safe(node.toString()) + " has SHA-256 " + actual.get()
                        + ", --node-sha256 pins " + pinned);
    }

    /**
     * The binary's SHA-256, read once through one open channel, without following a link at its real
     * path; empty when it cannot be read.
     */
    static Optional<Sha256Digest> fileDigest(Path node) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        try (FileChannel ch = FileChannel.open(node.toRealPath(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            while (ch.read(buf) >= 0) {
                buf.flip();
                md.update(buf);
                buf.clear();
            }
            return Optional.of(Sha256Digest.of(md.digest()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Asks the binary for its version once, with an empty environment, bounded. */
    static Optional<String> askVersion(Path node) {
        ProcessBuilder pb = new ProcessBuilder(node.toString(), "--version");
        pb.environment().clear();
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<byte[]> head = CompletableFuture.supplyAsync(() -> {
                try (InputStream s = p.getInputStream()) {
                    byte[] first = s.readNBytes(65);
                    s.transferTo(java.io.OutputStream.nullOutputStream());
                    return first;
                } catch (IOException e) {
                    return new byte[0];
                }
            });
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            byte[] out = head.get(10, TimeUnit.SECONDS);
            String text = new String(out, StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0 || out.length > 64 || text.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(text);
        } catch (IOException | ExecutionException | TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
