package dev.skillgate.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.PortablePath;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Only approved code is compiled (issue 15, attacks 2 and 3; decision 0510), against any supervisor:
 * a co-tenant's {@code node_modules} planted in an ancestor of the data directory never executes
 * (ESM, CommonJS, worker threads), a module rewritten on disk is refused when Node loads it and the
 * run fails with {@code STAGED_MODULE_CHANGED}, and an inotify-driven same-uid attacker racing the
 * launch never gets its bytes compiled. Where the supervisor proves cleanup the exact status is
 * asserted; where it cannot (the portable one) the same causes followed by the missing proof.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
public abstract class ModuleConfinementContract {

    /** The supervisor under test. */
    protected abstract ProcessSupervisor supervisor();

    /** Launches per entry kind in the racing test. */
    protected int raceRounds() {
        return 30;
    }

    protected final String marker = TestSupport.newMarker();

    /** The co-tenant's directory: an ancestor of every data directory here, with its node_modules planted. */
    protected Path tenant;

    protected Path base;

    /** Created by any planted or rewritten code that runs; must never exist. */
    protected Path ran;

    @BeforeAll
    void plant() throws IOException {
        base = Files.createTempDirectory("skillgate-confinement");
        tenant = TestSupport.hostileRoot(base, marker);
        ran = base.resolve("attacker-code-ran");
        Path pkg = Files.createDirectories(tenant.resolve("node_modules").resolve("pretty-fmt"));
        String js = "require('fs').writeFileSync(" + jsString(ran.toString()) + ", 'planted');\n"
                + "module.exports = 'planted';\n";
        Files.writeString(pkg.resolve("index.js"), js);
        Files.writeString(
                pkg.resolve("index.mjs"),
                "import { writeFileSync } from 'node:fs';\nwriteFileSync(" + jsString(ran.toString())
                        + ", 'planted');\nexport default 'planted';\n");
        Files.writeString(
                pkg.resolve("package.json"),
                "{\"name\":\"pretty-fmt\",\"main\":\"index.js\",\"exports\":{\"import\":\"./index.mjs\","
                        + "\"require\":\"./index.js\"}}");
        // A package.json "type" in an ancestor would reinterpret the bundle's .js files: it must not count.
        Files.writeString(tenant.resolve("package.json"), "{\"type\":\"module\",\"imports\":{\"#x\":\"./x.js\"}}");
        Files.writeString(tenant.resolve("x.js"), js);
    }

    @AfterAll
    void noSurvivors() throws IOException {
        List<Long> survivors = SurvivorScan.killAll(marker);
        TestSupport.deleteTree(base);
        assertThat(survivors).as("processes left behind").isEmpty();
    }

    protected boolean proves() {
        return supervisor().capabilities().provesCleanup();
    }

    protected NodeRunner runner() throws IOException {
        return NodeRunner.builder()
                .dataDirectory(Files.createTempDirectory(tenant, "data "))
                .runtime(TestSupport.runtime())
                .supervisor(supervisor())
                .acceptUnprovenCleanup(!proves())
                .build();
    }

    protected Path workspace() throws IOException {
        return Files.createTempDirectory(tenant, "workspace ");
    }

    /** {@code s} as a JSON (and JavaScript) string literal. */
    static String jsString(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static Map<PortablePath, byte[]> bundle(String... pathsAndTexts) {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < pathsAndTexts.length; i += 2) {
            files.put(PortablePath.of(pathsAndTexts[i]), pathsAndTexts[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return files;
    }

    record Launch(ExecutionEnvelope envelope, TestSupport.StrictJsonCheck check) {}

    Launch launch(NodeRunner runner, Map<PortablePath, byte[]> files, String entry, String input) throws Exception {
        return launch(runner, files, entry, input, new AtomicReference<>());
    }

    Launch launch(
            NodeRunner runner,
            Map<PortablePath, byte[]> files,
            String entry,
            String input,
            AtomicReference<Path> stagedRunDir)
            throws Exception {
        TestSupport.StrictJsonCheck check = new TestSupport.StrictJsonCheck();
        NodeRunRequest request =
                TestSupport.request(files, PortablePath.of(entry), input, workspace(), check, 60_000, 65_536);
        AtomicReference<Path> staged = new AtomicReference<>();
        ExecutionEnvelope e = runner.start(request, ev -> {
                    // Published once the script runs: a rewrite before the re-hash would be refused as
                    // STAGING_TAMPERED before spawn, which is another test's case.
                    if (ev instanceof ProgressEvent.Staged s) {
                        staged.set(s.stagingDirectory());
                    } else if (ev instanceof ProgressEvent.Started) {
                        stagedRunDir.set(staged.get());
                    }
                })
                .envelope()
                .toCompletableFuture()
                .get(150, TimeUnit.SECONDS);
        return new Launch(e, check);
    }

    /** A positive run: success with exactly this output, or (unproven) the check saw exactly it. */
    void assertSucceeded(Launch l, String json) {
        if (proves()) {
            assertThat(l.envelope.status()).as(l.envelope.errors().toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(l.envelope.output()).contains(json);
        } else {
            assertThat(l.envelope.status())
                    .as(l.envelope.errors().toString())
                    .isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
            assertThat(l.envelope.errorCodes()).containsExactly(ErrorCode.CLEANUP_UNKNOWN, ErrorCode.STAGING_RETAINED);
        }
        assertThat(l.check.accepted).containsExactly(json);
    }

    /** The guard ended the run: the code is the first cause, no output was checked, nothing else failed. */
    void assertModuleChanged(Launch l) {
        ExecutionEnvelope e = l.envelope;
        assertThat(e.errorCodes()).as(e.errors().toString()).startsWith(ErrorCode.STAGED_MODULE_CHANGED);
        assertThat(l.check.seen)
                .as("no output is checked after the guard ended the run")
                .isEmpty();
        assertThat(e.output()).isEmpty();
        if (proves()) {
            assertThat(e.status()).isEqualTo(ExecutionStatus.FAILED);
            assertThat(e.errorCodes()).containsExactly(ErrorCode.STAGED_MODULE_CHANGED);
            assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
        } else {
            assertThat(e.status()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
        }
    }

    // ---------------------------------------------------------------- attack 2: planted node_modules

    static final String ESM_PROBES = """
            import { readFileSync } from 'node:fs';
            import { createRequire } from 'node:module';
            import { Worker } from 'node:worker_threads';
            import { v } from './lib/v.mjs';
            import data from './lib/data.json' with { type: 'json' };
            import cjs from './lib/c.cjs';
            const input = JSON.parse(readFileSync(0, 'utf8'));
            const probe = async (f) => { try { await f(); return 'loaded'; } catch (e) { return e.code; } };
            const require = createRequire(import.meta.url);
            const out = { v, data, cjs, builtin: typeof (await import('fs')).readFileSync };
            out.importBare = await probe(() => import('pretty-fmt'));
            out.importSubpath = await probe(() => import('pretty-fmt/index.js'));
            out.importImports = await probe(() => import('#x'));
            out.resolveBare = await probe(async () => import.meta.resolve('pretty-fmt'));
            out.requireBare = await probe(async () => require('pretty-fmt'));
            out.requireResolve = await probe(async () => require.resolve('pretty-fmt'));
            out.outside = await probe(() => import('../../x.js'));
            out.missing = await probe(() => import('./not-approved.mjs'));
            out.workers = [];
            for (const opts of [{}, { execArgv: [] }]) {
              const w = new Worker(new URL('./lib/worker.mjs', import.meta.url), opts);
              out.workers.push(await new Promise((res) => { w.on('message', res); w.on('error', (e) => res('error ' + e.code)); }));
            }
            out.lazy = (await import('./lib/lazy.js')).kind;
            out.unicode = (await import('./lib/ünï code.mjs')).u;
            process.stdout.write(JSON.stringify(out));
            """;

    static final String ESM_EXPECTED = "{\"v\":1,\"data\":{\"k\":2},\"cjs\":{\"c\":3,\"bare\":\"MODULE_NOT_FOUND\","
            + "\"json\":[1]},\"builtin\":\"function\",\"importBare\":\"ERR_MODULE_NOT_FOUND\","
            + "\"importSubpath\":\"ERR_MODULE_NOT_FOUND\",\"importImports\":\"ERR_MODULE_NOT_FOUND\","
            + "\"resolveBare\":\"ERR_MODULE_NOT_FOUND\",\"requireBare\":\"MODULE_NOT_FOUND\","
            + "\"requireResolve\":\"MODULE_NOT_FOUND\",\"outside\":\"ERR_MODULE_NOT_FOUND\","
            + "\"missing\":\"ERR_MODULE_NOT_FOUND\",\"workers\":[{\"bare\":\"ERR_MODULE_NOT_FOUND\",\"req\":\"MODULE_NOT_FOUND\","
            + "\"v\":1},{\"bare\":\"ERR_MODULE_NOT_FOUND\",\"req\":\"MODULE_NOT_FOUND\",\"v\":1}],\"lazy\":\"commonjs\",\"unicode\":\"ü\"}";

    static Map<PortablePath, byte[]> esmProbeBundle() {
        return bundle(
                "entry.mjs", ESM_PROBES,
                "lib/v.mjs", "export const v = 1;\n",
                "lib/ünï code.mjs", "export const u = 'ü';\n",
                "lib/data.json", "{\"k\": 2}\n",
                "lib/one.json", "[1]\n",
                "lib/c.cjs", """
                        let bare;
                        try { require('pretty-fmt'); bare = 'loaded'; } catch (e) { bare = e.code; }
                        module.exports = { c: 3, bare, json: require('./one') };
                        """,
                // No package.json in the bundle: a .js file is CommonJS, whatever an ancestor declares.
                "lib/lazy.js", "module.exports = { kind: typeof module === 'object' ? 'commonjs' : 'module' };\n",
                "lib/worker.mjs", """
                        import { parentPort } from 'node:worker_threads';
                        import { createRequire } from 'node:module';
                        import { v } from './v.mjs';
                        const out = { v };
                        try { await import('pretty-fmt'); out.bare = 'loaded'; } catch (e) { out.bare = e.code; }
                        try { createRequire(import.meta.url)('pretty-fmt'); out.req = 'loaded'; } catch (e) { out.req = e.code; }
                        parentPort.postMessage({ bare: out.bare, req: out.req, v: out.v });
                        """);
    }

    @Test
    void aPlantedNodeModulesInAnAncestorNeverRunsFromAnEsModuleItsWorkersOrItsCommonJs() throws Exception {
        Launch l = launch(runner(), esmProbeBundle(), "entry.mjs", "{}");
        assertSucceeded(l, ESM_EXPECTED);
        assertThat(ran).as("no planted code ran").doesNotExist();
    }

    static final String CJS_PROBES = """
            const { Worker } = require('node:worker_threads');
            const probe = (f) => { try { f(); return 'loaded'; } catch (e) { return e.code; } };
            const out = { a: require('./lib/a'), dir: require('./lib/pkg'), json: require('./lib/one.json') };
            out.requireBare = probe(() => require('pretty-fmt'));
            out.resolveBare = probe(() => require.resolve('pretty-fmt'));
            out.resolvePaths = probe(() => require.resolve('pretty-fmt', { paths: [__dirname + '/../..'] }));
            out.requireImports = probe(() => require('#x'));
            out.outside = probe(() => require('../../x.js'));
            out.builtin = typeof require('fs').readFileSync + ',' + typeof require('node:path').join;
            (async () => {
              try { await import('pretty-fmt'); out.importBare = 'loaded'; } catch (e) { out.importBare = e.code; }
              out.esm = (await import('./lib/m.mjs')).m;
              const w = new Worker(__dirname + '/lib/w.cjs', { execArgv: [] });
              out.worker = await new Promise((res) => { w.on('message', res); w.on('error', (e) => res('error ' + e.code)); });
              process.stdout.write(JSON.stringify(out));
            })();
            """;

    static final String CJS_EXPECTED =
            "{\"a\":\"a\",\"dir\":\"pkg-main\",\"json\":[1],\"requireBare\":\"MODULE_NOT_FOUND\","
                    + "\"resolveBare\":\"MODULE_NOT_FOUND\",\"resolvePaths\":\"MODULE_NOT_FOUND\","
                    + "\"requireImports\":\"MODULE_NOT_FOUND\",\"outside\":\"MODULE_NOT_FOUND\","
                    + "\"builtin\":\"function,function\",\"importBare\":\"ERR_MODULE_NOT_FOUND\",\"esm\":\"m\","
                    + "\"worker\":{\"bare\":\"MODULE_NOT_FOUND\",\"a\":\"a\"}}";

    @Test
    void aPlantedNodeModulesInAnAncestorNeverRunsFromACommonJsEntrypointOrItsWorkers() throws Exception {
        Map<PortablePath, byte[]> files = bundle(
                "main.cjs", CJS_PROBES,
                "lib/a.js", "module.exports = 'a';\n",
                "lib/one.json", "[1]\n",
                "lib/m.mjs", "export const m = 'm';\n",
                "lib/pkg/package.json", "{\"main\": \"./main.js\"}\n",
                "lib/pkg/main.js", "module.exports = 'pkg-main';\n",
                "lib/w.cjs", """
                        const { parentPort } = require('node:worker_threads');
                        let bare; try { require('pretty-fmt'); bare = 'loaded'; } catch (e) { bare = e.code; }
                        parentPort.postMessage({ bare, a: require('./a') });
                        """);
        Launch l = launch(runner(), files, "main.cjs", "{}");
        assertSucceeded(l, CJS_EXPECTED);
        assertThat(ran).as("no planted code ran").doesNotExist();
    }

    // ------------------------------------------- attack 3: a concurrent hostile run rewrites a lazy module

    /** How the victim loads the module that the hostile run rewrites while it waits. */
    enum Lazy {
        ESM_IMPORT(
                "entry.mjs",
                "lib.mjs",
                "import('./lib.mjs').then((m) => m.value)",
                "import { writeFileSync } from 'node:fs';\nwriteFileSync(%s, 'x');\nexport const value = 'evil';\n",
                "export const value = 'approved';\n"),
        CJS_REQUIRE(
                "entry.cjs",
                "lib.cjs",
                "Promise.resolve().then(() => require('./lib.cjs').value)",
                "require('fs').writeFileSync(%s, 'x');\nexports.value = 'evil';\n",
                "exports.value = 'approved';\n"),
        CJS_IMPORTED_FROM_ESM(
                "entry.mjs",
                "lib.cjs",
                "import('./lib.cjs').then((m) => m.default.value)",
                "require('fs').writeFileSync(%s, 'x');\nexports.value = 'evil';\n",
                "exports.value = 'approved';\n"),
        JSON_MODULE(
                "entry.mjs",
                "lib.json",
                "import('./lib.json', { with: { type: 'json' } }).then((m) => m.default.value)",
                "{\"value\": \"evil\", \"pad\": %s}\n",
                "{\"value\": \"approved\"}\n"),
        IN_A_WORKER(
                "entry.mjs",
                "lib.mjs",
                """
                new Promise((res) => {
                  const w = new (globalThis.W)(new URL('./worker.mjs', import.meta.url), { execArgv: [] });
                  w.on('message', res); w.on('error', (e) => res('worker error ' + e.code));
                })""",
                "import { writeFileSync } from 'node:fs';\nwriteFileSync(%s, 'x');\nexport const value = 'evil';\n",
                "export const value = 'approved';\n");

        final String entry;
        final String lib;
        final String load;
        final String evil;
        final String approved;

        Lazy(String entry, String lib, String load, String evil, String approved) {
            this.entry = entry;
            this.lib = lib;
            this.load = load;
            this.evil = evil;
            this.approved = approved;
        }

        Map<PortablePath, byte[]> victim() {
            String wait = "const input = JSON.parse(readFileSync(0, 'utf8'));\n"
                    + "const until = Date.now() + 30000;\n"
                    + "const tick = () => existsSync(input.go) || Date.now() > until ? go() : setTimeout(tick, 10);\n"
                    + "const go = () => (" + load + ").then((value) => process.stdout.write(JSON.stringify({ value })),"
                    + " (e) => process.stdout.write(JSON.stringify({ value: 'caught ' + e.code })));\n"
                    + "tick();\n";
            String head = entry.endsWith(".cjs")
                    ? "const { readFileSync, existsSync } = require('node:fs');\n"
                    : "import { readFileSync, existsSync } from 'node:fs';\n"
                            + "import { Worker } from 'node:worker_threads';\nglobalThis.W = Worker;\n";
            Map<PortablePath, byte[]> files = bundle(entry, head + wait, lib, approved);
            if (this == IN_A_WORKER) {
                files.putAll(bundle(
                        "worker.mjs",
                        "import { parentPort } from 'node:worker_threads';\n"
                                + "const m = await import('./lib.mjs');\nparentPort.postMessage(m.value);\n"));
            }
            return files;
        }
    }

    /** The hostile approved script of another run: rewrites the target in place (as its user may) and says go. */
    static final String HOSTILE = """
            const fs = require('node:fs');
            const path = require('node:path');
            const input = JSON.parse(fs.readFileSync(0, 'utf8'));
            process.on('uncaughtException', (e) => {
              process.stdout.write(JSON.stringify({ failed: String(e.code) + ' ' + e.syscall + ' ' + e.path }));
              process.exit(0);
            });
            const dir = path.dirname(input.target);
            fs.chmodSync(dir, 0o700);
            if (input.link) {
              // Swap the file for a link to attacker bytes elsewhere (the link itself cannot be chmod'ed).
              const elsewhere = input.go + '.evil';
              fs.writeFileSync(elsewhere, input.evil);
              fs.unlinkSync(input.target);
              fs.symlinkSync(elsewhere, input.target);
            } else {
              fs.chmodSync(input.target, 0o600);
              fs.writeFileSync(input.target, input.evil);
              fs.chmodSync(input.target, 0o400);
            }
            fs.chmodSync(dir, 0o500);
            // Checked before "go": once the victim loads the module its run ends and its staging goes.
            const rewrote = fs.readFileSync(input.target, 'utf8') === input.evil;
            fs.writeFileSync(input.go, 'go');
            process.stdout.write(JSON.stringify({ rewrote }));
            """;

    @ParameterizedTest
    @EnumSource(Lazy.class)
    void aConcurrentHostileRunRewritingALazilyLoadedModuleGetsTheVictimRefusedAtLoad(Lazy lazy) throws Exception {
        hostileRewrite(lazy, false);
    }

    @ParameterizedTest
    @EnumSource(
            value = Lazy.class,
            names = {"ESM_IMPORT", "CJS_REQUIRE"})
    void aLazilyLoadedModuleSwappedForALinkToAttackerBytesIsRefusedAtLoad(Lazy lazy) throws Exception {
        hostileRewrite(lazy, true);
    }

    private void hostileRewrite(Lazy lazy, boolean link) throws Exception {
        NodeRunner victimRunner = runner();
        NodeRunner hostileRunner = runner();
        Path go = base.resolve("go-" + lazy + "-" + System.nanoTime());
        AtomicReference<Path> victimDir = new AtomicReference<>();
        String input = "{\"go\":" + jsString(go.toString()) + "}";
        CompletableFuture<Launch> victim = CompletableFuture.supplyAsync(() -> {
            try {
                return launch(victimRunner, lazy.victim(), lazy.entry, input, victimDir);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (victimDir.get() == null && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(victimDir.get()).as("the victim started").isNotNull();
        Path target = victimDir.get().resolve("bundle").resolve(lazy.lib);
        String evil = lazy.evil.formatted(jsString(ran.toString()));
        Launch hostile = launch(
                hostileRunner,
                bundle("hostile.cjs", HOSTILE),
                "hostile.cjs",
                "{\"target\":" + jsString(target.toString()) + ",\"evil\":" + jsString(evil) + ",\"go\":"
                        + jsString(go.toString()) + ",\"link\":" + link + "}");
        assertSucceeded(hostile, "{\"rewrote\":true}");
        Launch v = victim.get(150, TimeUnit.SECONDS);
        assertModuleChanged(v);
        assertThat(ran).as("the rewritten module never ran").doesNotExist();
    }

    @Test
    void anUncaughtMissingModuleFailsAsAnOrdinaryExitWithinTheStderrBound() throws Exception {
        // The guard's stack frames carry a short name, not the tens of kilobytes of their data: URL.
        for (String entry : new String[] {"entry.cjs", "entry.mjs"}) {
            Launch l = launch(
                    runner(),
                    bundle(entry, entry.endsWith(".cjs") ? "require('./nope');\n" : "await import('pretty-fmt');\n"),
                    entry,
                    "{}");
            assertThat(l.envelope.errorCodes()).as(entry).startsWith(ErrorCode.EXEC_NONZERO_EXIT);
        }
    }

    @ParameterizedTest
    @EnumSource(Lazy.class)
    void theSameVictimWithoutAnAttackSucceeds(Lazy lazy) throws Exception {
        Path go = base.resolve("go-now-" + lazy + "-" + System.nanoTime());
        Files.writeString(go, "go");
        Launch l = launch(runner(), lazy.victim(), lazy.entry, "{\"go\":" + jsString(go.toString()) + "}");
        assertSucceeded(l, "{\"value\":\"approved\"}");
    }

    // ------------------------- attack 3: a same-uid inotify watcher rewrites the entrypoint at launch

    /**
     * A separate attacker process (node, fs.watch = inotify) watches the staging root; for every new
     * run directory it waits until the ownership record appears, then, after a delay of 0–39 ms that
     * cycles through the range, rewrites the staged entrypoint in place with bytes that would mark
     * {@code ran} and print a different result. It logs one line per rewrite.
     */
    static final String WATCHER = """
            const fs = require('node:fs');
            const path = require('node:path');
            const [staging, entry, evilFile] = process.argv.slice(2);
            const evil = fs.readFileSync(evilFile);
            const seen = new Set();
            let n = 0;
            const attack = (runDir) => {
              const delay = (n++ * 7) % 40;
              setTimeout(() => {
                const target = path.join(runDir, 'bundle', entry);
                try {
                  fs.chmodSync(path.dirname(target), 0o700);
                  fs.chmodSync(target, 0o600);
                  fs.writeFileSync(target, evil);
                  fs.chmodSync(target, 0o400);
                  fs.chmodSync(path.dirname(target), 0o500);
                  process.stdout.write('rewrote ' + delay + '\\n');
                } catch (e) {
                  process.stdout.write('missed ' + delay + ' ' + e.code + '\\n');
                }
              }, delay);
            };
            fs.watch(staging, (event, name) => {
              if (!name || seen.has(name)) return;
              const runDir = path.join(staging, name);
              seen.add(name);
              let done = false;
              const fire = () => { if (!done) { done = true; attack(runDir); } };
              try {
                const w = fs.watch(runDir, (e, f) => { if (f === 'owner') { fire(); w.close(); } });
                if (fs.existsSync(path.join(runDir, 'owner'))) { fire(); w.close(); }
              } catch (e) { /* the directory went already */ }
            });
            process.stdout.write('watching\\n');
            """;

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"entry.mjs", "entry.cjs"})
    void aSameUidWatcherRewritingTheEntrypointAtLaunchNeverGetsItsBytesCompiled(String entry) throws Exception {
        NodeRunner runner = runner();
        Path staging = runner.dataDirectory().resolve("staging");
        Files.createDirectories(
                staging,
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        Path watcherScript = base.resolve("watcher-" + System.nanoTime() + ".cjs");
        Files.writeString(watcherScript, WATCHER);
        Path evil = base.resolve("evil-" + System.nanoTime());
        String evilText = "require('fs').writeFileSync(" + jsString(ran.toString()) + ", 'x');\n"
                + "process.stdout.write(JSON.stringify({ who: 'attacker' }));\n";
        Files.writeString(
                evil,
                entry.endsWith(".mjs")
                        ? "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n"
                                + evilText
                        : evilText);
        String approved = entry.endsWith(".mjs")
                ? "import { readFileSync } from 'node:fs';\nreadFileSync(0);\nprocess.stdout.write(JSON.stringify({ who: 'approved' }));\n"
                : "require('node:fs').readFileSync(0);\nprocess.stdout.write(JSON.stringify({ who: 'approved' }));\n";
        ProcessBuilder pb = new ProcessBuilder(
                        TestSupport.node().toString(),
                        watcherScript.toString(),
                        staging.toString(),
                        entry,
                        evil.toString(),
                        marker)
                .redirectError(base.resolve("watcher-" + entry + ".err").toFile());
        pb.environment().clear(); // the surefire JVM carries planted NODE_OPTIONS canaries
        Process watcher = pb.start();
        List<String> log = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(watcher.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    log.add(line);
                }
            } catch (IOException e) {
                // The watcher was stopped.
            }
        });
        reader.setDaemon(true);
        reader.start();
        int succeeded = 0;
        int changedAtLoad = 0;
        int tamperedBeforeSpawn = 0;
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!log.contains("watching") && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(log)
                    .as("the watcher started: %s", Files.readString(base.resolve("watcher-" + entry + ".err")))
                    .contains("watching");
            for (int i = 0; i < raceRounds(); i++) {
                Launch l = launch(runner, bundle(entry, approved), entry, "{}");
                ExecutionEnvelope e = l.envelope;
                List<ErrorCode> codes = e.errorCodes();
                if (codes.contains(ErrorCode.STAGED_MODULE_CHANGED)) {
                    assertModuleChanged(l);
                    changedAtLoad++;
                } else if (codes.contains(ErrorCode.STAGING_TAMPERED)) {
                    assertThat(e.status()).isEqualTo(ExecutionStatus.REFUSED);
                    assertThat(l.check.seen).isEmpty();
                    tamperedBeforeSpawn++;
                } else {
                    // The rewrite came after Node had read the entrypoint: the approved bytes ran.
                    assertSucceeded(l, "{\"who\":\"approved\"}");
                    succeeded++;
                }
                assertThat(l.check.accepted).doesNotContain("{\"who\":\"attacker\"}");
                assertThat(ran).as("the attacker's bytes never ran").doesNotExist();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (log.stream()
                                    .filter(s -> s.startsWith("rewrote") || s.startsWith("missed"))
                                    .count()
                            < raceRounds()
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } finally {
            watcher.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        System.out.printf(
                "[module guard race %s] %d launches: %d refused at load (STAGED_MODULE_CHANGED), %d refused before"
                        + " spawn (STAGING_TAMPERED), %d ran the approved bytes (rewrite too late); watcher: %s%n",
                entry, raceRounds(), changedAtLoad, tamperedBeforeSpawn, succeeded, summarize(log));
        // A rewrite the watcher scheduled after a run had already ended finds nothing ("missed"); most land.
        assertThat(log.stream().filter(s -> s.startsWith("rewrote")).count())
                .as("the watcher rewrote the entrypoint of most launches")
                .isGreaterThanOrEqualTo(raceRounds() / 2);
        assertThat(ran).doesNotExist();
    }

    private static String summarize(List<String> log) {
        List<String> out = new ArrayList<>(log);
        out.remove("watching");
        return out.size() + " rewrites";
    }
}
