package dev.skillgate.audit;

import dev.skillgate.audit.internal.Scopes;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import org.apiguardian.api.API;

/**
 * What a trust decision is about: exactly one prompt skill for one agent ({@link PromptSkillScope})
 * or one trusted-revision execution receipt ({@link ExecutionScope}).
 *
 * <p>Every field participates in equality and in {@link #id()}: a scope that differs in any field,
 * including the content revision (so editing any skill file), is a different scope with no trust.
 * A scope never holds a source path, a credential value or an executable path.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface TrustScope permits PromptSkillScope, ExecutionScope {
    /**
     * The scope's stable id: {@code sha256:} over a domain tag and the scope's canonical JSON, as
     * {@code docs/audit.md} specifies. Equal scopes have equal ids.
     */
    default Sha256Digest id() {
        return Scopes.id(this);
    }

    /** The agent the decision applies to. */
    AgentId agent();

    /** The content revision the decision is bound to. */
    Revision revision();
}
