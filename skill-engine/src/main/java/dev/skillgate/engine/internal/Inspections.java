package dev.skillgate.engine.internal;

import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.Finding;
import dev.skillgate.inspect.InspectOptions;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SchemaVerdict;
import dev.skillgate.inspect.SignatureVerdict;
import dev.skillgate.inspect.SkillInspector;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.shared.Text;
import dev.skillgate.protocol.SchemaRole;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Inert inspection of a skill by name: every verdict of {@link SkillInspector}, or a report that does
 * not pass when no loadable skill has the name. Nothing is run. Not API.
 */
final class Inspections {
    private final EngineCore.Config config;
    private final Function<SkillName, Optional<DiscoveredSkill>> locator;

    Inspections(EngineCore.Config config, Function<SkillName, Optional<DiscoveredSkill>> locator) {
        this.config = config;
        this.locator = locator;
    }

    /**
     * Inspects the skill called {@code name} (inert): every verdict of {@link SkillInspector}; for a
     * name no loadable skill has, a report that does not pass with {@code SKILL_NOT_FOUND} (or
     * {@code LAYOUT_LEGACY_FLAT} for a flat legacy skill) as its capture problem.
     */
    Inspection inspect(SkillName name) {
        Optional<DiscoveredSkill> found = locator.apply(name);
        if (found.isEmpty()) {
            return uncaptured(
                    name,
                    Diagnostic.error(
                            ErrorCode.SKILL_NOT_FOUND,
                            "",
                            "no loadable skill named '" + name.value() + "' in the skill roots"));
        }
        if (found.get().directory().isEmpty()) {
            return uncaptured(
                    name,
                    Diagnostic.error(
                            ErrorCode.LAYOUT_LEGACY_FLAT, "", "a legacy flat skill has no directory to capture"));
        }
        return SkillInspector.inspect(found.get().directory().get(), options(config, config.agentContext()));
    }

    /**
     * The report for a string that is not a valid skill name: no skill can have it, so {@code
     * SKILL_NOT_FOUND}, with the broken naming rules listed as findings. Nothing is looked up.
     */
    static Inspection invalidName(String name, List<Diagnostic> broken) {
        Diagnostic why = Diagnostic.error(
                ErrorCode.SKILL_NOT_FOUND, "", "'" + Text.excerpt(name) + "' is not a valid skill name");
        List<Finding> findings = new ArrayList<>();
        for (Diagnostic d : broken) {
            findings.add(new Finding(d, true, true));
        }
        findings.add(new Finding(why, true, true));
        return uncaptured(Path.of(""), findings, why);
    }

    /** The host's inspection options with {@code context} as the agent context. */
    static InspectOptions options(EngineCore.Config config, Optional<AgentContext> context) {
        // The canonical constructor keeps the dialects keyed by the record type read once at build.
        return new InspectOptions(
                ValidationProfile.STRICT,
                config.namespace(),
                context,
                config.credentialBroker(),
                config.signatureChecker(),
                config.contractDialects());
    }

    /** A report for a skill that could not be looked at: nothing captured, nothing passes. */
    private static Inspection uncaptured(SkillName name, Diagnostic why) {
        return uncaptured(Path.of(name.value()), List.of(new Finding(why, true, true)), why);
    }

    private static Inspection uncaptured(Path path, List<Finding> findings, Diagnostic why) {
        return new Inspection(
                path,
                new ValidationReport(path, ValidationProfile.STRICT, Optional.empty(), findings),
                Optional.of(why),
                Optional.empty(),
                List.of(),
                Optional.empty(),
                new SchemaVerdict(SchemaRole.INPUT, SchemaVerdict.Status.NOT_CHECKED, List.of()),
                new SchemaVerdict(SchemaRole.OUTPUT, SchemaVerdict.Status.NOT_CHECKED, List.of()),
                false,
                List.of(why),
                Optional.empty(),
                List.of(),
                new SignatureVerdict.NotChecked("no loadable skill has that name"));
    }
}
