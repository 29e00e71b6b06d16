package dev.skillgate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One compiled schema shared by many threads gives every thread the same answers it gives a single
 * thread (networknt documents compiled schemas as thread-safe; this checks our wrapper keeps that).
 */
class CompiledSchemaConcurrencyTest {

    @Test
    void sharedSchemaGivesTheSameVerdictsUnderContention() throws Exception {
        CompiledSchema schema = ValidationTest.INPUT;
        Random random = new Random(20261130L);
        List<byte[]> inputs = new ArrayList<>();
        List<List<Diagnostic>> expected = new ArrayList<>();
        String[] values = {"'a'", "''", "1", "1.5", "'abcdef'", "[]", "{}", "null", "true", "'fast'", "40"};
        String[] keys = {"query", "limit", "ratio", "mode", "flag", "tags", "id", "free", "nested"};
        for (int i = 0; i < 200; i++) {
            StringBuilder json = new StringBuilder("{");
            int n = random.nextInt(4);
            for (int k = 0; k < n; k++) {
                json.append(k == 0 ? "" : ",")
                        .append('"')
                        .append(keys[random.nextInt(keys.length)] + (k == 0 ? "" : k))
                        .append("\":")
                        .append(values[random.nextInt(values.length)].replace('\'', '"'));
            }
            json.append('}');
            byte[] bytes = json.toString().getBytes(StandardCharsets.UTF_8);
            inputs.add(bytes);
            expected.add(schema.checkInvocation(bytes).issues());
        }
        assertThat(expected).anyMatch(List::isEmpty).anyMatch(issues -> !issues.isEmpty());

        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int offset = t;
            futures.add(pool.submit(() -> {
                start.await();
                int mismatches = 0;
                for (int round = 0; round < 50; round++) {
                    for (int i = 0; i < inputs.size(); i++) {
                        int index = (i + offset * 13) % inputs.size();
                        if (!schema.checkInvocation(inputs.get(index)).issues().equals(expected.get(index))) {
                            mismatches++;
                        }
                    }
                }
                return mismatches;
            }));
        }
        start.countDown();
        int mismatches = 0;
        for (Future<Integer> future : futures) {
            mismatches += future.get(2, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertThat(mismatches).isZero();
    }
}
