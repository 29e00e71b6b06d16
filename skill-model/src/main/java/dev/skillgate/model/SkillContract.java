package dev.skillgate.model;

import dev.skillgate.model.shared.Text;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * A parsed {@code skill.contract.json} (SPEC §5): what a skill declares it needs from the agent that
 * uses it.
 *
 * <p>The constructor enforces the rules that relate fields to each other: a side effect other than
 * {@code none} needs {@code permissionMode} of at least {@code workspace-write}; {@code
 * external-write} needs at least one destination; a {@code signed} origin names its publisher.
 * Checking the contract against an agent context, and refusing declared credentials until a broker
 * is configured, happen in the inspector. A contract is a declaration: Skillgate checks it against
 * what the host grants, it does not confine what the skill then does.
 *
 * @param identity {@code <namespace>/<directory name>} and a SemVer version
 * @param origin local-unsigned or signed, and the publisher
 * @param agents supported agent kinds and version ranges
 * @param inputTypes input types the skill needs
 * @param tools tool classes the skill needs
 * @param credentials names of declared credential requirements
 * @param permissionMode permission the skill needs
 * @param networkDestinations https origins the skill contacts
 * @param sideEffectClass side effects the skill has
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SkillContract(
        Identity identity,
        Origin origin,
        List<AgentRequirement> agents,
        Set<InputType> inputTypes,
        Set<ToolClass> tools,
        List<String> credentials,
        PermissionMode permissionMode,
        List<NetworkDestination> networkDestinations,
        SideEffectClass sideEffectClass) {

    /** The only supported schema version. */
    public static final int SCHEMA_VERSION = 1;

    /** The only accepted {@code recordType}. */
    public static final String RECORD_TYPE = "skill-contract";

    /** The contract file name next to SKILL.md. */
    public static final String FILE_NAME = "skill.contract.json";

    public SkillContract {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(origin, "origin");
        agents = List.copyOf(agents);
        inputTypes = Set.copyOf(inputTypes);
        tools = Set.copyOf(tools);
        credentials = List.copyOf(credentials);
        Objects.requireNonNull(permissionMode, "permissionMode");
        networkDestinations = List.copyOf(networkDestinations);
        Objects.requireNonNull(sideEffectClass, "sideEffectClass");
        if (sideEffectClass != SideEffectClass.NONE && !permissionMode.includes(PermissionMode.WORKSPACE_WRITE)) {
            throw new InvalidValueException(
                    ErrorCode.CONTRACT_SIDE_EFFECT_PERMISSION,
                    "sideEffectClass " + sideEffectClass.wireName() + " needs permissionMode workspace-write or"
                            + " full-access");
        }
        if (sideEffectClass == SideEffectClass.EXTERNAL_WRITE && networkDestinations.isEmpty()) {
            throw new InvalidValueException(
                    ErrorCode.CONTRACT_DESTINATION_REQUIRED, "external-write needs at least one network destination");
        }
    }

    /**
     * The contract's identity.
     *
     * @param id {@code <namespace>/<skill directory name>}
     * @param version strict SemVer
     */
    public record Identity(String id, SemVer version) {
        public Identity {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(version, "version");
            int slash = id.indexOf('/');
            if (slash <= 0 || slash != id.lastIndexOf('/')) {
                throw new InvalidValueException(
                        ErrorCode.CONTRACT_IDENTITY_MISMATCH, "identity.id must be <namespace>/<directory name>");
            }
            if (!SkillName.isValid(id.substring(0, slash)) || !SkillName.isValid(id.substring(slash + 1))) {
                throw new InvalidValueException(
                        ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                        "identity.id parts must be lowercase letters, digits and single hyphens");
            }
        }

        /** The namespace part. */
        public String namespace() {
            return id.substring(0, id.indexOf('/'));
        }

        /** The skill directory name part. */
        public String directoryName() {
            return id.substring(id.indexOf('/') + 1);
        }
    }

    /**
     * Where the skill comes from.
     *
     * @param type local-unsigned or signed
     * @param publisher who publishes it; required for {@code signed}
     */
    public record Origin(OriginType type, Optional<String> publisher) {
        public Origin {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(publisher, "publisher");
            if (type == OriginType.SIGNED && publisher.isEmpty()) {
                throw new InvalidValueException(
                        ErrorCode.CONTRACT_MISSING_FIELD, "a signed origin names its publisher");
            }
            publisher.ifPresent(p -> {
                if (p.isEmpty() || p.length() > 128 || p.codePoints().anyMatch(Text::isUnsafe)) {
                    throw new InvalidValueException(
                            ErrorCode.CONTRACT_TYPE, "publisher must be 1-128 printable characters");
                }
            });
        }
    }
}
