package dev.skillgate.adk;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.adk.skills.Frontmatter;
import com.google.adk.skills.LocalSkillSource;
import com.google.common.collect.ImmutableMap;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.inspect.ValidationReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Cross-host portability (issue 17 item 6): the repository's example bundles load unchanged in
 * Google ADK for Java's own skill loader ({@code LocalSkillSource}, google-adk 1.8.0), and pass
 * Skillgate's reference-compatible profile (the official {@code skills-ref} rules).
 */
class AdkSkillSourcePortabilityTest {
    private static final Path EXAMPLES =
            Path.of("..", "examples", "skills").toAbsolutePath().normalize();

    private static List<Path> bundles() throws IOException {
        try (Stream<Path> s = Files.list(EXAMPLES)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("SKILL.md")))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void theExampleBundlesLoadInAdksLocalSkillSourceAndPassTheReferenceRules() throws IOException {
        List<Path> bundles = bundles();
        assertThat(bundles).hasSizeGreaterThanOrEqualTo(3);
        LocalSkillSource adk = new LocalSkillSource(EXAMPLES);

        ImmutableMap<String, Frontmatter> loaded = adk.listFrontmatters().blockingGet();

        for (Path bundle : bundles) {
            String name = bundle.getFileName().toString();
            ValidationReport reference = SkillValidator.validate(bundle, ValidationProfile.REFERENCE_COMPATIBLE);
            assertThat(reference.portable())
                    .as(name + " under the reference rules")
                    .isTrue();
            assertThat(loaded).as("ADK loaded " + name).containsKey(name);
            Frontmatter fm = loaded.get(name);
            assertThat(fm.name()).isEqualTo(name);
            String body = adk.loadInstructions(name).blockingGet();
            String skillMd = Files.readString(bundle.resolve("SKILL.md"), StandardCharsets.UTF_8);
            assertThat(skillMd).contains(body.strip());
        }
    }
}
