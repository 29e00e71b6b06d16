package dev.skillgate.consent;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Timeout;
import java.util.ArrayList;
import java.util.List;

/** Trust scopes for policy tests. */
final class PolicyFixtures {
    private PolicyFixtures() {}

    static TrustScope scope() {
        return new TrustScope(
                Fixtures.REVISION, Fixtures.AGENT, Fixtures.WORKSPACE, Timeout.DEFAULT, OutputLimit.DEFAULT);
    }

    static TrustScope scope(int i) {
        return new TrustScope(
                Fixtures.revision("script " + i),
                Fixtures.AGENT,
                Fixtures.WORKSPACE,
                Timeout.DEFAULT,
                OutputLimit.DEFAULT);
    }

    static List<TrustScope> scopes(int n) {
        List<TrustScope> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(scope(i));
        }
        return out;
    }

    /** The five ways a scope can change, one field each. */
    static List<TrustScope> changedVariants(TrustScope s) {
        return List.of(
                new TrustScope(
                        Fixtures.revision("edited"), s.agent(), s.workspace(), s.timeoutCeiling(), s.outputCeiling()),
                new TrustScope(
                        s.revision(), AgentId.of("agent-2"), s.workspace(), s.timeoutCeiling(), s.outputCeiling()),
                new TrustScope(
                        s.revision(),
                        s.agent(),
                        new dev.skillgate.model.WorkspaceIdentity(s.workspace().realPath(), "(dev=9,ino=9)"),
                        s.timeoutCeiling(),
                        s.outputCeiling()),
                new TrustScope(s.revision(), s.agent(), s.workspace(), new Timeout(30_000), s.outputCeiling()),
                new TrustScope(s.revision(), s.agent(), s.workspace(), s.timeoutCeiling(), new OutputLimit(1024)));
    }
}
