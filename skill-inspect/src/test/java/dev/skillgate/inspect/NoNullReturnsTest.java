package dev.skillgate.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.inspect.shared.ContractParser;
import dev.skillgate.inspect.shared.ContractParserTest;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calls every public no-argument instance method of representative instances of the public
 * inspect types (successes and failures) and checks that none returns {@code null} (SPEC §16).
 */
class NoNullReturnsTest {
    @TempDir
    Path root;

    @Test
    void noPublicNoArgMethodReturnsNull() throws Exception {
        Path first = root.resolve("first");
        Path second = root.resolve("second");
        Path ok = Bundles.valid(first, "ok-skill");
        Bundles.write(ok.resolve("references/r.md"), "r");
        Bundles.write(first.resolve("legacy.md"), Bundles.skillMd("name: legacy\ndescription: d\nhooks: x"));
        Bundles.skill(first, "broken", "no frontmatter");
        Bundles.skill(second, "ok-skill", Bundles.skillMd("name: ok-skill\ndescription: again"));
        DiscoveryResult result =
                SkillDiscovery.discover(DiscoveryOptions.of(List.of(first, second, root.resolve("missing"))));
        BoundedReader reader = result.skills().stream()
                .filter(s -> s.kind() == SkillKind.STANDARD)
                .findFirst()
                .orElseThrow()
                .resources(100)
                .orElseThrow();
        List<Object> samples = new ArrayList<>();
        samples.add(result);
        samples.addAll(result.skills());
        samples.addAll(result.shadowed());
        samples.addAll(result.rejected());
        result.skills().forEach(s -> samples.add(s.report()));
        result.skills().forEach(s -> s.report().document().ifPresent(samples::add));
        result.skills().forEach(s -> samples.addAll(s.report().findings()));
        result.skills().forEach(s -> s.report().document().ifPresent(d -> samples.addAll(d.preservedFields())));
        samples.add(reader);
        samples.add(reader.readText("references/r.md", 10));
        samples.add(reader.readText("references/r.md", 10).value().orElseThrow());
        samples.add(reader.readText("missing.md", 10));
        samples.add(reader.rootIdentity().value().orElseThrow());
        samples.add(SkillCatalog.of(result));
        samples.add(SkillCatalog.of(result).entries().get(0));
        samples.add(DiscoveryOptions.of(List.of(root)));
        samples.add(new FrontmatterValue.Scalar("x"));
        samples.add(new FrontmatterValue.Sequence(List.of()));
        samples.add(new FrontmatterValue.Mapping(java.util.Map.of()));
        samples.add(ValidationProfile.STRICT);
        samples.add(SkillKind.LEGACY_FLAT);
        Path exec = Captures.executable(root.resolve("capture"), "read-only-review");
        Captures.write(
                exec.resolve("skill.contract.json"),
                new String(
                        ContractParserTest.bytes(ContractParserTest.valid()), java.nio.charset.StandardCharsets.UTF_8));
        SkillArtifact artifact = Captures.captured(exec);
        samples.add(artifact);
        samples.add(SkillArtifact.capture(exec));
        samples.add(SkillArtifact.capture(root.resolve("nothing-here")));
        samples.addAll(artifact.files());
        samples.add(ContractParser.parse(
                artifact.contractBytes().orElseThrow(), "read-only-review", java.util.Optional.empty()));
        samples.add(ContractParser.parse(new byte[0], "x", java.util.Optional.empty()));
        samples.add(new ContractVerdict.Absent());
        samples.add(SkillInspector.inspect(exec, InspectOptions.defaults()));
        samples.add(SkillInspector.inspect(root.resolve("nothing-here"), InspectOptions.defaults()));
        samples.add(SkillInspector.inspect(exec, InspectOptions.defaults()).inputSchema());
        samples.add(InspectOptions.defaults());
        samples.add(new SignatureVerdict.NotChecked("x"));
        samples.add(new SignatureVerdict.Verified("SHA256:x", List.of(), "s"));
        samples.add(new SignatureVerdict.Rejected(
                dev.skillgate.model.Diagnostic.error(dev.skillgate.model.ErrorCode.SIGNATURE_INVALID, "", "x")));
        samples.add(AgentContext.of(
                "codex",
                dev.skillgate.model.SemVer.parse("1.0.0"),
                java.util.Set.of(),
                java.util.Set.of(),
                dev.skillgate.model.PermissionMode.READ_ONLY));
        assertThat(result.skills()).extracting(DiscoveredSkill::kind).contains(SkillKind.LEGACY_FLAT);
        assertThat(result.shadowed()).isNotEmpty();
        assertThat(result.rejected()).isNotEmpty();
        int calls = 0;
        for (Object sample : samples) {
            for (Method method : sample.getClass().getMethods()) {
                if (method.getParameterCount() != 0
                        || Modifier.isStatic(method.getModifiers())
                        || method.getReturnType() == void.class
                        || method.getDeclaringClass() == Object.class
                        || method.getDeclaringClass() == Enum.class
                        || method.getName().equals("hashCode")) {
                    continue;
                }
                method.setAccessible(true);
                Object value = method.invoke(sample);
                assertThat(value)
                        .as("%s.%s()", sample.getClass().getSimpleName(), method.getName())
                        .isNotNull();
                calls++;
            }
        }
        assertThat(calls).isGreaterThan(100);
    }
}
