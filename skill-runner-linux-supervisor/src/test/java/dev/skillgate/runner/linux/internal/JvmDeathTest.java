package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reference row 24: the JVM is SIGKILLed mid-run. The helper's stdin (the lifeline) reaches EOF, it
 * cancels, ends the whole tree (the detached grandchild included) and exits on its own.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class JvmDeathTest {
    @TempDir
    Path data;

    @TempDir
    Path runs;

    @Test
    void row24_aKilledJvmLeavesNoSurvivors() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process jvm = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        JvmDeathDriver.class.getName(),
                        data.toString(),
                        runs.toString())
                .redirectErrorStream(true)
                .start();
        String tag;
        long helper;
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
            String line;
            do {
                line = out.readLine();
            } while (line != null && !line.startsWith("READY "));
            assertThat(line).as("the child JVM started a supervised run").isNotNull();
            String[] parts = line.split(" ");
            tag = parts[1];
            helper = Long.parseLong(parts[2]);
            Tags.register(tag);
            assertThat(ProcScan.survivors(tag))
                    .as("script and detached grandchild are running")
                    .hasSizeGreaterThanOrEqualTo(2);
        } finally {
            jvm.destroyForcibly();
            assertThat(jvm.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(ProcScan.awaitNone(tag, 10_000)).isEmpty();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcScan.alive(helper) && System.nanoTime() < until) {
            ProcScan.sleep(20);
        }
        assertThat(ProcScan.alive(helper))
                .as("the helper exited after cleaning up")
                .isFalse();
    }
}
