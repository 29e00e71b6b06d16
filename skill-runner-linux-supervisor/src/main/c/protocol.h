/*
 * Wire constants shared by the helper and (by hand) the Java driver. docs/supervision.md documents
 * every byte; ProtocolConstantsTest checks that the Java side agrees with this file.
 */
#ifndef SKILLGATE_PROTOCOL_H
#define SKILLGATE_PROTOCOL_H

#define SV_VERSION "1.2.0"
/* 2: the seal byte before the request; the working-directory identity in the request.
 * 3: the confinement section (L2) after stdin; the hello's byte 3 names the L2 parts that apply.
 * 4: the resources part (L2): a delegated cgroup v2 directory and memory/pids/cpu limits after the ports. */
#define SV_PROTOCOL 4

/* Request (Java -> helper stdin). */
#define REQ_MAGIC "SKSV"
#define REQ_MAX_BODY (2u * 1024u * 1024u + 64u * 1024u)
#define REQ_MAX_PATH 4095u
#define REQ_MAX_STRING (128u * 1024u)
#define REQ_MAX_ARGS 1024u
#define REQ_MAX_ENV 1024u
#define REQ_MAX_STRINGS_TOTAL (1024u * 1024u)
#define REQ_MAX_STDIN (1024u * 1024u)
#define REQ_MAX_WALL_MS 300000u
#define REQ_MAX_GRACE_MS 30000u
#define REQ_MAX_KILL_MS 60000u
#define REQ_MAX_STDOUT 262144u
#define REQ_MAX_STDERR 16384u
#define REQ_MAX_WRITABLE 16u
#define REQ_MAX_PORTS 64u
#define REQ_MAX_PIDS 4194304u
#define REQ_CPU_PERIOD_US 100000u
#define REQ_MIN_CPU_QUOTA_US 1000u
#define REQ_MAX_CPU_QUOTA_US 102400000u

/* Landlock policy byte. */
#define POLICY_OFF 0
#define POLICY_PREFER 1
#define POLICY_REQUIRE 2

/* Confinement section (L2): file writes and TCP. */
#define FS_UNRESTRICTED 0
#define FS_ALLOW_LIST 1
#define NET_UNRESTRICTED 0
#define NET_TCP_ALLOW_LIST 1

/* L2 parts (hello byte 3: the parts that will apply). */
#define CONF_FS_WRITES 0x01u
#define CONF_NET_TCP 0x02u
#define CONF_PROCESS 0x04u
/* Resources (protocol 4): the run in its own child of the delegated cgroup, and each limit there. */
#define CONF_MEMORY 0x08u
#define CONF_PIDS 0x10u
#define CONF_CPU 0x20u
#define CONF_CGROUP 0x40u

/* Executable verification mode (request) and what was done (spawned frame). */
#define VERIFY_NONE 0
#define VERIFY_FULL 1
#define VERIFY_IDENTITY 2

/* Working-directory check (request byte 2). */
#define CWD_OPEN_ONLY 0
#define CWD_CHECK_IDENTITY 1

/* Seal (Java -> helper stdin, before the request): the JVM has verified the running image. */
#define SEAL_VERIFIED 'V'

/* Lifeline bytes (Java -> helper stdin, after the request). */
#define LIFELINE_GO 'G'
#define LIFELINE_CANCEL 'C'

/* Frame types (helper stdout -> Java): u8 type | u32 big-endian length | payload. */
#define FRAME_HELLO 'H'
#define FRAME_SPAWNED 'S'
#define FRAME_STDOUT 'O'
#define FRAME_STDERR 'E'
#define FRAME_TERMINATING 'T'
#define FRAME_RESULT 'R'
#define FRAME_END 'Z'
#define FRAME_MAX_CHUNK 65536u

/* Hardening layers. */
#define LAYER_NONE 0
#define LAYER_L0 1
#define LAYER_L1 2
#define LAYER_L2 3

/* Feature bits in the hello frame. */
#define FEAT_SUBREAPER 0x01u
#define FEAT_PIDFD 0x02u
#define FEAT_CLOSE_RANGE 0x04u
#define FEAT_LANDLOCK_SCOPE 0x08u
#define FEAT_NOT_DUMPABLE 0x10u
#define FEAT_PROC_CHILDREN 0x20u
#define FEAT_SIGNALFD 0x40u
#define FEAT_PID_NAMESPACE 0x80u

/* Outcomes. */
#define OUT_EXITED 1
#define OUT_SIGNALED 2
#define OUT_TIMED_OUT 3
#define OUT_CANCELLED 4
#define OUT_STDOUT_LIMIT 5
#define OUT_STDERR_LIMIT 6
#define OUT_SPAWN_FAILED 7
#define OUT_SETUP_FAILED 8

/* Cleanup proofs. */
#define PROOF_NONE 0
#define PROOF_ECHILD 1
#define PROOF_NOTHING_STARTED 2

/* Exit kinds. */
#define EXIT_NONE 0
#define EXIT_CODE 1
#define EXIT_SIGNAL 2

/* Result flags. */
#define RFLAG_DETACHED 0x01u
#define RFLAG_STDOUT_OVERFLOW 0x02u
#define RFLAG_STDERR_OVERFLOW 0x04u
#define RFLAG_SINK_BROKEN 0x08u
#define RFLAG_CGROUP_EMPTY 0x10u

/* Setup codes (why nothing ran, or which step before exec failed). */
#define SC_NONE 0
#define SC_REQUEST_MALFORMED 1
#define SC_REQUEST_BOUNDS 2
#define SC_PATH_NOT_ABSOLUTE 3
#define SC_ENV_DENIED 4
#define SC_ENV_MALFORMED 5
#define SC_DIGEST_MISMATCH 6
#define SC_EXEC_OPEN 7
#define SC_EXEC_NOT_REGULAR 8
#define SC_HARDENING_UNAVAILABLE 9
#define SC_SUBREAPER 10
#define SC_RESOURCE 11
#define SC_LIFELINE_PROTOCOL 12
#define SC_WORKSPACE_CHANGED 13
#define SC_CONFINEMENT_UNAVAILABLE 14
#define SC_CONFINEMENT_PATH 15
#define SC_CGROUP_UNUSABLE 16
#define SC_CGROUP_NO_MEMORY 17
#define SC_CGROUP_NO_PIDS 18
#define SC_CGROUP_NO_CPU 19
#define SC_CHILD_SETSID 20
#define SC_CHILD_SIGNALS 21
#define SC_CHILD_PDEATHSIG 22
#define SC_CHILD_RLIMIT 23
#define SC_CHILD_CHDIR 24
#define SC_CHILD_DUP 25
#define SC_CHILD_NO_NEW_PRIVS 26
#define SC_CHILD_LANDLOCK 27
#define SC_CHILD_VERIFY 28
#define SC_CHILD_EXEC 29
#define SC_CHILD_NAMESPACE 30
#define SC_CHILD_CGROUP 31
#define SC_CGROUP_UNGUARDED 32

/* Exit status of the helper. */
#define HELPER_EXIT_PROVEN 0
#define HELPER_EXIT_INTERNAL 1
#define HELPER_EXIT_UNPROVEN 2
#define HELPER_EXIT_USAGE 64

#endif
