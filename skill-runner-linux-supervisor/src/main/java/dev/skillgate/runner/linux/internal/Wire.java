package dev.skillgate.runner.linux.internal;

/**
 * The wire constants of the helper protocol, mirrored by hand from {@code src/main/c/protocol.h}
 * ({@code ProtocolConstantsTest} parses that header and checks every value here). The byte-level
 * description is in {@code docs/supervision.md}.
 */
public final class Wire {
    private Wire() {}

    public static final int PROTOCOL = 4;
    public static final byte[] REQUEST_MAGIC = {'S', 'K', 'S', 'V'};

    public static final int REQ_MAX_BODY = 2 * 1024 * 1024 + 64 * 1024;
    public static final int REQ_MAX_PATH = 4095;
    public static final int REQ_MAX_STRING = 128 * 1024;
    public static final int REQ_MAX_ARGS = 1024;
    public static final int REQ_MAX_ENV = 1024;
    public static final int REQ_MAX_STRINGS_TOTAL = 1024 * 1024;
    public static final int REQ_MAX_STDIN = 1024 * 1024;
    public static final int REQ_MAX_WALL_MS = 300_000;
    public static final int REQ_MAX_GRACE_MS = 30_000;
    public static final int REQ_MAX_KILL_MS = 60_000;
    public static final int REQ_MAX_STDOUT = 262_144;
    public static final int REQ_MAX_STDERR = 16_384;
    public static final int REQ_MAX_WRITABLE = 16;
    public static final int REQ_MAX_PORTS = 64;
    public static final int REQ_MAX_PIDS = 4_194_304;
    public static final int REQ_CPU_PERIOD_US = 100_000;
    public static final int REQ_MIN_CPU_QUOTA_US = 1_000;
    public static final int REQ_MAX_CPU_QUOTA_US = 102_400_000;

    public static final int POLICY_OFF = 0;
    public static final int POLICY_PREFER = 1;
    public static final int POLICY_REQUIRE = 2;

    public static final int FS_UNRESTRICTED = 0;
    public static final int FS_ALLOW_LIST = 1;
    public static final int NET_UNRESTRICTED = 0;
    public static final int NET_TCP_ALLOW_LIST = 1;

    public static final int CONF_FS_WRITES = 0x01;
    public static final int CONF_NET_TCP = 0x02;
    public static final int CONF_PROCESS = 0x04;
    public static final int CONF_MEMORY = 0x08;
    public static final int CONF_PIDS = 0x10;
    public static final int CONF_CPU = 0x20;
    public static final int CONF_CGROUP = 0x40;

    public static final int VERIFY_NONE = 0;
    public static final int VERIFY_FULL = 1;
    public static final int VERIFY_IDENTITY = 2;

    public static final int CWD_OPEN_ONLY = 0;
    public static final int CWD_CHECK_IDENTITY = 1;

    public static final byte SEAL_VERIFIED = 'V';

    public static final byte LIFELINE_GO = 'G';
    public static final byte LIFELINE_CANCEL = 'C';

    public static final int FRAME_HELLO = 'H';
    public static final int FRAME_SPAWNED = 'S';
    public static final int FRAME_STDOUT = 'O';
    public static final int FRAME_STDERR = 'E';
    public static final int FRAME_TERMINATING = 'T';
    public static final int FRAME_RESULT = 'R';
    public static final int FRAME_END = 'Z';
    public static final int FRAME_MAX_CHUNK = 65536;

    public static final int LAYER_NONE = 0;
    public static final int LAYER_L0 = 1;
    public static final int LAYER_L1 = 2;
    public static final int LAYER_L2 = 3;

    public static final int FEAT_SUBREAPER = 0x01;
    public static final int FEAT_PIDFD = 0x02;
    public static final int FEAT_CLOSE_RANGE = 0x04;
    public static final int FEAT_LANDLOCK_SCOPE = 0x08;
    public static final int FEAT_NOT_DUMPABLE = 0x10;
    public static final int FEAT_PROC_CHILDREN = 0x20;
    public static final int FEAT_SIGNALFD = 0x40;
    public static final int FEAT_PID_NAMESPACE = 0x80;

    public static final int OUT_EXITED = 1;
    public static final int OUT_SIGNALED = 2;
    public static final int OUT_TIMED_OUT = 3;
    public static final int OUT_CANCELLED = 4;
    public static final int OUT_STDOUT_LIMIT = 5;
    public static final int OUT_STDERR_LIMIT = 6;
    public static final int OUT_SPAWN_FAILED = 7;
    public static final int OUT_SETUP_FAILED = 8;

    public static final int PROOF_NONE = 0;
    public static final int PROOF_ECHILD = 1;
    public static final int PROOF_NOTHING_STARTED = 2;

    public static final int EXIT_NONE = 0;
    public static final int EXIT_CODE = 1;
    public static final int EXIT_SIGNAL = 2;

    public static final int RFLAG_DETACHED = 0x01;
    public static final int RFLAG_STDOUT_OVERFLOW = 0x02;
    public static final int RFLAG_STDERR_OVERFLOW = 0x04;
    public static final int RFLAG_SINK_BROKEN = 0x08;
    public static final int RFLAG_CGROUP_EMPTY = 0x10;

    public static final int SC_NONE = 0;
    public static final int SC_REQUEST_MALFORMED = 1;
    public static final int SC_REQUEST_BOUNDS = 2;
    public static final int SC_PATH_NOT_ABSOLUTE = 3;
    public static final int SC_ENV_DENIED = 4;
    public static final int SC_ENV_MALFORMED = 5;
    public static final int SC_DIGEST_MISMATCH = 6;
    public static final int SC_EXEC_OPEN = 7;
    public static final int SC_EXEC_NOT_REGULAR = 8;
    public static final int SC_HARDENING_UNAVAILABLE = 9;
    public static final int SC_SUBREAPER = 10;
    public static final int SC_RESOURCE = 11;
    public static final int SC_LIFELINE_PROTOCOL = 12;
    public static final int SC_WORKSPACE_CHANGED = 13;
    public static final int SC_CONFINEMENT_UNAVAILABLE = 14;
    public static final int SC_CONFINEMENT_PATH = 15;
    public static final int SC_CGROUP_UNUSABLE = 16;
    public static final int SC_CGROUP_NO_MEMORY = 17;
    public static final int SC_CGROUP_NO_PIDS = 18;
    public static final int SC_CGROUP_NO_CPU = 19;
    public static final int SC_CHILD_SETSID = 20;
    public static final int SC_CHILD_SIGNALS = 21;
    public static final int SC_CHILD_PDEATHSIG = 22;
    public static final int SC_CHILD_RLIMIT = 23;
    public static final int SC_CHILD_CHDIR = 24;
    public static final int SC_CHILD_DUP = 25;
    public static final int SC_CHILD_NO_NEW_PRIVS = 26;
    public static final int SC_CHILD_LANDLOCK = 27;
    public static final int SC_CHILD_VERIFY = 28;
    public static final int SC_CHILD_EXEC = 29;
    public static final int SC_CHILD_NAMESPACE = 30;
    public static final int SC_CHILD_CGROUP = 31;
    public static final int SC_CGROUP_UNGUARDED = 32;

    public static final int HELPER_EXIT_PROVEN = 0;
    public static final int HELPER_EXIT_INTERNAL = 1;
    public static final int HELPER_EXIT_UNPROVEN = 2;
    public static final int HELPER_EXIT_USAGE = 64;

    /** Sizes of the fixed-layout frames. */
    public static final int HELLO_FIXED = 62;

    public static final int SPAWNED_SIZE = 72;
    public static final int RESULT_FIXED = 90;
    public static final int MAX_VERSION = 64;
    public static final int MAX_DETAIL = 256;
}
