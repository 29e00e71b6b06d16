package dev.skillgate.protocol.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.protocol.ManifestParser;
import dev.skillgate.protocol.ManifestVerdict;
import dev.skillgate.protocol.Validation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The manifest cache (decision 0806): equal bytes compile once and share the verdict; one byte of
 * difference is parsed afresh and its schema is the one that checks; the caller's array changed
 * after the call changes nothing kept; rejections are not kept; the bound holds; concurrent parses of
 * many manifests always answer for their own bytes.
 */
class ManifestCacheTest {
    private static byte[] manifest(String inputType) {
        return manifest(inputType, "q");
    }

    private static byte[] manifest(String inputType, String property) {
        return ("{\"schemaVersion\":1,\"entrypoint\":\"scripts/a.mjs\",\"files\":[\"scripts/a.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"" + property + "\":{\"type\":\""
                        + inputType + "\"}},\"required\":[\"" + property
                        + "\"]},\"outputSchema\":{\"type\":\"object\",\"properties\":{}}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static boolean accepts(ManifestVerdict v, String invocation) {
        Validation<?> checked = ((ManifestVerdict.Accepted) v)
                .inputSchema()
                .checkInvocation(invocation.getBytes(StandardCharsets.UTF_8));
        return checked instanceof Validation.Valid<?>;
    }

    @Test
    void equalBytesParseOnceAndShareTheVerdict() {
        ManifestCache cache = new ManifestCache(8);
        AtomicInteger parses = new AtomicInteger();
        byte[] m = manifest("string");
        ManifestVerdict first = cache.verdict(m.clone(), b -> {
            parses.incrementAndGet();
            return ManifestParser.parse(b);
        });
        ManifestVerdict second = cache.verdict(m.clone(), b -> {
            parses.incrementAndGet();
            return ManifestParser.parse(b);
        });
        assertThat(first).isInstanceOf(ManifestVerdict.Accepted.class);
        assertThat(second).isSameAs(first);
        assertThat(parses).hasValue(1);
    }

    @Test
    void oneByteOfDifferenceIsParsedAfreshAndItsOwnSchemaChecks() {
        ManifestVerdict string = ManifestParser.parse(manifest("string"));
        ManifestVerdict number = ManifestParser.parse(manifest("number"));
        assertThat(number).isNotSameAs(string);
        assertThat(accepts(string, "{\"q\":\"x\"}")).isTrue();
        assertThat(accepts(string, "{\"q\":1}")).isFalse();
        assertThat(accepts(number, "{\"q\":1}")).isTrue();
        assertThat(accepts(number, "{\"q\":\"x\"}")).isFalse();
        assertThat(ManifestParser.parse(manifest("string"))).isSameAs(string);
    }

    @Test
    void theCallersArrayChangedAfterTheCallChangesNothingKept() {
        byte[] mine = manifest("string");
        ManifestVerdict kept = ManifestParser.parse(mine);
        byte[] changed = manifest("number");
        System.arraycopy(changed, 0, mine, 0, mine.length);
        ManifestVerdict again = ManifestParser.parse(manifest("string"));
        assertThat(again).isSameAs(kept);
        assertThat(accepts(again, "{\"q\":\"x\"}")).isTrue();
        assertThat(accepts(ManifestParser.parse(mine), "{\"q\":1}")).isTrue();
    }

    @Test
    void rejectionsAreNotKeptAndTheBoundHolds() {
        ManifestCache cache = new ManifestCache(4);
        for (int i = 0; i < 10; i++) {
            cache.verdict(
                    ("{\"schemaVersion\":" + (i + 2) + "}").getBytes(StandardCharsets.UTF_8), ManifestParser::parse);
        }
        assertThat(cache.size()).isZero();
        for (int i = 0; i < 6; i++) {
            assertThat(cache.verdict(manifest("string", "p" + i), ManifestParser::parse))
                    .isInstanceOf(ManifestVerdict.Accepted.class);
        }
        assertThat(cache.size()).isEqualTo(4);
    }

    @Test
    void concurrentParsesAnswerForTheirOwnBytes() throws Exception {
        String[] types = {"string", "boolean", "null", "integer"};
        String[] valid = {"{\"q\":\"x\"}", "{\"q\":true}", "{\"q\":null}", "{\"q\":3}"};
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                int k = i % types.length;
                results.add(pool.submit(() -> {
                    ManifestVerdict v = ManifestParser.parse(manifest(types[k]));
                    return accepts(v, valid[k]) && !accepts(v, valid[(k + 1) % types.length]);
                }));
            }
            for (Future<Boolean> r : results) {
                assertThat(r.get()).isTrue();
            }
        } finally {
            pool.shutdown();
        }
    }
}
