package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import java.util.List;
import org.apiguardian.api.API;

/**
 * What discovery found over all roots.
 *
 * @param skills the loadable skills that won precedence, in discovery order (root order, then each
 *     root's walk order)
 * @param shadowed loadable skills hidden by an earlier skill of the same name
 * @param rejected reports of skill candidates that are not loadable (unreadable, hostile or
 *     missing required fields), in discovery order
 * @param diagnostics walk-level findings: missing or linked roots, links found and not followed,
 *     walk limits reached, entries not searched, shadowing
 * @param incomplete a root held more entries than {@link DiscoveryOptions#maxEntriesPerRoot()}, so
 *     its walk stopped: with {@link DiscoveryOptions#acceptPartial()} the lists hold what was found
 *     before (a {@code LAYOUT_WALK_LIMIT} warning); without it they are empty and the {@code
 *     LAYOUT_WALK_LIMIT} diagnostic is an error
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record DiscoveryResult(
        List<DiscoveredSkill> skills,
        List<ShadowedSkill> shadowed,
        List<ValidationReport> rejected,
        List<Diagnostic> diagnostics,
        boolean incomplete) {
    public DiscoveryResult {
        skills = List.copyOf(skills);
        shadowed = List.copyOf(shadowed);
        rejected = List.copyOf(rejected);
        diagnostics = List.copyOf(diagnostics);
    }

    /** A complete result. */
    public DiscoveryResult(
            List<DiscoveredSkill> skills,
            List<ShadowedSkill> shadowed,
            List<ValidationReport> rejected,
            List<Diagnostic> diagnostics) {
        this(skills, shadowed, rejected, diagnostics, false);
    }
}
