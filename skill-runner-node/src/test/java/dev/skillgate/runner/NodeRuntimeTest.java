package dev.skillgate.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Sha256Digest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeRuntimeTest {

    @TempDir
    Path dir;

    static ErrorCode refusal(NodeRuntime.Verification v) {
        assertThat(v).isInstanceOf(NodeRuntime.Refused.class);
        return ((NodeRuntime.Refused) v).reason().code();
    }

    Path script(String name, String body) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void theRealNodeVerifiesWithItsExactVersion() {
        NodeRuntime.Verification v = TestSupport.runtime().verify();
        assertThat(v).isInstanceOf(NodeRuntime.Verified.class);
        NodeRuntime.Verified ok = (NodeRuntime.Verified) v;
        assertThat(ok.version()).isEqualTo(TestSupport.nodeVersion());
        assertThat(ok.major()).isGreaterThanOrEqualTo(18);
    }

    @Test
    void aDifferentVersionIsAMismatchWithNoFallback() {
        assertThat(refusal(NodeRuntime.pinned(TestSupport.node(), "v18.0.0").verify()))
                .isEqualTo(ErrorCode.RUNTIME_MISMATCH);
        String actual = TestSupport.nodeVersion();
        assertThat(refusal(NodeRuntime.pinned(TestSupport.node(), actual.substring(1))
                        .verify()))
                .isEqualTo(ErrorCode.RUNTIME_MISMATCH);
    }

    @Test
    void theDigestIsCheckedOverTheFileBytes() throws Exception {
        byte[] bytes = Files.readAllBytes(TestSupport.node().toRealPath());
        Sha256Digest right = Sha256Digest.hash(bytes);
        assertThat(NodeRuntime.pinned(TestSupport.node(), TestSupport.nodeVersion(), right)
                        .verify())
                .isInstanceOf(NodeRuntime.Verified.class);
        Sha256Digest wrong = Sha256Digest.hash(new byte[] {1});
        assertThat(refusal(NodeRuntime.pinned(TestSupport.node(), TestSupport.nodeVersion(), wrong)
                        .verify()))
                .isEqualTo(ErrorCode.RUNTIME_MISMATCH);
    }

    @Test
    void aBinaryThatPrintsTheRightVersionIsCaughtByItsDigest() throws Exception {
        Path fake = script("node", "echo v20.20.2");
        assertThat(NodeRuntime.pinned(fake, "v20.20.2").verify()).isInstanceOf(NodeRuntime.Verified.class);
        Sha256Digest realNode =
                Sha256Digest.hash(Files.readAllBytes(TestSupport.node().toRealPath()));
        assertThat(refusal(NodeRuntime.pinned(fake, "v20.20.2", realNode).verify()))
                .isEqualTo(ErrorCode.RUNTIME_MISMATCH);
    }

    @Test
    void versionIsAskedWithAnEmptyEnvironment() throws Exception {
        // Prints the pinned version only when it sees no HOME, no PATH export and no canary.
        Path probe = script(
                "node-env-probe",
                "if [ -z \"$HOME\" ] && [ -z \"$SKILLGATE_CANARY_SECRET\" ] && [ -z \"$NODE_OPTIONS\" ]; then echo v20.0.0;"
                        + " else echo leaked; fi");
        assertThat(NodeRuntime.pinned(probe, "v20.0.0").verify()).isInstanceOf(NodeRuntime.Verified.class);
    }

    @Test
    void missingNotRegularWritableFailingOrOldRuntimesAreUnavailable() throws Exception {
        assertThat(refusal(NodeRuntime.pinned(dir.resolve("absent"), "v20.0.0").verify()))
                .isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
        assertThat(refusal(NodeRuntime.pinned(dir, "v20.0.0").verify())).isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
        Path writable = script("writable", "echo v20.0.0");
        Files.setPosixFilePermissions(writable, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThat(refusal(NodeRuntime.pinned(writable, "v20.0.0").verify())).isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
        assertThat(refusal(
                        NodeRuntime.pinned(script("fails", "exit 3"), "v20.0.0").verify()))
                .isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
        assertThat(refusal(NodeRuntime.pinned(script("old", "echo v16.20.0"), "v16.20.0")
                        .verify()))
                .isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
        assertThat(refusal(NodeRuntime.pinned(script("chatty", "yes v20.0.0 | head -c 100000"), "v20.0.0")
                        .verify()))
                .isEqualTo(ErrorCode.RUNTIME_MISMATCH);
    }

    // --- decision 0332: the content checks are remembered by file identity ---------------------------

    /** A fake node that counts its runs in {@code counter} and prints {@code version}. */
    Path countingNode(String name, Path counter, String version) throws Exception {
        return script(name, "echo run >> '" + counter + "'\necho " + version);
    }

    static long runs(Path counter) throws Exception {
        return Files.exists(counter) ? Files.readAllLines(counter).size() : 0;
    }

    /** Lets a new file's ctime fall behind the short settle time the identity tests use. */
    static void settle() throws InterruptedException {
        Thread.sleep(SHORT_SETTLE.toMillis() * 2);
    }

    static final Duration SHORT_SETTLE = Duration.ofMillis(100);

    @Test
    void anUnchangedBinaryIsNotStartedAgainButEveryPathCheckStillRuns() throws Exception {
        Path counter = dir.resolve("runs");
        Path fake = countingNode("node", counter, "v20.0.0");
        settle();
        NodeRuntime rt = NodeRuntime.pin(fake, "v20.0.0", Optional.empty(), SHORT_SETTLE);
        for (int i = 0; i < 5; i++) {
            assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        }
        assertThat(runs(counter)).isEqualTo(1);
        assertThat(rt.fullChecks()).isEqualTo(1);

        // The path checks are not remembered: a group-writable binary is refused at once.
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertThat(refusal(rt.verify())).isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        // chmod moved ctime: the next verification is a full one again.
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(runs(counter)).isEqualTo(2);
        // And a link in its place is refused, not followed, whatever was remembered.
        settle();
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        Path moved = dir.resolve("moved-node");
        Files.move(fake, moved);
        Files.createSymbolicLink(fake, moved);
        assertThat(refusal(rt.verify())).isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
    }

    @Test
    void aBinaryRewrittenInPlaceWithTheSameSizeAndMtimeIsCheckedAgain() throws Exception {
        Path counter = dir.resolve("runs");
        Path fake = countingNode("node", counter, "v20.0.0");
        settle();
        NodeRuntime rt = NodeRuntime.pin(fake, "v20.0.0", Optional.empty(), SHORT_SETTLE);
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(runs(counter)).isEqualTo(1);

        FileTime mtime = Files.getLastModifiedTime(fake);
        long size = Files.size(fake);
        Files.writeString(fake, "#!/bin/sh\necho run >> '" + counter + "'\necho v20.0.9\n"); // same length
        Files.setLastModifiedTime(fake, mtime); // mtime can be set back; ctime cannot
        assertThat(Files.size(fake)).isEqualTo(size);
        assertThat(refusal(rt.verify())).isEqualTo(ErrorCode.RUNTIME_MISMATCH);
        assertThat(runs(counter)).isEqualTo(2);
    }

    @Test
    void aBinaryReplacedByRenameIsCheckedAgain() throws Exception {
        Path counter = dir.resolve("runs");
        Path fake = countingNode("node", counter, "v20.0.0");
        settle();
        NodeRuntime rt = NodeRuntime.pin(fake, "v20.0.0", Optional.empty(), SHORT_SETTLE);
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        Path twin = countingNode("twin", counter, "v20.0.0"); // identical bytes, another inode
        Files.move(twin, fake, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(runs(counter)).isEqualTo(2);
        // The replacement was itself new (ctime within the settle time): it is not remembered yet.
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(runs(counter)).isEqualTo(3);
    }

    /** Decision 0826: the CLI's one question is also the first full check, under the same identity rule. */
    @Test
    void askAndPinStartsTheBinaryOnceAndItsAnswerIsTheFirstCheck() throws Exception {
        Path counter = dir.resolve("runs");
        Path fake = countingNode("node", counter, "v20.0.0");
        settle();
        NodeRuntime rt = NodeRuntime.askAndPin(fake, SHORT_SETTLE).orElseThrow();
        assertThat(rt.identity().version()).isEqualTo("v20.0.0");
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(runs(counter)).isEqualTo(1);
        assertThat(rt.fullChecks()).isEqualTo(1);

        // Rewritten after the question (same size, mtime set back): the next verify starts it again.
        FileTime mtime = Files.getLastModifiedTime(fake);
        Files.writeString(fake, "#!/bin/sh\necho run >> '" + counter + "'\necho v20.0.9\n");
        Files.setLastModifiedTime(fake, mtime);
        assertThat(refusal(rt.verify())).isEqualTo(ErrorCode.RUNTIME_MISMATCH);
        assertThat(runs(counter)).isEqualTo(2);
        // The path checks still run on every verify.
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertThat(refusal(rt.verify())).isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
    }

    @Test
    void askAndPinRemembersNothingForARecentlyChangedBinaryOrAnAnswerVerifyWouldRefuse() throws Exception {
        Path counter = dir.resolve("runs");
        Path fresh = countingNode("node", counter, "v20.0.0");
        NodeRuntime recent = NodeRuntime.askAndPin(fresh).orElseThrow(); // the default settle time: 2 s
        assertThat(recent.fullChecks()).isZero();
        assertThat(recent.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(runs(counter)).isEqualTo(2);

        // Surrounding white space is stripped from the answer (as the CLI always did), but verify
        // wants the exact line: the engine's check refuses it, as it did before.
        Path padded = script("padded", "printf ' v20.0.0 \\n'");
        settle();
        NodeRuntime p = NodeRuntime.askAndPin(padded, SHORT_SETTLE).orElseThrow();
        assertThat(p.identity().version()).isEqualTo("v20.0.0");
        assertThat(p.fullChecks()).isZero();
        assertThat(refusal(p.verify())).isEqualTo(ErrorCode.RUNTIME_MISMATCH);

        Path silent = script("silent", "exit 0");
        assertThat(NodeRuntime.askAndPin(silent)).isEmpty();
        Path failing = script("failing", "echo v20.0.0; exit 3");
        assertThat(NodeRuntime.askAndPin(failing)).isEmpty();
        Path chatty = script("chatty", "echo v20.0.0-" + "x".repeat(70));
        assertThat(NodeRuntime.askAndPin(chatty)).isEmpty();
        assertThat(NodeRuntime.askAndPin(dir.resolve("missing"))).isEmpty();
        assertThatThrownBy(() -> NodeRuntime.askAndPin(Path.of("relative/node")))
                .isInstanceOf(InvalidValueException.class);
        Path odd = script("odd", "echo not-a-version");
        assertThatThrownBy(() -> NodeRuntime.askAndPin(odd)).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void aRecentlyChangedBinaryIsNeverRemembered() throws Exception {
        Path counter = dir.resolve("runs");
        Path fake = countingNode("node", counter, "v20.0.0");
        NodeRuntime rt = NodeRuntime.pinned(fake, "v20.0.0"); // the default settle time: 2 s
        for (int i = 0; i < 3; i++) {
            assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        }
        assertThat(runs(counter)).isEqualTo(3);
    }

    @Test
    void aPinnedDigestIsRememberedWithTheIdentityAndCheckedAgainAfterAWrite() throws Exception {
        Path counter = dir.resolve("runs");
        Path fake = countingNode("node", counter, "v20.0.0");
        settle();
        Sha256Digest pinned = Sha256Digest.hash(Files.readAllBytes(fake));
        NodeRuntime rt = NodeRuntime.pin(fake, "v20.0.0", Optional.of(pinned), SHORT_SETTLE);
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(rt.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(rt.fullChecks()).isEqualTo(1);
        // Same version printed, one byte of the file different: the digest catches it.
        Files.writeString(fake, "#!/bin/sh\necho run >> '" + counter + "'\necho v20.0.0 \n");
        assertThat(refusal(rt.verify())).isEqualTo(ErrorCode.RUNTIME_MISMATCH);
        assertThat(rt.fullChecks()).isEqualTo(2);
        // A failure is never remembered.
        assertThat(refusal(rt.verify())).isEqualTo(ErrorCode.RUNTIME_MISMATCH);
        assertThat(rt.fullChecks()).isEqualTo(3);
    }

    @Test
    void relativePathsAndMalformedVersionsAreRejectedAtPinning() {
        assertThatThrownBy(() -> NodeRuntime.pinned(Path.of("node"), "v20.0.0"))
                .isInstanceOf(InvalidValueException.class)
                .extracting(e -> ((InvalidValueException) e).code())
                .isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
        assertThatThrownBy(() -> NodeRuntime.pinned(TestSupport.node(), "latest"))
                .isInstanceOf(InvalidValueException.class);
    }

    @Test
    void aLinkIsResolvedOnceAtPinningAndNeverFollowedAgain() throws Exception {
        Path real = script("real-node", "echo v20.1.0");
        Path other = script("other-node", "echo v20.9.9");
        Path link = dir.resolve("node-link");
        Files.createSymbolicLink(link, real);
        NodeRuntime pinned = NodeRuntime.pinned(link, "v20.1.0");
        assertThat(pinned.executable()).isEqualTo(real.toRealPath());
        Files.delete(link);
        Files.createSymbolicLink(link, other);
        assertThat(pinned.verify()).isInstanceOf(NodeRuntime.Verified.class);
        // Pinned at a path that is missing now and later becomes a link: refused, not followed.
        Path later = dir.resolve("later");
        NodeRuntime missing = NodeRuntime.pinned(later, "v20.1.0");
        Files.createSymbolicLink(later, real);
        assertThat(refusal(missing.verify())).isEqualTo(ErrorCode.RUNTIME_UNAVAILABLE);
    }
}
