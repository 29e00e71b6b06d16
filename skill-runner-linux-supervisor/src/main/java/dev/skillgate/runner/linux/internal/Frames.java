package dev.skillgate.runner.linux.internal;

import java.nio.charset.StandardCharsets;

/** Decoded helper frames (docs/supervision.md, "Frames"). Parsing checks exact sizes; nothing is guessed. */
public final class Frames {
    private Frames() {}

    /** A frame that does not have the documented shape. */
    public static final class MalformedFrameException extends Exception {
        private static final long serialVersionUID = 1L;

        public MalformedFrameException(String message) {
            super(message);
        }
    }

    /** {@code H}: who the helper is, what the kernel offers, and which layer will apply. */
    public record Hello(
            int protocol,
            int layer,
            int policy,
            int parts,
            long pid,
            long startTimeTicks,
            int landlockAbi,
            int features,
            String bootId,
            String version) {

        static Hello parse(byte[] b) throws MalformedFrameException {
            if (b.length < Wire.HELLO_FIXED || b.length > Wire.HELLO_FIXED + Wire.MAX_VERSION) {
                throw new MalformedFrameException("hello frame size");
            }
            int vlen = u16(b, 60);
            if (Wire.HELLO_FIXED + vlen != b.length) {
                throw new MalformedFrameException("hello version length");
            }
            String bootId = ascii(b, 24, 36);
            if (!bootId.matches("[0-9a-f-]{36}")) {
                throw new MalformedFrameException("hello boot id");
            }
            return new Hello(
                    b[0] & 0xFF,
                    b[1] & 0xFF,
                    b[2] & 0xFF,
                    b[3] & 0xFF,
                    u32(b, 4),
                    u64(b, 8),
                    (int) u32(b, 16),
                    (int) u32(b, 20),
                    bootId,
                    ascii(b, 62, vlen));
        }

        /**
         * The start-time token recorded in the ownership record: field 22 of {@code /proc/PID/stat} in
         * decimal, the format the runner's staging janitor compares (decision 0203). A collision after
         * a reboot can only make a dead owner look alive, which keeps staging: the safe direction.
         */
        public String startTimeToken() {
            return Long.toString(startTimeTicks);
        }
    }

    /** {@code S}: the child exec'd. */
    public record Spawned(long childPid, int verification, long spawnToExecNanos, FileIdentity executable) {
        static Spawned parse(byte[] b) throws MalformedFrameException {
            if (b.length != Wire.SPAWNED_SIZE) {
                throw new MalformedFrameException("spawned frame size");
            }
            int verification = b[4] & 0xFF;
            if (verification > Wire.VERIFY_IDENTITY) {
                throw new MalformedFrameException("spawned verification");
            }
            return new Spawned(
                    u32(b, 0),
                    verification,
                    u64(b, 8),
                    new FileIdentity(
                            u64(b, 16), u64(b, 24), u64(b, 32), u64(b, 40), u64(b, 48), u64(b, 56), u64(b, 64)));
        }
    }

    /** {@code R}: how the run ended and what the sweep proved. */
    public record Result(
            int outcome,
            int proof,
            int exitKind,
            int flags,
            int exitValue,
            int setupCode,
            int errno,
            long descendantsSeen,
            long descendantsKilled,
            long killRounds,
            long pipesLeftOpen,
            long stdoutTotal,
            long stderrTotal,
            long runNanos,
            long sweepNanos,
            long childUserMicros,
            long childSystemMicros,
            long childMaxRssKib,
            String detail) {

        static Result parse(byte[] b) throws MalformedFrameException {
            if (b.length < Wire.RESULT_FIXED || b.length > Wire.RESULT_FIXED + Wire.MAX_DETAIL) {
                throw new MalformedFrameException("result frame size");
            }
            int dlen = u16(b, 88);
            if (Wire.RESULT_FIXED + dlen != b.length) {
                throw new MalformedFrameException("result detail length");
            }
            Result r = new Result(
                    b[0] & 0xFF,
                    b[1] & 0xFF,
                    b[2] & 0xFF,
                    b[3] & 0xFF,
                    (int) u32(b, 4),
                    (int) u32(b, 8),
                    (int) u32(b, 12),
                    u32(b, 16),
                    u32(b, 20),
                    u32(b, 24),
                    u32(b, 28),
                    u64(b, 32),
                    u64(b, 40),
                    u64(b, 48),
                    u64(b, 56),
                    u64(b, 64),
                    u64(b, 72),
                    u64(b, 80),
                    ascii(b, 90, dlen));
            if (r.outcome < Wire.OUT_EXITED || r.outcome > Wire.OUT_SETUP_FAILED) {
                throw new MalformedFrameException("result outcome");
            }
            if (r.proof > Wire.PROOF_NOTHING_STARTED || r.exitKind > Wire.EXIT_SIGNAL) {
                throw new MalformedFrameException("result proof or exit kind");
            }
            if (r.exitKind == Wire.EXIT_SIGNAL && (r.exitValue <= 0 || r.exitValue > 128)) {
                throw new MalformedFrameException("result signal");
            }
            return r;
        }

        public boolean detached() {
            return (flags & Wire.RFLAG_DETACHED) != 0;
        }

        /** Whether the run's cgroup said {@code populated 0} after {@code cgroup.kill}. */
        public boolean cgroupEmpty() {
            return (flags & Wire.RFLAG_CGROUP_EMPTY) != 0;
        }
    }

    static int u16(byte[] b, int off) {
        return ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF);
    }

    static long u32(byte[] b, int off) {
        return ((long) (b[off] & 0xFF) << 24)
                | ((b[off + 1] & 0xFF) << 16)
                | ((b[off + 2] & 0xFF) << 8)
                | (b[off + 3] & 0xFF);
    }

    static long u64(byte[] b, int off) {
        return (u32(b, off) << 32) | u32(b, off + 4);
    }

    private static String ascii(byte[] b, int off, int len) throws MalformedFrameException {
        for (int i = off; i < off + len; i++) {
            if (b[i] < 0x20 || b[i] > 0x7E) {
                throw new MalformedFrameException("non-printable text in frame");
            }
        }
        return new String(b, off, len, StandardCharsets.US_ASCII);
    }
}
