package dev.skillgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The JMH annotation processor ran during the default build and registered every benchmark the
 * documentation's commands name; nothing is run.
 */
class BenchmarkListTest {

    @Test
    void theBuildRegistersEveryDocumentedBenchmark() throws IOException {
        String list;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/BenchmarkList")) {
            assertThat(in)
                    .as("META-INF/BenchmarkList written by jmh-generator-annprocess")
                    .isNotNull();
            list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String benchmark : new String[] {
            "FrontmatterBenchmark.validateStrict",
            "FrontmatterBenchmark.baselineYamlLoad",
            "InspectionBenchmark.validateStrict",
            "InspectionBenchmark.baselineReadAllBytes",
            "ProtocolBenchmark.gateAndValidate",
            "ProtocolBenchmark.networkntSameSchema",
            "RevisionBenchmark.revisionInMemory",
            "RevisionBenchmark.baselineMessageDigest",
            "AuditBenchmark.verify100k",
            "AuditBenchmark.baselineReadAndHash100k",
            "AuditBenchmark.appendCommitted",
            "AuditBenchmark.baselineWriteForce",
            "ConsentBenchmark.lifecycleProposeApproveConsume"
        }) {
            String[] parts = benchmark.split("\\.");
            assertThat(list).as(benchmark).contains("jmh." + parts[0] + " ").contains(" " + parts[1] + " ");
        }
    }
}
