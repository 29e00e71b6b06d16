package dev.skillgate.runner.linux.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code skillgate-supervisor --probe} once (it waits for the seal, so the JVM can check the
 * process first) and parses what the helper reports about itself and
 * the kernel: version, protocol, subreaper, pidfd, {@code close_range}, the children file, the
 * Landlock ABI and its own SHA-256/CRC-32C self-test.
 */
public final class HelperProbe {
    private HelperProbe() {}

    /** What the probe reported. */
    public record Probe(
            String version,
            int protocol,
            boolean subreaper,
            boolean pidfd,
            boolean closeRange,
            boolean procChildren,
            int landlockAbi,
            boolean landlockScope,
            boolean landlockFs,
            boolean landlockNet,
            boolean pidNamespace,
            boolean selftestOk) {}

    /**
     * Runs the probe on the verified helper ({@link HelperImage#start}, like every helper start);
     * empty if the helper cannot run or says something unparsable.
     */
    public static Optional<Probe> run(HelperInstaller.Installed installed) {
        return probe(installed).probe();
    }

    /** The probe, or the refusal that kept it from running. */
    record Outcome(Optional<Probe> probe, Optional<HelperInstaller.Unavailable> refusal) {}

    static Outcome probe(HelperInstaller.Installed installed) {
        HelperImage.Start start = HelperImage.start(installed, HelperLauncher.direct(), List.of("--probe"));
        if (start instanceof HelperImage.Refused r) {
            return new Outcome(Optional.empty(), Optional.of(r.reason()));
        }
        Process p = ((HelperImage.Started) start).process();
        try (InputStream in = p.getInputStream()) {
            p.getOutputStream().close();
            byte[] out = in.readNBytes(4096);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return new Outcome(Optional.empty(), Optional.empty());
            }
            return new Outcome(parse(new String(out, StandardCharsets.US_ASCII)), Optional.empty());
        } catch (IOException e) {
            p.destroyForcibly();
            return new Outcome(Optional.empty(), Optional.empty());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Outcome(Optional.empty(), Optional.empty());
        }
    }

    static Optional<Probe> parse(String text) {
        Map<String, String> kv = new HashMap<>();
        for (String line : text.split("\n")) {
            int sp = line.indexOf(' ');
            if (sp > 0) {
                kv.put(line.substring(0, sp), line.substring(sp + 1).trim());
            }
        }
        try {
            return Optional.of(new Probe(
                    required(kv, "skillgate-supervisor"),
                    Integer.parseInt(required(kv, "protocol")),
                    yes(kv, "subreaper"),
                    yes(kv, "pidfd"),
                    yes(kv, "close_range"),
                    yes(kv, "proc_children"),
                    Integer.parseInt(required(kv, "landlock_abi")),
                    yes(kv, "landlock_scope"),
                    yes(kv, "landlock_fs"),
                    yes(kv, "landlock_net"),
                    yes(kv, "pid_namespace"),
                    "ok".equals(kv.get("selftest"))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String required(Map<String, String> kv, String key) {
        String v = kv.get(key);
        if (v == null || v.isEmpty() || v.length() > 64) {
            throw new IllegalArgumentException("missing " + key);
        }
        return v;
    }

    private static boolean yes(Map<String, String> kv, String key) {
        return "yes".equals(required(kv, key));
    }
}
