package dev.skillgate.audit;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * The child JVM of {@link CrashLoopTest} (not a test): opens the log and appends until killed.
 *
 * <p>After every acknowledged (committed) append it writes {@code ack <seq> <A|R> <scope number>}
 * to the acknowledgement file with one unbuffered {@code write(2)}, which survives {@code kill -9}
 * (the page cache belongs to the kernel). Standard output only carries {@code ready}: the JDK can
 * lose the last lines a killed child wrote to a pipe while the parent's reaper thread drains it.
 */
public final class CrashLoopChild {
    private CrashLoopChild() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        int iteration = Integer.parseInt(args[1]);
        Path acks = Path.of(args[2]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Random random = new Random(iteration);
        try (FileOutputStream ackFile = new FileOutputStream(acks.toFile(), true)) {
            AuditLog log = AuditLog.open(AuditLogOptions.builder(dir)
                    .openWait(Duration.ofSeconds(30))
                    .build());
            ack(ackFile, "ready " + log.status().state() + " " + log.status().committedSequence());
            out.println("ready");
            if (!log.status().writable()) {
                ack(ackFile, "not-writable " + log.status());
                return;
            }
            for (int i = 0; i < 10_000; i++) {
                List<TrustDecision> trusted = log.list().stream()
                        .filter(d -> d.status() == TrustStatus.TRUSTED)
                        .toList();
                if (!trusted.isEmpty() && random.nextInt(3) == 0) {
                    PromptSkillScope scope = (PromptSkillScope)
                            trusted.get(random.nextInt(trusted.size())).scope();
                    AppendResult r = log.revoke(scope);
                    ack(
                            ackFile,
                            r instanceof AppendResult.Committed c
                                    ? "ack " + c.sequence() + " R " + number(scope)
                                    : "result " + r);
                } else {
                    int n = iteration * 10_000 + i;
                    AppendResult r = log.approve(Fixtures.prompt(n));
                    ack(
                            ackFile,
                            r instanceof AppendResult.Committed c ? "ack " + c.sequence() + " A " + n : "result " + r);
                }
            }
        }
    }

    private static void ack(FileOutputStream file, String line) throws IOException {
        file.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    }

    static int number(PromptSkillScope scope) {
        return Integer.parseInt(scope.skill().value().substring("skill-".length()));
    }
}
