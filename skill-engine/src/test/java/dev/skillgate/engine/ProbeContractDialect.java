package dev.skillgate.engine;

import dev.skillgate.inspect.ContractDialect;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.InputType;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A trust-contract dialect for the engine tests, also declared as a {@code ServiceLoader} provider
 * ({@code META-INF/services}): record type {@value #TYPE}. It maps any such file to a contract for
 * agent kind {@code example-agent} 1.0.0–2.0.0 needing text input, with {@code workspace-write}
 * when the file mentions it and {@code read-only} otherwise; a {@code signed} origin by {@value
 * #PUBLISHER} when the file names that publisher. Counts its calls in {@link #CALLS}.
 */
public class ProbeContractDialect implements ContractDialect {
    static final String TYPE = "probe-permissions/1";
    static final String PUBLISHER = "alice@example.com";
    static final AtomicInteger CALLS = new AtomicInteger();

    private final String type;

    /** The provider constructor. */
    public ProbeContractDialect() {
        this(TYPE);
    }

    ProbeContractDialect(String type) {
        this.type = type;
    }

    @Override
    public String recordType() {
        return type;
    }

    @Override
    public Result parse(byte[] contractBytes, String directoryName, Optional<String> namespace) {
        CALLS.incrementAndGet();
        String text = new String(contractBytes, StandardCharsets.UTF_8);
        boolean writes = text.contains("workspace-write");
        boolean signed = text.contains("\"publisher\":\"" + PUBLISHER + "\"");
        return Result.mapped(new SkillContract(
                new SkillContract.Identity(namespace.orElse("global") + "/" + directoryName, SemVer.parse("1.0.0")),
                signed
                        ? new SkillContract.Origin(OriginType.SIGNED, Optional.of(PUBLISHER))
                        : new SkillContract.Origin(OriginType.LOCAL_UNSIGNED, Optional.empty()),
                List.of(new AgentRequirement("example-agent", SemVer.parse("1.0.0"), SemVer.parse("2.0.0"))),
                Set.of(InputType.TEXT),
                Set.of(),
                List.of(),
                writes ? PermissionMode.WORKSPACE_WRITE : PermissionMode.READ_ONLY,
                List.of(),
                SideEffectClass.NONE));
    }

    /** One of two providers that claim the same record type: naming it must fail. */
    public static final class TwinA extends ProbeContractDialect {
        public TwinA() {
            super("twin-permissions/1");
        }
    }

    /** The other twin. */
    public static final class TwinB extends ProbeContractDialect {
        public TwinB() {
            super("twin-permissions/1");
        }
    }
}
