package dev.skillgate.tlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interoperability with an independent verifier: Go's reference packages {@code
 * golang.org/x/mod/sumdb/note} and {@code sumdb/tlog}, from Debian's {@code golang-go} and {@code
 * golang-golang-x-mod-dev} ({@code apt-get install golang-go golang-golang-x-mod-dev
 * golang-golang-x-crypto-dev}). The Go program ({@code src/test/go/interop.go}) verifies our signed
 * checkpoints, tlog-proof files for every entry of a 1,000-entry tree and witness request bodies,
 * refuses the tampered ones, and signs a note that we then verify.
 *
 * <p>Skipped (an assumption, reported as skipped) when {@code go} or that GOPATH is not installed.
 */
class GoInteropTest {
    private static final Path GOPATH = Path.of(System.getProperty("skillgate.test.gopath", "/usr/share/gocode"));

    private static Optional<Path> go() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String d : path.split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, "go");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static String run(List<String> argv, Path dir) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("GO111MODULE", "off");
        env.put("GOPATH", GOPATH.toString());
        env.put("GOCACHE", dir.resolve("gocache").toString());
        env.put("GOFLAGS", "");
        env.put("CGO_ENABLED", "0");
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text).isZero();
        return text;
    }

    @Test
    void goReferenceVerifiesOurCheckpointsAndProofs(@TempDir Path tmp) throws Exception {
        Optional<Path> go = go();
        Assumptions.assumeTrue(go.isPresent(), "go is not on PATH");
        Assumptions.assumeTrue(
                Files.isDirectory(GOPATH.resolve("src/golang.org/x/mod/sumdb/tlog")),
                "golang-golang-x-mod-dev is not installed");
        Path bin = tmp.resolve("interop");
        run(
                List.of(
                        go.get().toString(),
                        "build",
                        "-o",
                        bin.toString(),
                        Path.of("src/test/go/interop.go").toAbsolutePath().toString()),
                tmp);

        Path dir = Files.createDirectory(tmp.resolve("case"));
        NoteSigner signer = NoteSigner.generate("audit.example/skillgate");
        String origin = "audit.example/skillgate/3f1c";
        Files.writeString(dir.resolve("vkey"), signer.verifierKey().encode());
        Files.writeString(dir.resolve("origin"), origin);
        List<byte[]> entries = new ArrayList<>();
        MerkleTree.Builder b = MerkleTree.builder();
        for (int i = 0; i < 1000; i++) {
            byte[] e = ("record " + i + "\n").getBytes(StandardCharsets.UTF_8);
            entries.add(e);
            b.addData(e, 0, e.length);
        }
        MerkleTree tree = b.build();
        byte[] note = TlogCheckpoint.of(origin, tree.size(), tree.root())
                .sign(List.of(signer))
                .encode();
        Files.write(dir.resolve("checkpoint.note"), note);
        for (int i = 0; i < 1000; i++) {
            TlogProof p = new TlogProof(
                    Optional.of(entries.get(i)), i, tree.inclusionProof(i).path(), note);
            Files.write(dir.resolve(String.format("%04d.tlog-proof", i)), p.encode());
            assertThat(p.verifyExtraAsLeaf(List.of(signer.verifierKey()), origin)
                            .verified())
                    .isTrue();
        }
        TlogProof good = new TlogProof(
                Optional.of(entries.get(7)), 7, tree.inclusionProof(7).path(), note);
        byte[] flipped = entries.get(7).clone();
        flipped[0] ^= 1;
        Files.write(
                dir.resolve("flipped-entry.bad-proof"),
                new TlogProof(Optional.of(flipped), 7, good.path(), note).encode());
        Files.write(dir.resolve("wrong-index.bad-proof"), new TlogProof(good.extra(), 8, good.path(), note).encode());
        // Consistency from several older sizes, as tlog-witness add-checkpoint bodies.
        for (long old : List.of(1L, 2L, 7L, 8L, 500L, 511L, 512L, 999L, 1000L)) {
            WitnessRequest w =
                    new WitnessRequest(old, tree.consistencyProof(old).path(), note);
            Files.write(dir.resolve("from-" + old + ".witness"), w.encode());
            Files.writeString(
                    dir.resolve("from-" + old + ".witness.old"), tree.root(old).base64());
            assertThat(w.verify(List.of(signer.verifierKey()), origin, tree.root(old))
                            .verified())
                    .isTrue();
        }
        WitnessRequest w = new WitnessRequest(500, tree.consistencyProof(500).path(), note);
        Files.write(dir.resolve("rewritten.bad-witness"), w.encode());
        Files.writeString(
                dir.resolve("rewritten.bad-witness.old"), tree.root(499).base64());
        // Go signs with a key made here.
        NoteSigner forGo = NoteSigner.generate("go.example/signer");
        Files.writeString(dir.resolve("skey"), forGo.encodePrivate());
        Files.writeString(dir.resolve("gotext"), "signed by Go\n");

        String out = run(List.of(bin.toString(), dir.toString()), tmp);
        assertThat(out).contains("ok 0000.tlog-proof", "ok 0999.tlog-proof", "ok from-511.witness");
        assertThat(out).contains("refused flipped-entry.bad-proof", "refused wrong-index.bad-proof");
        assertThat(out).contains("refused rewritten.bad-witness", "ok checkpoint.note", "DONE");
        assertThat(out.lines().filter(l -> l.startsWith("ok ") && l.endsWith(".tlog-proof")))
                .hasSize(1000);
        NoteVerification v =
                SignedNote.open(Files.readAllBytes(dir.resolve("go.signed")), List.of(forGo.verifierKey()));
        assertThat(v.verified()).isTrue();
        assertThat(((NoteVerification.Verified) v).note().text()).isEqualTo("signed by Go\n");
        // Go's signature is deterministic Ed25519, byte-identical to ours.
        assertThat(Files.readAllBytes(dir.resolve("go.signed")))
                .isEqualTo(SignedNote.sign("signed by Go\n", List.of(forGo)).encode());
    }
}
