package dev.skillgate.benchmarks.jmh;

import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.inspect.ValidationReport;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * {@code SKILL.md} parse and validate in memory ({@link SkillValidator#validateBytes}: strict UTF-8,
 * line-anchored split, YAML events under limits, field rules) against the baseline of a plain
 * SnakeYAML Engine {@code Load} of the same frontmatter text (no split, no limits, no rules).
 *
 * <p>No file system: {@link InspectionBenchmark} measures the same work with the bounded reader.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class FrontmatterBenchmark {
    private byte[] skillMd;
    private String frontmatter;
    private Load load;

    @Setup
    public void setUp() {
        skillMd = Bundles.smallSkillMd("skill-00042", 42).getBytes(StandardCharsets.UTF_8);
        String text = new String(skillMd, StandardCharsets.UTF_8);
        frontmatter = text.substring(4, text.indexOf("\n---\n") + 1);
        load = new Load(LoadSettings.builder().build());
        ValidationReport report = SkillValidator.validateBytes(skillMd, "skill-00042", ValidationProfile.STRICT);
        if (!report.portable()) {
            throw new IllegalStateException("the benchmark skill must be valid: " + report.diagnostics());
        }
    }

    @Benchmark
    public ValidationReport validateStrict() {
        return SkillValidator.validateBytes(skillMd, "skill-00042", ValidationProfile.STRICT);
    }

    @Benchmark
    public ValidationReport validateReference() {
        return SkillValidator.validateBytes(skillMd, "skill-00042", ValidationProfile.REFERENCE_COMPATIBLE);
    }

    /** Baseline: SnakeYAML Engine loading the frontmatter text into Java objects, nothing else. */
    @Benchmark
    public Object baselineYamlLoad() {
        return load.loadFromString(frontmatter);
    }
}
