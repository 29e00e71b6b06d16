package dev.skillgate.inspect;

import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A test dialect, {@code acme-permissions/1}: a flatter spelling of the same needs.
 *
 * <pre>{@code
 * {"recordType": "acme-permissions/1", "skill": "global/x", "release": "1.0.0",
 *  "publisher": "alice@example.com" (optional; present means origin signed),
 *  "runsOn": {"kind": "codex", "from": "0.130.0", "to": "0.200.0"},
 *  "needs": ["text"], "uses": ["filesystem"], "secrets": [], "access": "read-only",
 *  "writes": "none", "hosts": []}
 * }</pre>
 *
 * It deliberately does none of the built-in rules' identity or count checks: the parser must apply
 * them to whatever a dialect maps.
 */
final class AcmeDialect implements ContractDialect {
    static final String TYPE = "acme-permissions/1";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Override
    public String recordType() {
        return TYPE;
    }

    @Override
    public Result parse(byte[] contractBytes, String directoryName, Optional<String> namespace) {
        JsonNode root = JSON.readTree(contractBytes);
        List<Diagnostic> problems = new ArrayList<>();
        for (String field : List.of("skill", "release", "runsOn", "needs", "uses", "access", "writes", "hosts")) {
            if (!root.has(field)) {
                problems.add(Diagnostic.error(ErrorCode.CONTRACT_MISSING_FIELD, "/" + field, field + " is required"));
            }
        }
        if (!problems.isEmpty()) {
            return Result.refused(problems);
        }
        try {
            JsonNode runsOn = root.get("runsOn");
            Optional<String> publisher =
                    root.has("publisher") ? Optional.of(root.get("publisher").stringValue()) : Optional.empty();
            return Result.mapped(new SkillContract(
                    new SkillContract.Identity(
                            root.get("skill").stringValue(),
                            SemVer.parse(root.get("release").stringValue())),
                    new SkillContract.Origin(
                            publisher.isPresent() ? OriginType.SIGNED : OriginType.LOCAL_UNSIGNED, publisher),
                    List.of(new AgentRequirement(
                            runsOn.get("kind").stringValue(),
                            SemVer.parse(runsOn.get("from").stringValue()),
                            SemVer.parse(runsOn.get("to").stringValue()))),
                    strings(root, "needs").stream().map(InputType::fromWireName).collect(Collectors.toSet()),
                    strings(root, "uses").stream().map(ToolClass::fromWireName).collect(Collectors.toSet()),
                    strings(root, "secrets"),
                    PermissionMode.fromWireName(root.get("access").stringValue()),
                    strings(root, "hosts").stream()
                            .map(NetworkDestination::parse)
                            .toList(),
                    SideEffectClass.fromWireName(root.get("writes").stringValue())));
        } catch (InvalidValueException e) {
            return Result.refused(List.of(e.toDiagnostic("")));
        }
    }

    private static List<String> strings(JsonNode root, String field) {
        List<String> out = new ArrayList<>();
        JsonNode list = root.get(field);
        if (list != null) {
            list.forEach(n -> out.add(n.stringValue()));
        }
        return out;
    }

    /** A valid acme record for skill {@code id}, as a mutable map. */
    static Map<String, Object> valid(String id) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("recordType", TYPE);
        c.put("skill", id);
        c.put("release", "2.1.0");
        c.put("runsOn", Map.of("kind", "codex", "from", "0.130.0", "to", "0.200.0"));
        c.put("needs", List.of("text"));
        c.put("uses", List.of("filesystem"));
        c.put("secrets", List.of());
        c.put("access", "read-only");
        c.put("writes", "none");
        c.put("hosts", List.of());
        return c;
    }

    static byte[] bytes(Map<String, Object> record) {
        return JSON.writeValueAsBytes(record);
    }

    /** The built-in record with the same needs as {@link #valid}. */
    static Map<String, Object> builtInEquivalent(Map<String, Object> acme) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("schemaVersion", 1);
        c.put("recordType", SkillContract.RECORD_TYPE);
        c.put("identity", Map.of("id", acme.get("skill"), "version", acme.get("release")));
        c.put(
                "origin",
                acme.containsKey("publisher")
                        ? Map.of("type", "signed", "publisher", acme.get("publisher"))
                        : Map.of("type", "local-unsigned"));
        @SuppressWarnings("unchecked")
        Map<String, Object> runsOn = (Map<String, Object>) acme.get("runsOn");
        c.put(
                "agents",
                List.of(Map.of(
                        "kind", runsOn.get("kind"), "minVersion", runsOn.get("from"), "maxVersion", runsOn.get("to"))));
        c.put("inputTypes", acme.get("needs"));
        c.put("tools", acme.get("uses"));
        c.put("credentials", acme.getOrDefault("secrets", List.of()));
        c.put("permissionMode", acme.get("access"));
        c.put("networkDestinations", acme.get("hosts"));
        c.put("sideEffectClass", acme.get("writes"));
        return c;
    }
}
