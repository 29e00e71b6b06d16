package dev.skillgate.inspect.shared;

import dev.skillgate.inspect.ContractDialect;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.internal.ContractRules;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Limits;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.ToolClass;
import dev.skillgate.model.shared.Text;
import dev.skillgate.protocol.internal.JsonPointers;
import dev.skillgate.protocol.internal.StrictJsonDecoder;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apiguardian.api.API;
import tools.jackson.databind.JsonNode;

/**
 * Parses the bytes of {@code skill.contract.json} (schemaVersion 1, recordType {@code
 * skill-contract}, SPEC §5) strictly.
 *
 * <p>The bytes must be at most 64 KiB of strict UTF-8 holding one JSON object (depth ≤ 32, ≤ 4,096
 * nodes, no duplicate keys, no byte-order mark). Every field is required — an omitted need is an
 * error, never a default — and no other field is allowed (a {@code __proto__} key is refused by
 * name). {@code schemaVersion} must be the number 1 and {@code recordType} the string {@code
 * skill-contract}; otherwise nothing else is read (a string {@code recordType} other than {@code
 * skill-contract} is reported first, as {@code CONTRACT_VERSION} at {@code /recordType}). Then:
 *
 * <ul>
 *   <li>{@code identity {id, version}}: {@code id} is {@code <namespace>/<directory name>} where the
 *       directory name is the skill directory's and the namespace is the caller's (the catalog
 *       namespace) when one is given, otherwise any valid name (both parts follow the skill-name
 *       rules); {@code version} is strict SemVer 2.0.0;
 *   <li>{@code origin {type, publisher}}: {@code local-unsigned} or {@code signed}; {@code
 *       publisher} is optional for {@code local-unsigned}, required for {@code signed};
 *   <li>{@code agents}: 1–32 objects {@code {kind, minVersion, maxVersion}}, an inclusive SemVer
 *       range with {@code minVersion ≤ maxVersion};
 *   <li>{@code inputTypes}, {@code tools}: arrays of distinct known names (may be empty);
 *   <li>{@code credentials}: up to 32 distinct names ({@code [A-Za-z0-9][A-Za-z0-9._-]{0,63}});
 *       accepted here, refused by {@link ContractCheck} until a {@link CredentialBroker} is
 *       configured;
 *   <li>{@code permissionMode}, {@code sideEffectClass}: known names; a side effect other than
 *       {@code none} needs {@code workspace-write} or more, {@code external-write} needs a
 *       destination;
 *   <li>{@code networkDestinations}: up to 64 distinct credential-free {@code https://host[:port]}
 *       origins (no userinfo, path, query or fragment; IDN hosts converted to punycode).
 * </ul>
 *
 * <p>A file whose {@code recordType} names a configured {@link ContractDialect} is mapped by that
 * dialect instead (after the same bounds and strict decoding), fail closed; a record type with no
 * dialect is {@code CONTRACT_VERSION} as before.
 *
 * <p>Every problem found is reported with the JSON pointer of the offending field. Values are exact:
 * no coercion, no trimming, no case folding. Stateless and thread-safe; never throws for any input.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class ContractParser {
    private static final Set<String> FIELDS = Set.of(
            "schemaVersion",
            "recordType",
            "identity",
            "origin",
            "agents",
            "inputTypes",
            "tools",
            "credentials",
            "permissionMode",
            "networkDestinations",
            "sideEffectClass");

    private ContractParser() {}

    /**
     * Parses contract bytes for the skill in directory {@code directoryName}.
     *
     * @param bytes the exact bytes of {@code skill.contract.json} (copied; not kept)
     * @param directoryName the skill directory's name, which {@code identity.id} must end with
     * @param namespace the catalog namespace {@code identity.id} must start with; empty accepts any
     *     valid namespace
     * @return {@link ContractVerdict.Accepted} or {@link ContractVerdict.Rejected}
     */
    public static ContractVerdict parse(byte[] bytes, String directoryName, Optional<String> namespace) {
        return parse(bytes, directoryName, namespace, Map.of());
    }

    /**
     * Parses contract bytes, handing a file whose {@code recordType} is a key of {@code dialects} to
     * that {@link ContractDialect} instead of the built-in record's rules. The bytes are bounded and
     * strictly decoded first either way, and the digest is of the same bytes. Without a matching
     * dialect this is {@link #parse(byte[], String, Optional)}.
     *
     * @param bytes the exact bytes of {@code skill.contract.json} (copied; not kept)
     * @param directoryName the skill directory's name, which {@code identity.id} must end with
     * @param namespace the catalog namespace; empty accepts any valid namespace
     * @param dialects the configured dialects by record type (see {@link InspectOptions#contractDialects()})
     * @return {@link ContractVerdict.Accepted} or {@link ContractVerdict.Rejected}; never throws for
     *     any bytes or any dialect behaviour
     * @throws IllegalArgumentException when a key of {@code dialects} cannot name a dialect
     */
    public static ContractVerdict parse(
            byte[] bytes, String directoryName, Optional<String> namespace, Map<String, ContractDialect> dialects) {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(directoryName, "directoryName");
        Objects.requireNonNull(namespace, "namespace");
        Map<String, ContractDialect> registry = DialectMapping.checked(dialects);
        byte[] copy = bytes.clone();
        if (copy.length > Limits.MANIFEST_BYTES) {
            return rejected(Diagnostic.error(
                    ErrorCode.CONTRACT_SYNTAX,
                    "",
                    SkillContract.FILE_NAME + " is " + copy.length + " bytes; the bound is " + Limits.MANIFEST_BYTES));
        }
        StrictJsonDecoder.Outcome outcome = StrictJsonDecoder.decode(copy, Limits.MANIFEST_BYTES);
        if (outcome instanceof StrictJsonDecoder.Failed failed) {
            return rejected(failed.toDiagnostic(ErrorCode.CONTRACT_SYNTAX));
        }
        JsonNode root = ((StrictJsonDecoder.Decoded) outcome).root();
        JsonNode type = root.isObject() ? root.get("recordType") : null;
        if (type != null && type.isString() && registry.containsKey(type.stringValue())) {
            String recordType = type.stringValue();
            return DialectMapping.map(
                    recordType, registry.get(recordType), copy, directoryName, namespace, Sha256Digest.hash(copy));
        }
        return new Fields(root, directoryName, namespace).parse(Sha256Digest.hash(copy));
    }

    private static ContractVerdict rejected(Diagnostic diagnostic) {
        return new ContractVerdict.Rejected(List.of(diagnostic));
    }

    /** One parse: collects every problem before deciding. */
    private static final class Fields {
        private final JsonNode root;
        private final String directoryName;
        private final Optional<String> namespace;
        private final List<Diagnostic> problems = new ArrayList<>();

        Fields(JsonNode root, String directoryName, Optional<String> namespace) {
            this.root = root;
            this.directoryName = directoryName;
            this.namespace = namespace;
        }

        ContractVerdict parse(Sha256Digest digest) {
            if (!root.isObject()) {
                return rejected(Diagnostic.error(
                        ErrorCode.CONTRACT_TYPE, "", SkillContract.FILE_NAME + " must hold a JSON object"));
            }
            if (!header()) {
                return new ContractVerdict.Rejected(problems);
            }
            unknownFields(root, "", FIELDS);
            Optional<SkillContract.Identity> identity = identity();
            Optional<SkillContract.Origin> origin = origin();
            Optional<List<AgentRequirement>> agents = agents();
            Optional<List<InputType>> inputTypes =
                    names("inputTypes", InputType::fromWireName, InputType.values().length);
            Optional<List<ToolClass>> tools = names("tools", ToolClass::fromWireName, ToolClass.values().length);
            Optional<List<String>> credentials = credentials();
            Optional<PermissionMode> permission = single("permissionMode", PermissionMode::fromWireName);
            Optional<List<NetworkDestination>> destinations = destinations();
            Optional<SideEffectClass> sideEffect = single("sideEffectClass", SideEffectClass::fromWireName);
            if (!problems.isEmpty()) {
                return new ContractVerdict.Rejected(problems);
            }
            try {
                SkillContract contract = new SkillContract(
                        identity.orElseThrow(),
                        origin.orElseThrow(),
                        agents.orElseThrow(),
                        Set.copyOf(inputTypes.orElseThrow()),
                        Set.copyOf(tools.orElseThrow()),
                        credentials.orElseThrow(),
                        permission.orElseThrow(),
                        destinations.orElseThrow(),
                        sideEffect.orElseThrow());
                return new ContractVerdict.Accepted(contract, digest);
            } catch (InvalidValueException e) {
                return rejected(e.toDiagnostic(locationOf(e.code())));
            }
        }

        /** {@code schemaVersion} 1 and {@code recordType} skill-contract; otherwise stop. */
        private boolean header() {
            JsonNode type = root.get("recordType");
            if (type != null && type.isString() && !type.stringValue().equals(SkillContract.RECORD_TYPE)) {
                // Named first: a dialect record need not carry schemaVersion, and "which record is
                // this" is the useful answer (decision 0400).
                error(
                        ErrorCode.CONTRACT_VERSION,
                        "/recordType",
                        "recordType '" + Text.excerpt(type.stringValue()) + "' is not supported: it is not '"
                                + SkillContract.RECORD_TYPE + "' and no contract dialect is configured for it");
                return false;
            }
            JsonNode version = root.get("schemaVersion");
            if (version == null) {
                error(ErrorCode.CONTRACT_MISSING_FIELD, "/schemaVersion", "schemaVersion is required");
                return false;
            }
            if (!version.isNumber()) {
                error(ErrorCode.CONTRACT_TYPE, "/schemaVersion", "schemaVersion must be the number 1");
                return false;
            }
            if (version.decimalValue().compareTo(BigDecimal.ONE) != 0) {
                error(
                        ErrorCode.CONTRACT_VERSION,
                        "/schemaVersion",
                        "schemaVersion " + Text.excerpt(version.asString()) + " is not supported; only 1 is");
                return false;
            }
            if (type == null) {
                error(ErrorCode.CONTRACT_MISSING_FIELD, "/recordType", "recordType is required");
                return false;
            }
            if (!type.isString()) {
                error(
                        ErrorCode.CONTRACT_VERSION,
                        "/recordType",
                        "recordType must be the string '" + SkillContract.RECORD_TYPE + "'");
                return false;
            }
            return true;
        }

        private void unknownFields(JsonNode object, String at, Set<String> allowed) {
            for (String name : object.propertyNames()) {
                if (allowed.contains(name)) {
                    continue;
                }
                String where = JsonPointers.child(at, name);
                if ("__proto__".equals(name)) {
                    error(ErrorCode.CONTRACT_UNKNOWN_FIELD, where, "__proto__ is refused as a key");
                } else {
                    error(ErrorCode.CONTRACT_UNKNOWN_FIELD, where, "unknown field '" + Text.excerpt(name) + "'");
                }
            }
        }

        private Optional<SkillContract.Identity> identity() {
            JsonNode node = object("/identity", root.get("identity"), Set.of("id", "version"));
            if (node == null) {
                return Optional.empty();
            }
            Optional<String> id = string("/identity/id", node.get("id"));
            Optional<SemVer> version = semver("/identity/version", node.get("version"));
            if (id.isEmpty() || version.isEmpty()) {
                return Optional.empty();
            }
            String text = id.get();
            int slash = text.indexOf('/');
            String expected = namespace.orElse("<namespace>") + "/" + directoryName;
            if (slash <= 0 || slash != text.lastIndexOf('/')) {
                error(
                        ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                        "/identity/id",
                        "identity.id must be " + Text.excerpt(expected) + ", not '" + Text.excerpt(text) + "'");
                return Optional.empty();
            }
            String ns = text.substring(0, slash);
            String dir = text.substring(slash + 1);
            boolean ok = dir.equals(directoryName)
                    && namespace.map(ns::equals).orElse(true)
                    && SkillName.isValid(ns)
                    && SkillName.isValid(dir);
            if (!ok) {
                error(
                        ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                        "/identity/id",
                        "identity.id '" + Text.excerpt(text) + "' must be " + Text.excerpt(expected)
                                + " (namespace and directory name as skill names)");
                return Optional.empty();
            }
            return convert("/identity/id", () -> new SkillContract.Identity(text, version.get()));
        }

        private Optional<SkillContract.Origin> origin() {
            JsonNode node = object("/origin", root.get("origin"), Set.of("type", "publisher"));
            if (node == null) {
                return Optional.empty();
            }
            Optional<OriginType> type = enumValue("/origin/type", node.get("type"), OriginType::fromWireName);
            Optional<String> publisher = Optional.empty();
            JsonNode p = node.get("publisher");
            if (p != null) {
                publisher = string("/origin/publisher", p);
                if (publisher.isEmpty()) {
                    return Optional.empty();
                }
            }
            if (type.isEmpty()) {
                return Optional.empty();
            }
            Optional<String> chosen = publisher;
            return convert(
                    p == null ? "/origin" : "/origin/publisher", () -> new SkillContract.Origin(type.get(), chosen));
        }

        private Optional<List<AgentRequirement>> agents() {
            JsonNode list = array("/agents", root.get("agents"), 1, ContractRules.MAX_AGENTS);
            if (list == null) {
                return Optional.empty();
            }
            List<AgentRequirement> out = new ArrayList<>();
            boolean ok = true;
            for (int i = 0; i < list.size(); i++) {
                String at = JsonPointers.child("/agents", i);
                JsonNode node = object(at, list.get(i), Set.of("kind", "minVersion", "maxVersion"));
                if (node == null) {
                    ok = false;
                    continue;
                }
                Optional<String> kind = string(at + "/kind", node.get("kind"));
                if (kind.isPresent() && !ContractRules.isAgentKind(kind.get())) {
                    error(ErrorCode.CONTRACT_TYPE, at + "/kind", "agent kind must be 1-64 of [a-z0-9._-]");
                    kind = Optional.empty();
                }
                Optional<SemVer> min = semver(at + "/minVersion", node.get("minVersion"));
                Optional<SemVer> max = semver(at + "/maxVersion", node.get("maxVersion"));
                if (kind.isEmpty() || min.isEmpty() || max.isEmpty()) {
                    ok = false;
                    continue;
                }
                String k = kind.get();
                Optional<AgentRequirement> requirement =
                        convert(at, () -> new AgentRequirement(k, min.get(), max.get()));
                if (requirement.isEmpty()) {
                    ok = false;
                } else {
                    out.add(requirement.get());
                }
            }
            return ok ? Optional.of(List.copyOf(out)) : Optional.empty();
        }

        private <E> Optional<List<E>> names(String field, Function<String, E> lookup, int max) {
            String at = "/" + field;
            JsonNode list = array(at, root.get(field), 0, max);
            if (list == null) {
                return Optional.empty();
            }
            Set<E> out = new LinkedHashSet<>();
            boolean ok = true;
            for (int i = 0; i < list.size(); i++) {
                String where = JsonPointers.child(at, i);
                Optional<E> value = enumValue(where, list.get(i), lookup);
                if (value.isEmpty()) {
                    ok = false;
                } else if (!out.add(value.get())) {
                    error(
                            ErrorCode.CONTRACT_TYPE,
                            where,
                            field + " lists '" + Text.excerpt(list.get(i).stringValue()) + "' twice");
                    ok = false;
                }
            }
            return ok ? Optional.of(List.copyOf(out)) : Optional.empty();
        }

        private Optional<List<String>> credentials() {
            JsonNode list = array("/credentials", root.get("credentials"), 0, ContractRules.MAX_CREDENTIALS);
            if (list == null) {
                return Optional.empty();
            }
            Set<String> out = new LinkedHashSet<>();
            boolean ok = true;
            for (int i = 0; i < list.size(); i++) {
                String where = JsonPointers.child("/credentials", i);
                Optional<String> name = string(where, list.get(i));
                if (name.isEmpty()) {
                    ok = false;
                } else if (!ContractRules.isCredentialName(name.get())) {
                    error(
                            ErrorCode.CONTRACT_TYPE,
                            where,
                            "credential names are 1-64 of [A-Za-z0-9._-], starting with a letter or digit");
                    ok = false;
                } else if (!out.add(name.get())) {
                    error(ErrorCode.CONTRACT_TYPE, where, "credential '" + Text.excerpt(name.get()) + "' listed twice");
                    ok = false;
                }
            }
            return ok ? Optional.of(List.copyOf(out)) : Optional.empty();
        }

        private Optional<List<NetworkDestination>> destinations() {
            JsonNode list =
                    array("/networkDestinations", root.get("networkDestinations"), 0, ContractRules.MAX_DESTINATIONS);
            if (list == null) {
                return Optional.empty();
            }
            Set<NetworkDestination> out = new LinkedHashSet<>();
            boolean ok = true;
            for (int i = 0; i < list.size(); i++) {
                String where = JsonPointers.child("/networkDestinations", i);
                Optional<String> text = string(where, list.get(i));
                if (text.isEmpty()) {
                    ok = false;
                    continue;
                }
                Optional<NetworkDestination> destination = convert(where, () -> NetworkDestination.parse(text.get()));
                if (destination.isEmpty()) {
                    ok = false;
                } else if (!out.add(destination.get())) {
                    error(
                            ErrorCode.CONTRACT_DESTINATION_INVALID,
                            where,
                            "destination " + Text.excerpt(destination.get().origin()) + " is listed twice");
                    ok = false;
                }
            }
            return ok ? Optional.of(List.copyOf(out)) : Optional.empty();
        }

        private <E> Optional<E> single(String field, Function<String, E> lookup) {
            return enumValue("/" + field, root.get(field), lookup);
        }

        private <E> Optional<E> enumValue(String at, JsonNode node, Function<String, E> lookup) {
            Optional<String> text = string(at, node);
            if (text.isEmpty()) {
                return Optional.empty();
            }
            return convert(at, () -> lookup.apply(text.get()));
        }

        private Optional<SemVer> semver(String at, JsonNode node) {
            Optional<String> text = string(at, node);
            if (text.isEmpty()) {
                return Optional.empty();
            }
            return convert(at, () -> SemVer.parse(text.get()));
        }

        private Optional<String> string(String at, JsonNode node) {
            if (node == null) {
                error(ErrorCode.CONTRACT_MISSING_FIELD, at, field(at) + " is required");
                return Optional.empty();
            }
            if (!node.isString()) {
                error(ErrorCode.CONTRACT_TYPE, at, field(at) + " must be a string");
                return Optional.empty();
            }
            return Optional.of(node.stringValue());
        }

        private JsonNode object(String at, JsonNode node, Set<String> allowed) {
            if (node == null) {
                error(ErrorCode.CONTRACT_MISSING_FIELD, at, field(at) + " is required");
                return null;
            }
            if (!node.isObject()) {
                error(ErrorCode.CONTRACT_TYPE, at, field(at) + " must be an object");
                return null;
            }
            unknownFields(node, at, allowed);
            return node;
        }

        private JsonNode array(String at, JsonNode node, int min, int max) {
            if (node == null) {
                error(ErrorCode.CONTRACT_MISSING_FIELD, at, field(at) + " is required (write [] for none)");
                return null;
            }
            if (!node.isArray()) {
                error(ErrorCode.CONTRACT_TYPE, at, field(at) + " must be an array");
                return null;
            }
            if (node.size() < min || node.size() > max) {
                error(ErrorCode.CONTRACT_TYPE, at, field(at) + " must list " + min + "-" + max + " entries");
                return null;
            }
            return node;
        }

        private <T> Optional<T> convert(String at, java.util.function.Supplier<T> make) {
            try {
                return Optional.of(make.get());
            } catch (InvalidValueException e) {
                problems.add(e.toDiagnostic(at));
                return Optional.empty();
            }
        }

        private void error(ErrorCode code, String at, String message) {
            problems.add(Diagnostic.error(code, at, message));
        }

        /** The field name for a message: {@code kind} for {@code /agents/0/kind}, "an entry of tools" for {@code /tools/2}. */
        private static String field(String at) {
            String[] parts = at.split("/", -1);
            String last = parts[parts.length - 1];
            if (!last.isEmpty() && last.chars().allMatch(c -> c >= '0' && c <= '9') && parts.length >= 2) {
                return "each entry of " + parts[parts.length - 2];
            }
            return last;
        }

        private static String locationOf(ErrorCode code) {
            return switch (code) {
                case CONTRACT_SIDE_EFFECT_PERMISSION -> "/sideEffectClass";
                case CONTRACT_DESTINATION_REQUIRED -> "/networkDestinations";
                default -> "";
            };
        }
    }
}
