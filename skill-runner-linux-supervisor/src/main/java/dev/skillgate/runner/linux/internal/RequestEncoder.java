package dev.skillgate.runner.linux.internal;

import dev.skillgate.model.Confinement;
import dev.skillgate.runner.DirectoryIdentity;
import dev.skillgate.runner.LaunchConfinement;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.ResourceCeilings;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Encodes one launch request in the helper's binary format (docs/supervision.md, "Request"). The
 * encoder only frames what it is given; the helper validates every field again and refuses what is
 * out of bounds or denied. Environment entries are sent sorted by key so the bytes are deterministic.
 */
public final class RequestEncoder {
    private RequestEncoder() {}

    /**
     * What, besides the {@link LaunchSpec}, goes into a request.
     *
     * @param policy the L1 (Landlock scoping) policy byte
     * @param confinementPolicy the L2 (kernel confinement) policy byte
     * @param delegatedCgroup the cgroup v2 directory the host delegated, if it named one
     */
    public record Options(
            int policy,
            int confinementPolicy,
            int verifyMode,
            byte[] digest,
            FileIdentity identity,
            Optional<Path> delegatedCgroup) {
        public Options {
            if (digest.length != 32) {
                throw new IllegalArgumentException("digest must be 32 bytes");
            }
            digest = digest.clone();
            Objects.requireNonNull(delegatedCgroup, "delegatedCgroup");
        }

        /** Without a delegated cgroup. */
        public Options(int policy, int confinementPolicy, int verifyMode, byte[] digest, FileIdentity identity) {
            this(policy, confinementPolicy, verifyMode, digest, identity, Optional.empty());
        }

        @Override
        public byte[] digest() {
            return digest.clone();
        }
    }

    /** The request for {@code spec}. */
    public static byte[] encode(LaunchSpec spec, Options options) {
        List<String> env = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(spec.environment()).entrySet()) {
            env.add(e.getKey() + "=" + e.getValue());
        }
        ResourceCeilings c = spec.ceilings();
        return encodeRaw(new Raw(
                options.policy(),
                options.verifyMode(),
                options.digest,
                options.identity(),
                millis(spec.wallTimeout().toMillis()),
                millis(spec.terminationGrace().toMillis()),
                millis(spec.killDeadline().toMillis()),
                spec.stdoutLimit(),
                spec.stderrLimit(),
                orZero(c.cpuSeconds()),
                orZero(c.dataBytes()),
                orZero(c.fileSizeBytes()),
                orZero(c.openFiles()),
                spec.executable().toString(),
                spec.workingDirectory().toString(),
                spec.workingDirectoryIdentity(),
                spec.arguments(),
                env,
                spec.stdin(),
                confine(options.confinementPolicy(), spec.confinement(), options.delegatedCgroup(), c)));
    }

    /** The confinement section for {@code c} under {@code policy}, without resource limits. */
    static Confine confine(int policy, LaunchConfinement c) {
        return confine(policy, c, Optional.empty(), ResourceCeilings.NONE);
    }

    /**
     * The confinement section for {@code c} under {@code policy}; the cgroup limits of {@code ceilings}
     * go to the helper only together with a delegated cgroup (without one nothing would apply them).
     */
    static Confine confine(int policy, LaunchConfinement c, Optional<Path> cgroup, ResourceCeilings ceilings) {
        String dir = cgroup.map(Path::toString).orElse("");
        boolean cg = !dir.isEmpty();
        return new Confine(
                policy,
                c.writableDirectories().isPresent() ? Wire.FS_ALLOW_LIST : Wire.FS_UNRESTRICTED,
                c.tcpConnectPorts().isPresent() ? Wire.NET_TCP_ALLOW_LIST : Wire.NET_UNRESTRICTED,
                c.writableDirectories().orElse(List.of()).stream()
                        .map(Object::toString)
                        .toList(),
                c.tcpConnectPorts().orElse(List.of()),
                requiredBits(c),
                dir,
                cg ? ceilings.memoryBytes().orElse(0) : 0,
                cg ? ceilings.processes().orElse(0) : 0,
                cg ? ceilings.cpuPercent().orElse(0) * (Wire.REQ_CPU_PERIOD_US / 100) : 0);
    }

    static int requiredBits(LaunchConfinement c) {
        int bits = 0;
        if (c.required().contains(Confinement.Kind.PROCESS_REACH)) {
            bits |= Wire.CONF_PROCESS;
        }
        if (c.required().contains(Confinement.Kind.FILE_WRITES)) {
            bits |= Wire.CONF_FS_WRITES;
        }
        if (c.required().contains(Confinement.Kind.NETWORK)) {
            bits |= Wire.CONF_NET_TCP;
        }
        if (c.required().contains(Confinement.Kind.MEMORY)) {
            bits |= Wire.CONF_MEMORY;
        }
        if (c.required().contains(Confinement.Kind.PROCESS_COUNT)) {
            bits |= Wire.CONF_PIDS;
        }
        if (c.required().contains(Confinement.Kind.CPU)) {
            bits |= Wire.CONF_CPU;
        }
        return bits;
    }

    /**
     * The request's confinement section (protocols 3 and 4), unchecked.
     *
     * @param policy the L2 policy byte
     * @param fsMode {@link Wire#FS_UNRESTRICTED} or {@link Wire#FS_ALLOW_LIST}
     * @param netMode {@link Wire#NET_UNRESTRICTED} or {@link Wire#NET_TCP_ALLOW_LIST}
     * @param writable the writable directories (absolute paths)
     * @param ports the TCP ports the script may connect to
     * @param required the {@code CONF_*} bits the helper must apply or refuse
     * @param cgroupDir the delegated cgroup v2 directory, {@code ""} for none
     * @param memoryMax {@code memory.max} in bytes, 0 for none
     * @param pidsMax {@code pids.max}, 0 for none
     * @param cpuQuotaUs {@code cpu.max} quota per 100 ms, 0 for none
     */
    public record Confine(
            int policy,
            int fsMode,
            int netMode,
            List<String> writable,
            List<Integer> ports,
            int required,
            String cgroupDir,
            long memoryMax,
            long pidsMax,
            long cpuQuotaUs) {
        /** L2 off, nothing restricted. */
        public static final Confine OFF =
                new Confine(Wire.POLICY_OFF, Wire.FS_UNRESTRICTED, Wire.NET_UNRESTRICTED, List.of(), List.of(), 0);

        public Confine {
            writable = List.copyOf(writable);
            ports = List.copyOf(ports);
            Objects.requireNonNull(cgroupDir, "cgroupDir");
        }

        /** Without resources. */
        public Confine(int policy, int fsMode, int netMode, List<String> writable, List<Integer> ports, int required) {
            this(policy, fsMode, netMode, writable, ports, required, "", 0, 0, 0);
        }
    }

    /**
     * Every field of a request, unchecked: tests use it to send what a {@link LaunchSpec} would never
     * allow and prove that the helper refuses it on its own.
     */
    public record Raw(
            int policy,
            int verifyMode,
            byte[] digest,
            FileIdentity identity,
            long wallMs,
            long graceMs,
            long killMs,
            long stdoutMax,
            long stderrMax,
            long cpuSeconds,
            long dataBytes,
            long fileSizeBytes,
            long openFiles,
            String executable,
            String workingDirectory,
            Optional<DirectoryIdentity> workingDirectoryIdentity,
            List<String> arguments,
            List<String> environment,
            byte[] stdin,
            Confine confine) {
        public Raw {
            Objects.requireNonNull(confine, "confine");
            digest = digest.clone();
            Objects.requireNonNull(workingDirectoryIdentity, "workingDirectoryIdentity");
            arguments = List.copyOf(arguments);
            environment = List.copyOf(environment);
            stdin = stdin.clone();
        }

        /** A request with L2 off ({@link Confine#OFF}). */
        public Raw(
                int policy,
                int verifyMode,
                byte[] digest,
                FileIdentity identity,
                long wallMs,
                long graceMs,
                long killMs,
                long stdoutMax,
                long stderrMax,
                long cpuSeconds,
                long dataBytes,
                long fileSizeBytes,
                long openFiles,
                String executable,
                String workingDirectory,
                Optional<DirectoryIdentity> workingDirectoryIdentity,
                List<String> arguments,
                List<String> environment,
                byte[] stdin) {
            this(
                    policy,
                    verifyMode,
                    digest,
                    identity,
                    wallMs,
                    graceMs,
                    killMs,
                    stdoutMax,
                    stderrMax,
                    cpuSeconds,
                    dataBytes,
                    fileSizeBytes,
                    openFiles,
                    executable,
                    workingDirectory,
                    workingDirectoryIdentity,
                    arguments,
                    environment,
                    stdin,
                    Confine.OFF);
        }

        /** Same request with another confinement section. */
        public Raw withConfine(Confine c) {
            return new Raw(
                    policy,
                    verifyMode,
                    digest,
                    identity,
                    wallMs,
                    graceMs,
                    killMs,
                    stdoutMax,
                    stderrMax,
                    cpuSeconds,
                    dataBytes,
                    fileSizeBytes,
                    openFiles,
                    executable,
                    workingDirectory,
                    workingDirectoryIdentity,
                    arguments,
                    environment,
                    stdin,
                    c);
        }

        /** Same request with another environment. */
        public Raw withEnvironment(List<String> env) {
            return new Raw(
                    policy,
                    verifyMode,
                    digest,
                    identity,
                    wallMs,
                    graceMs,
                    killMs,
                    stdoutMax,
                    stderrMax,
                    cpuSeconds,
                    dataBytes,
                    fileSizeBytes,
                    openFiles,
                    executable,
                    workingDirectory,
                    workingDirectoryIdentity,
                    arguments,
                    env,
                    stdin,
                    confine);
        }
    }

    /** Frames {@code raw} exactly as given. */
    public static byte[] encodeRaw(Raw raw) {
        ByteArrayOutputStream body = new ByteArrayOutputStream(256 + raw.stdin.length);
        body.write(raw.policy);
        body.write(raw.verifyMode);
        body.write(raw.workingDirectoryIdentity.isPresent() ? Wire.CWD_CHECK_IDENTITY : Wire.CWD_OPEN_ONLY);
        body.write(0);
        body.writeBytes(raw.digest);
        FileIdentity id = raw.identity;
        u64(body, id.dev());
        u64(body, id.ino());
        u64(body, id.size());
        u64(body, id.mtimeSec());
        u64(body, id.mtimeNsec());
        u64(body, id.ctimeSec());
        u64(body, id.ctimeNsec());
        u64(body, raw.workingDirectoryIdentity.map(DirectoryIdentity::device).orElse(0L));
        u64(body, raw.workingDirectoryIdentity.map(DirectoryIdentity::inode).orElse(0L));
        u32(body, raw.wallMs);
        u32(body, raw.graceMs);
        u32(body, raw.killMs);
        u32(body, raw.stdoutMax);
        u32(body, raw.stderrMax);
        u64(body, raw.cpuSeconds);
        u64(body, raw.dataBytes);
        u64(body, raw.fileSizeBytes);
        u64(body, raw.openFiles);
        string(body, raw.executable);
        string(body, raw.workingDirectory);
        u32(body, raw.arguments.size());
        for (String a : raw.arguments) {
            string(body, a);
        }
        u32(body, raw.environment.size());
        for (String e : raw.environment) {
            string(body, e);
        }
        u32(body, raw.stdin.length);
        body.writeBytes(raw.stdin);
        Confine c = raw.confine;
        body.write(c.policy());
        body.write(c.fsMode());
        body.write(c.netMode());
        body.write(c.required());
        u32(body, c.writable().size());
        for (String w : c.writable()) {
            string(body, w);
        }
        u32(body, c.ports().size());
        for (int port : c.ports()) {
            body.write(port >>> 8);
            body.write(port);
        }
        string(body, c.cgroupDir());
        u64(body, c.memoryMax());
        u32(body, c.pidsMax());
        u32(body, c.cpuQuotaUs());

        byte[] b = body.toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream(9 + b.length);
        out.writeBytes(Wire.REQUEST_MAGIC);
        out.write(Wire.PROTOCOL);
        u32(out, b.length);
        out.writeBytes(b);
        return out.toByteArray();
    }

    private static long millis(long ms) {
        return Math.max(0, Math.min(ms, 0xFFFF_FFFFL));
    }

    private static long orZero(OptionalLong v) {
        return v.orElse(0);
    }

    private static void string(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        u32(out, b.length);
        out.writeBytes(b);
    }

    private static void u32(ByteArrayOutputStream out, long v) {
        out.write((int) (v >>> 24));
        out.write((int) (v >>> 16));
        out.write((int) (v >>> 8));
        out.write((int) v);
    }

    private static void u64(ByteArrayOutputStream out, long v) {
        u32(out, v >>> 32);
        u32(out, v & 0xFFFF_FFFFL);
    }
}
