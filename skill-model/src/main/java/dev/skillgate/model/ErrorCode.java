package dev.skillgate.model;

import java.util.Locale;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Every stable error and diagnostic code Skillgate reports, grouped by {@link ErrorGroup}.
 *
 * <p>The constant's name is the code: it is what JSON output, audit records and hosts compare.
 * Codes are never renamed or reused; new ones are added to their group. Each is documented in
 * {@code docs/error-codes.md} (a test keeps the two in step). Agent Skills field rules also have the
 * hyphenated rule id of the conformance cases ({@code NAME_LOWERCASE} is rule {@code NAME-LOWERCASE}).
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public enum ErrorCode {
    // --- LAYOUT ---
    /** The given path does not exist. */
    LAYOUT_PATH(ErrorGroup.LAYOUT, "The given path does not exist."),
    /** The given path is not a directory. */
    LAYOUT_DIR(ErrorGroup.LAYOUT, "The given path is not a directory."),
    /** The skill directory has no SKILL.md. */
    LAYOUT_SKILLMD(ErrorGroup.LAYOUT, "The skill directory has no `SKILL.md`."),
    /** Only a lowercase skill.md was found; the standard names SKILL.md. */
    LAYOUT_SKILLMD_CASE(ErrorGroup.LAYOUT, "Only a lowercase `skill.md` was found; the standard names `SKILL.md`."),
    /** A flat NAME.md legacy skill: loadable as a compatibility path, not portable. */
    LAYOUT_LEGACY_FLAT(
            ErrorGroup.LAYOUT, "A flat `NAME.md` legacy skill: loadable as a compatibility path, not portable."),
    /** A skill of the same name in an earlier root wins; this one is shadowed. */
    LAYOUT_SHADOWED(ErrorGroup.LAYOUT, "A skill of the same name in an earlier root wins; this one is shadowed."),
    /** A symbolic link was found where a skill or file was expected; links are never followed. */
    LAYOUT_LINK(
            ErrorGroup.LAYOUT,
            "A symbolic link was found where a skill or file was expected; links are never followed."),
    /** A FIFO, device, socket or directory was found where a regular file was expected. */
    LAYOUT_NOT_REGULAR(
            ErrorGroup.LAYOUT, "A FIFO, device, socket or directory was found where a regular file was expected."),
    /** Discovery stopped at its configured depth or entry bound. */
    LAYOUT_WALK_LIMIT(ErrorGroup.LAYOUT, "Discovery stopped at its configured depth or entry bound."),
    /** An entry's name cannot be mapped back to its bytes on disk; it was skipped and reported. */
    LAYOUT_NAME_ENCODING(
            ErrorGroup.LAYOUT,
            "An entry's name cannot be mapped back to its bytes on disk (not valid UTF-8, or not representable in"
                    + " a non-UTF-8 locale); discovery skipped it and reported it."),
    /** A skill's directory name matches its skill name only after NFKC normalisation or case folding. */
    LAYOUT_NAME_NORMALISED(
            ErrorGroup.LAYOUT,
            "A skill's directory name matches its skill name only after Unicode NFKC normalisation or case"
                    + " folding (a look-alike); shown in the catalog and in approval requests."),
    /** A skill's directory name or skill name mixes Unicode scripts (e.g. a Cyrillic letter among Latin ones). */
    LAYOUT_NAME_MIXED_SCRIPTS(
            ErrorGroup.LAYOUT,
            "A skill's directory name or skill name mixes Unicode scripts (e.g. a Cyrillic letter among Latin"
                    + " ones); shown in the catalog and in approval requests."),
    /** A skill's directory name or skill name has a non-ASCII character among ASCII letters. */
    LAYOUT_NAME_NON_ASCII(
            ErrorGroup.LAYOUT,
            "A skill's directory name or skill name has a non-ASCII character among ASCII letters (it may only look"
                    + " like an ASCII name); shown in the catalog and in approval requests."),
    /** Discovery deliberately did not search an entry (VCS metadata, node_modules, a repeated root); reported. */
    LAYOUT_SKIPPED(
            ErrorGroup.LAYOUT,
            "Discovery deliberately did not search an entry: version-control metadata, `node_modules`, a"
                    + " dot-directory when those are excluded, a root given twice, or a skill already found through an"
                    + " earlier root."),
    /** No loadable skill of that name was found in the configured skill roots. */
    SKILL_NOT_FOUND(ErrorGroup.LAYOUT, "No loadable skill of that name was found in the configured skill roots."),
    // --- FRONTMATTER ---
    /** SKILL.md does not start with a --- frontmatter line. */
    FM_START(ErrorGroup.FRONTMATTER, "`SKILL.md` does not start with a `---` frontmatter line."),
    /** The frontmatter is not closed by a --- line. */
    FM_CLOSE(ErrorGroup.FRONTMATTER, "The frontmatter is not closed by a `---` line."),
    /** The frontmatter is not valid YAML. */
    FM_YAML(ErrorGroup.FRONTMATTER, "The frontmatter is not valid YAML."),
    /** The frontmatter is not a YAML mapping. */
    FM_MAPPING(ErrorGroup.FRONTMATTER, "The frontmatter is not a YAML mapping."),
    /** SKILL.md is not valid UTF-8 (or contains NUL bytes). */
    FM_ENCODING(ErrorGroup.FRONTMATTER, "`SKILL.md` is not valid UTF-8 (or contains NUL bytes)."),
    /** SKILL.md starts with a byte-order mark. */
    FM_BOM(ErrorGroup.FRONTMATTER, "`SKILL.md` starts with a byte-order mark."),
    /** The frontmatter exceeds 64 KiB. */
    FM_TOO_LARGE(ErrorGroup.FRONTMATTER, "The frontmatter exceeds 64 KiB."),
    /** The frontmatter uses a YAML anchor or alias; they are refused. */
    FM_ALIAS(ErrorGroup.FRONTMATTER, "The frontmatter uses a YAML anchor or alias; they are refused."),
    /** The frontmatter repeats a mapping key. */
    FM_DUPLICATE_KEY(ErrorGroup.FRONTMATTER, "The frontmatter repeats a mapping key."),
    /** The frontmatter uses an explicit YAML tag; no tags are honoured. */
    FM_TAG(ErrorGroup.FRONTMATTER, "The frontmatter uses an explicit YAML tag; no tags are honoured."),
    /** The frontmatter nests deeper than the bound. */
    FM_DEPTH(ErrorGroup.FRONTMATTER, "The frontmatter nests deeper than the bound."),
    // --- FIELD ---
    /** A top-level frontmatter key outside the six standard fields. */
    KEYS_UNKNOWN(ErrorGroup.FIELD, "A top-level frontmatter key outside the six standard fields."),
    /** A known host extension key (e.g. Claude Code's): preserved, not enforced, not portable. */
    KEYS_HOST_EXTENSION(
            ErrorGroup.FIELD,
            "A known host extension key (e.g. Claude Code's): preserved, not enforced, not portable."),
    /** The name field is missing. */
    NAME_REQUIRED(ErrorGroup.FIELD, "The `name` field is missing."),
    /** The name field is not a non-empty string. */
    NAME_TYPE(ErrorGroup.FIELD, "The `name` field is not a non-empty string."),
    /** The name is longer than 64 characters. */
    NAME_LENGTH(ErrorGroup.FIELD, "The `name` is longer than 64 characters."),
    /** The name contains uppercase letters. */
    NAME_LOWERCASE(ErrorGroup.FIELD, "The `name` contains uppercase letters."),
    /** The name starts or ends with a hyphen. */
    NAME_HYPHEN_EDGE(ErrorGroup.FIELD, "The `name` starts or ends with a hyphen."),
    /** The name contains consecutive hyphens. */
    NAME_HYPHEN_DOUBLE(ErrorGroup.FIELD, "The `name` contains consecutive hyphens."),
    /** The name contains characters other than a-z, 0-9 and -. */
    NAME_CHARSET(ErrorGroup.FIELD, "The `name` contains characters other than `a-z`, `0-9` and `-`."),
    /** The name differs from the skill's directory name. */
    NAME_DIR_MATCH(ErrorGroup.FIELD, "The `name` differs from the skill's directory name."),
    /** The description field is missing. */
    DESC_REQUIRED(ErrorGroup.FIELD, "The `description` field is missing."),
    /** The description field is not a non-empty string. */
    DESC_TYPE(ErrorGroup.FIELD, "The `description` field is not a non-empty string."),
    /** The description is longer than 1,024 characters. */
    DESC_LENGTH(ErrorGroup.FIELD, "The `description` is longer than 1,024 characters."),
    /** The compatibility field is not a string. */
    COMPAT_TYPE(ErrorGroup.FIELD, "The `compatibility` field is not a string."),
    /** The compatibility field is empty or longer than 500 characters. */
    COMPAT_LENGTH(ErrorGroup.FIELD, "The `compatibility` field is empty or longer than 500 characters."),
    /** The license field is not a string. */
    LIC_TYPE(ErrorGroup.FIELD, "The `license` field is not a string."),
    /** The metadata field is not a mapping. */
    META_TYPE(ErrorGroup.FIELD, "The `metadata` field is not a mapping."),
    /** A metadata value is not a string. */
    META_VALUE(ErrorGroup.FIELD, "A `metadata` value is not a string."),
    /** The allowed-tools field is not a single string. */
    TOOLS_TYPE(ErrorGroup.FIELD, "The `allowed-tools` field is not a single string."),
    /** The allowed-tools field is preserved, not enforced: it grants and restricts nothing. */
    TOOLS_NOT_ENFORCED(
            ErrorGroup.FIELD, "The `allowed-tools` field is preserved, not enforced: it grants and restricts nothing."),
    // --- HOST ---
    /** The name contains a word reserved by a host (anthropic, claude). */
    HOST_ANTHROPIC_RESERVED(ErrorGroup.HOST, "The name contains a word reserved by a host (`anthropic`, `claude`)."),
    /** The description contains angle brackets, which a host refuses. */
    HOST_ANTHROPIC_NO_XML(ErrorGroup.HOST, "The description contains angle brackets, which a host refuses."),
    // --- PATH ---
    /** The path is empty. */
    PATH_EMPTY(ErrorGroup.PATH, "The path is empty."),
    /** The path is absolute (or has a drive or UNC prefix). */
    PATH_ABSOLUTE(ErrorGroup.PATH, "The path is absolute (or has a drive or UNC prefix)."),
    /** The path has a .. segment. */
    PATH_TRAVERSAL(ErrorGroup.PATH, "The path has a `..` segment."),
    /** The path has a . segment. */
    PATH_DOT_SEGMENT(ErrorGroup.PATH, "The path has a `.` segment."),
    /** The path contains a backslash. */
    PATH_BACKSLASH(ErrorGroup.PATH, "The path contains a backslash."),
    /** The path has an empty segment (a//b, trailing /). */
    PATH_EMPTY_SEGMENT(ErrorGroup.PATH, "The path has an empty segment (`a//b`, trailing `/`)."),
    /** The path contains NUL, a control character or an invisible format character. */
    PATH_CONTROL_CHAR(ErrorGroup.PATH, "The path contains NUL, a control character or an invisible format character."),
    /** A path segment starts with -. */
    PATH_LEADING_DASH(ErrorGroup.PATH, "A path segment starts with `-`."),
    /** The path is not in Unicode normalisation form C. */
    PATH_NOT_NFC(ErrorGroup.PATH, "The path is not in Unicode normalisation form C."),
    /** The path or one of its segments is too long. */
    PATH_TOO_LONG(ErrorGroup.PATH, "The path or one of its segments is too long."),
    // --- READ ---
    /** The file does not exist. */
    READ_NOT_FOUND(ErrorGroup.READ, "The file does not exist."),
    /** The file is a symbolic link; links are never followed. */
    READ_LINK(ErrorGroup.READ, "The file is a symbolic link; links are never followed."),
    /** The file is not a regular file (directory, FIFO, device or socket). */
    READ_NOT_REGULAR(ErrorGroup.READ, "The file is not a regular file (directory, FIFO, device or socket)."),
    /** The file exceeds its per-file byte bound. */
    READ_TOO_LARGE(ErrorGroup.READ, "The file exceeds its per-file byte bound."),
    /** The files read together exceed the total byte bound. */
    READ_TOTAL_LIMIT(ErrorGroup.READ, "The files read together exceed the total byte bound."),
    /** A text file is not valid UTF-8. */
    READ_INVALID_UTF8(ErrorGroup.READ, "A text file is not valid UTF-8."),
    /** The resolved path leaves the skill root. */
    READ_OUTSIDE_ROOT(ErrorGroup.READ, "The resolved path leaves the skill root."),
    /** The file could not be read (I/O error). */
    READ_IO(ErrorGroup.READ, "The file could not be read (I/O error)."),
    // --- MANIFEST ---
    /** execution.json exceeds 64 KiB. */
    MANIFEST_TOO_LARGE(ErrorGroup.MANIFEST, "`execution.json` exceeds 64 KiB."),
    /** execution.json is not one valid UTF-8 JSON value. */
    MANIFEST_SYNTAX(ErrorGroup.MANIFEST, "`execution.json` is not one valid UTF-8 JSON value."),
    /** execution.json repeats an object key. */
    MANIFEST_DUPLICATE_KEY(ErrorGroup.MANIFEST, "`execution.json` repeats an object key."),
    /** execution.json nests deeper than 32. */
    MANIFEST_DEPTH(ErrorGroup.MANIFEST, "`execution.json` nests deeper than 32."),
    /** execution.json has more than 4,096 nodes. */
    MANIFEST_NODES(ErrorGroup.MANIFEST, "`execution.json` has more than 4,096 nodes."),
    /** execution.json uses __proto__ as a key. */
    MANIFEST_PROTO_KEY(ErrorGroup.MANIFEST, "`execution.json` uses `__proto__` as a key."),
    /** execution.json has a field the schema version does not define. */
    MANIFEST_UNKNOWN_FIELD(ErrorGroup.MANIFEST, "`execution.json` has a field the schema version does not define."),
    /** A required manifest field is missing. */
    MANIFEST_MISSING_FIELD(ErrorGroup.MANIFEST, "A required manifest field is missing."),
    /** A manifest field has the wrong JSON type. */
    MANIFEST_TYPE(ErrorGroup.MANIFEST, "A manifest field has the wrong JSON type."),
    /** A manifest number is out of range (never clamped). */
    MANIFEST_RANGE(ErrorGroup.MANIFEST, "A manifest number is out of range (never clamped)."),
    /** schemaVersion is not 1. */
    MANIFEST_VERSION(ErrorGroup.MANIFEST, "`schemaVersion` is not 1."),
    /** The entrypoint is not a .mjs or .cjs file. */
    MANIFEST_UNSUPPORTED_RUNTIME(ErrorGroup.MANIFEST, "The entrypoint is not a `.mjs` or `.cjs` file."),
    /** The entrypoint is not listed in files. */
    MANIFEST_ENTRYPOINT_NOT_LISTED(ErrorGroup.MANIFEST, "The entrypoint is not listed in `files`."),
    /** files lists fewer than 1 or more than 64 paths. */
    MANIFEST_FILES_COUNT(ErrorGroup.MANIFEST, "`files` lists fewer than 1 or more than 64 paths."),
    /** files lists the same path twice (after normalisation). */
    MANIFEST_FILE_DUPLICATE(ErrorGroup.MANIFEST, "`files` lists the same path twice (after normalisation)."),
    /** A limit (timeout, output bytes) is outside its allowed range; limits are never clamped. */
    LIMIT_OUT_OF_RANGE(
            ErrorGroup.MANIFEST,
            "A limit (timeout, output bytes) is outside its allowed range; limits are never clamped."),
    /** files lists skill.contract.sig, which signs the revision and so cannot be part of it. */
    MANIFEST_FILE_RESERVED(
            ErrorGroup.MANIFEST,
            "`files` lists `skill.contract.sig`, which signs the revision and so cannot be part of it."),
    /** The skill has no execution.json: prompt-only, execution unavailable. */
    MANIFEST_ABSENT(ErrorGroup.MANIFEST, "The skill has no `execution.json`: prompt-only, execution unavailable."),
    // --- SCHEMA ---
    /** The schema uses a keyword outside the bounded subset. */
    SCHEMA_KEYWORD_REJECTED(ErrorGroup.SCHEMA, "The schema uses a keyword outside the bounded subset."),
    /** $schema names a dialect other than draft 2020-12. */
    SCHEMA_DIALECT(ErrorGroup.SCHEMA, "`$schema` names a dialect other than draft 2020-12."),
    /** type is not a single known type name. */
    SCHEMA_TYPE_INVALID(ErrorGroup.SCHEMA, "`type` is not a single known type name."),
    /** An object schema has no properties. */
    SCHEMA_PROPERTIES_REQUIRED(ErrorGroup.SCHEMA, "An object schema has no `properties`."),
    /** An array schema has no items. */
    SCHEMA_ITEMS_REQUIRED(ErrorGroup.SCHEMA, "An array schema has no `items`."),
    /** anyOf has fewer than 2 or more than 4 branches. */
    SCHEMA_ANYOF_BRANCHES(ErrorGroup.SCHEMA, "`anyOf` has fewer than 2 or more than 4 branches."),
    /** A node with anyOf has sibling assertion keywords. */
    SCHEMA_ANYOF_SIBLING(ErrorGroup.SCHEMA, "A node with `anyOf` has sibling assertion keywords."),
    /** The input schema root is not an explicit object schema. */
    SCHEMA_ROOT_NOT_OBJECT(ErrorGroup.SCHEMA, "The input schema root is not an explicit object schema."),
    /** A boolean schema appears outside additionalProperties. */
    SCHEMA_BOOLEAN_SCHEMA(ErrorGroup.SCHEMA, "A boolean schema appears outside `additionalProperties`."),
    /** A keyword's value has the wrong type or an invalid value. */
    SCHEMA_KEYWORD_VALUE(ErrorGroup.SCHEMA, "A keyword's value has the wrong type or an invalid value."),
    /** The schema nests deeper than 32. */
    SCHEMA_DEPTH(ErrorGroup.SCHEMA, "The schema nests deeper than 32."),
    /** The schema has more than 4,096 nodes. */
    SCHEMA_NODES(ErrorGroup.SCHEMA, "The schema has more than 4,096 nodes."),
    /** The schema uses __proto__ as a key. */
    SCHEMA_PROTO_KEY(ErrorGroup.SCHEMA, "The schema uses `__proto__` as a key."),
    /** A keyword can never apply to the schema's declared type (e.g. maximum on a string). */
    SCHEMA_KEYWORD_INAPPLICABLE(
            ErrorGroup.SCHEMA,
            "A keyword can never apply to the schema's declared `type` (e.g. `maximum` on a string)."),
    /** More than 20 schema problems were found; the rest are not reported. */
    SCHEMA_ISSUES_TRUNCATED(ErrorGroup.SCHEMA, "More than 20 schema problems were found; the rest are not reported."),
    /**
     * A skill's input schema cannot be expressed exactly in a host framework's tool-parameter
     * type; the adapter does not offer the tool rather than loosen the schema.
     */
    SCHEMA_NOT_EXPRESSIBLE(
            ErrorGroup.SCHEMA,
            "The skill's `inputSchema` cannot be expressed exactly as the host framework's tool parameters; the"
                    + " adapter does not offer that tool."),
    // --- JSON ---
    /** The JSON text exceeds its byte bound. */
    JSON_TOO_LARGE(ErrorGroup.JSON, "The JSON text exceeds its byte bound."),
    /** The JSON text is not valid UTF-8. */
    JSON_INVALID_UTF8(ErrorGroup.JSON, "The JSON text is not valid UTF-8."),
    /** The JSON text starts with a byte-order mark. */
    JSON_BOM(ErrorGroup.JSON, "The JSON text starts with a byte-order mark."),
    /** The JSON text holds no value. */
    JSON_EMPTY(ErrorGroup.JSON, "The JSON text holds no value."),
    /** The JSON text is malformed. */
    JSON_SYNTAX(ErrorGroup.JSON, "The JSON text is malformed."),
    /** The JSON text has data after its single value. */
    JSON_TRAILING_DATA(ErrorGroup.JSON, "The JSON text has data after its single value."),
    /** An object repeats a key. */
    JSON_DUPLICATE_KEY(ErrorGroup.JSON, "An object repeats a key."),
    /** The JSON text uses NaN or Infinity. */
    JSON_NON_FINITE(ErrorGroup.JSON, "The JSON text uses `NaN` or `Infinity`."),
    /** The JSON value nests deeper than 32. */
    JSON_DEPTH(ErrorGroup.JSON, "The JSON value nests deeper than 32."),
    /** The JSON value has more than 4,096 nodes. */
    JSON_NODES(ErrorGroup.JSON, "The JSON value has more than 4,096 nodes."),
    /** The invocation is not a JSON object. */
    JSON_ROOT_NOT_OBJECT(ErrorGroup.JSON, "The invocation is not a JSON object."),
    /** A string escapes an unpaired UTF-16 surrogate code unit. */
    JSON_LONE_SURROGATE(ErrorGroup.JSON, "A string escapes an unpaired UTF-16 surrogate code unit."),
    // --- VALUE ---
    /** A value has the wrong type. */
    VALUE_TYPE(ErrorGroup.VALUE, "A value has the wrong type."),
    /** A required property is missing. */
    VALUE_REQUIRED(ErrorGroup.VALUE, "A required property is missing."),
    /** A property is not allowed (additionalProperties: false). */
    VALUE_ADDITIONAL_PROPERTY(ErrorGroup.VALUE, "A property is not allowed (`additionalProperties: false`)."),
    /** A value is not one of the enum values. */
    VALUE_ENUM(ErrorGroup.VALUE, "A value is not one of the `enum` values."),
    /** A value differs from const. */
    VALUE_CONST(ErrorGroup.VALUE, "A value differs from `const`."),
    /** A string is shorter than minLength code points. */
    VALUE_MIN_LENGTH(ErrorGroup.VALUE, "A string is shorter than `minLength` code points."),
    /** A string is longer than maxLength code points. */
    VALUE_MAX_LENGTH(ErrorGroup.VALUE, "A string is longer than `maxLength` code points."),
    /** An array has fewer than minItems items. */
    VALUE_MIN_ITEMS(ErrorGroup.VALUE, "An array has fewer than `minItems` items."),
    /** An array has more than maxItems items. */
    VALUE_MAX_ITEMS(ErrorGroup.VALUE, "An array has more than `maxItems` items."),
    /** A number is below minimum. */
    VALUE_MINIMUM(ErrorGroup.VALUE, "A number is below `minimum`."),
    /** A number is above maximum. */
    VALUE_MAXIMUM(ErrorGroup.VALUE, "A number is above `maximum`."),
    /** A number is not above exclusiveMinimum. */
    VALUE_EXCLUSIVE_MINIMUM(ErrorGroup.VALUE, "A number is not above `exclusiveMinimum`."),
    /** A number is not below exclusiveMaximum. */
    VALUE_EXCLUSIVE_MAXIMUM(ErrorGroup.VALUE, "A number is not below `exclusiveMaximum`."),
    /** A value matches none of the anyOf branches. */
    VALUE_ANY_OF(ErrorGroup.VALUE, "A value matches none of the `anyOf` branches."),
    /** More than 20 issues were found; the rest are not reported. */
    VALUE_ISSUES_TRUNCATED(ErrorGroup.VALUE, "More than 20 issues were found; the rest are not reported."),
    // --- CAPTURE ---
    /** A bundle file or the root changed while it was captured. */
    SOURCE_CHANGED(ErrorGroup.CAPTURE, "A bundle file or the root changed while it was captured."),
    /** A file declared by the manifest is missing. */
    CAPTURE_FILE_MISSING(ErrorGroup.CAPTURE, "A file declared by the manifest is missing."),
    /** The captured revision differs from the expected one. */
    CAPTURE_REVISION_MISMATCH(ErrorGroup.CAPTURE, "The captured revision differs from the expected one."),
    /** A digest or revision is not sha256: followed by 64 lowercase hex digits. */
    INVALID_DIGEST(ErrorGroup.CAPTURE, "A digest or revision is not `sha256:` followed by 64 lowercase hex digits."),
    // --- CONTRACT ---
    /** skill.contract.json is not one valid UTF-8 JSON value within bounds. */
    CONTRACT_SYNTAX(ErrorGroup.CONTRACT, "`skill.contract.json` is not one valid UTF-8 JSON value within bounds."),
    /** The contract has a field its schema version does not define. */
    CONTRACT_UNKNOWN_FIELD(ErrorGroup.CONTRACT, "The contract has a field its schema version does not define."),
    /** A required contract field is missing. */
    CONTRACT_MISSING_FIELD(ErrorGroup.CONTRACT, "A required contract field is missing."),
    /** A contract field has the wrong type or an unknown value. */
    CONTRACT_TYPE(ErrorGroup.CONTRACT, "A contract field has the wrong type or an unknown value."),
    /** schemaVersion is not 1, or recordType is neither skill-contract nor a configured dialect's. */
    CONTRACT_VERSION(
            ErrorGroup.CONTRACT,
            "`schemaVersion` is not 1, or `recordType` is neither `skill-contract` nor a configured dialect's."),
    /** A version or range is not strict SemVer 2.0.0. */
    CONTRACT_SEMVER(ErrorGroup.CONTRACT, "A version or range is not strict SemVer 2.0.0."),
    /** identity.id is not &lt;namespace&gt;/&lt;directory name&gt;. */
    CONTRACT_IDENTITY_MISMATCH(ErrorGroup.CONTRACT, "`identity.id` is not `<namespace>/<directory name>`."),
    /** A side effect other than none needs permissionMode of at least workspace-write. */
    CONTRACT_SIDE_EFFECT_PERMISSION(
            ErrorGroup.CONTRACT,
            "A side effect other than `none` needs `permissionMode` of at least `workspace-write`."),
    /** external-write needs at least one network destination. */
    CONTRACT_DESTINATION_REQUIRED(ErrorGroup.CONTRACT, "`external-write` needs at least one network destination."),
    /** A destination is not a credential-free https://host[:port] origin. */
    CONTRACT_DESTINATION_INVALID(
            ErrorGroup.CONTRACT, "A destination is not a credential-free `https://host[:port]` origin."),
    /** The contract declares credentials and no credential broker is configured. */
    CONTRACT_CREDENTIALS_UNSUPPORTED(
            ErrorGroup.CONTRACT, "The contract declares credentials and no credential broker is configured."),
    /** The agent kind or version is outside the contract's range. */
    CONTRACT_AGENT_INCOMPATIBLE(ErrorGroup.CONTRACT, "The agent kind or version is outside the contract's range."),
    /** The agent context lacks an input type the contract needs. */
    CONTRACT_INPUT_TYPE_MISSING(ErrorGroup.CONTRACT, "The agent context lacks an input type the contract needs."),
    /** The agent context lacks a tool class the contract needs. */
    CONTRACT_TOOL_MISSING(ErrorGroup.CONTRACT, "The agent context lacks a tool class the contract needs."),
    /** The agent context lacks a credential the contract needs. */
    CONTRACT_CREDENTIAL_UNAVAILABLE(ErrorGroup.CONTRACT, "The agent context lacks a credential the contract needs."),
    /** The contract asks for more permission than the agent context grants. */
    CONTRACT_PERMISSION_ESCALATION(
            ErrorGroup.CONTRACT, "The contract asks for more permission than the agent context grants."),
    /** A contract dialect threw, returned nothing, or returned an unusable contract or diagnostics. */
    CONTRACT_DIALECT_FAILED(
            ErrorGroup.CONTRACT,
            "A contract dialect threw, returned nothing, or returned an unusable contract or diagnostics."),
    // --- SIGNATURE ---
    /** A signed origin has no signature. */
    SIGNATURE_MISSING(ErrorGroup.SIGNATURE, "A signed origin has no signature."),
    /** The signature or key is malformed. */
    SIGNATURE_FORMAT(ErrorGroup.SIGNATURE, "The signature or key is malformed."),
    /** The signature or key uses an algorithm other than Ed25519. */
    SIGNATURE_ALGORITHM(ErrorGroup.SIGNATURE, "The signature or key uses an algorithm other than Ed25519."),
    /** The signing key is not among the host's allowed publisher keys. */
    SIGNATURE_UNKNOWN_KEY(ErrorGroup.SIGNATURE, "The signing key is not among the host's allowed publisher keys."),
    /** The SSH signature namespace is not skillgate. */
    SIGNATURE_NAMESPACE(ErrorGroup.SIGNATURE, "The SSH signature namespace is not `skillgate`."),
    /** The signature does not verify. */
    SIGNATURE_INVALID(ErrorGroup.SIGNATURE, "The signature does not verify."),
    /** The signed contract digest or revision differs from the captured one. */
    SIGNATURE_REVISION_MISMATCH(
            ErrorGroup.SIGNATURE, "The signed contract digest or revision differs from the captured one."),
    /** The signing key is allowed, but not for the publisher the contract names. */
    SIGNATURE_PUBLISHER_MISMATCH(
            ErrorGroup.SIGNATURE, "The signing key is allowed, but not for the publisher the contract names."),
    /** An allowed-signers line uses a feature Skillgate does not support; it grants nothing. */
    SIGNATURE_SIGNER_UNSUPPORTED(
            ErrorGroup.SIGNATURE,
            "An allowed-signers line uses a feature Skillgate does not support (`cert-authority`,"
                    + " `valid-after`, `valid-before`); the line grants nothing."),
    /** The private key file for signing is not a well-formed openssh-key-v1 key. */
    SIGNATURE_KEY_FORMAT(
            ErrorGroup.SIGNATURE,
            "The private key file for signing is not a well-formed, single-key `openssh-key-v1` key."),
    /** The private key for signing is encrypted with a passphrase; only unencrypted keys are read. */
    SIGNATURE_KEY_ENCRYPTED(
            ErrorGroup.SIGNATURE,
            "The private key for signing is encrypted with a passphrase; only unencrypted keys are read."),
    /** The private key file is accessible by group or others; it is refused as OpenSSH does. */
    SIGNATURE_KEY_PERMISSIONS(
            ErrorGroup.SIGNATURE,
            "The private key file grants permissions to group or others (or they cannot be checked); it is"
                    + " refused, as OpenSSH refuses it."),
    /** The bundle has no accepted contract with origin signed, so there is nothing to sign. */
    SIGNATURE_ORIGIN_UNSIGNED(
            ErrorGroup.SIGNATURE, "The bundle has no accepted contract whose origin is `signed`, so it is not signed."),
    /** The bundle already has a signature file and replacing it was not asked for. */
    SIGNATURE_FILE_EXISTS(
            ErrorGroup.SIGNATURE,
            "The bundle already has a `skill.contract.sig` and replacing it was not asked for (`--force`)."),
    // --- CONSENT ---
    /** The human denied the proposal. */
    CONSENT_DENIED(ErrorGroup.CONSENT, "The human denied the proposal."),
    /** The approval channel did not answer in time (a denial). */
    CONSENT_TIMEOUT(ErrorGroup.CONSENT, "The approval channel did not answer in time (a denial)."),
    /** No approval channel is configured, or it failed (a denial). */
    CONSENT_CHANNEL_UNAVAILABLE(ErrorGroup.CONSENT, "No approval channel is configured, or it failed (a denial)."),
    /** The proposal's 5-minute window passed. */
    CONSENT_EXPIRED(ErrorGroup.CONSENT, "The proposal's 5-minute window passed."),
    /** A newer proposal for the same run and skill replaced this one. */
    CONSENT_STALE(ErrorGroup.CONSENT, "A newer proposal for the same run and skill replaced this one."),
    /** The run ended or was aborted. */
    CONSENT_CANCELLED(ErrorGroup.CONSENT, "The run ended or was aborted."),
    /** Consume was attempted on a proposal that is not approved. */
    CONSENT_NOT_APPROVED(ErrorGroup.CONSENT, "Consume was attempted on a proposal that is not approved."),
    /** A skill's resources were asked for before the skill was activated through this toolset. */
    SKILL_NOT_ACTIVATED(
            ErrorGroup.CONSENT,
            "The skill's resources were asked for before the skill was activated (approved) through this"
                    + " toolset."),
    /** The grant was already consumed. */
    CONSENT_ALREADY_CONSUMED(ErrorGroup.CONSENT, "The grant was already consumed."),
    /** A second identical decision on a decided proposal. */
    DUPLICATE_DECISION(ErrorGroup.CONSENT, "A second identical decision on a decided proposal."),
    /** A different decision on a decided proposal. */
    CONFLICTING_DECISION(ErrorGroup.CONSENT, "A different decision on a decided proposal."),
    /** Consume presented a binding that differs from the approved one (terminal). */
    BINDING_MISMATCH(ErrorGroup.CONSENT, "Consume presented a binding that differs from the approved one (terminal)."),
    /** The decision names a proposal this ledger does not know. */
    UNKNOWN_PROPOSAL(ErrorGroup.CONSENT, "The decision names a proposal this ledger does not know."),
    /** The run already has 64 proposals. */
    PROPOSAL_LIMIT(ErrorGroup.CONSENT, "The run already has 64 proposals."),
    /** The agent already has as many approvals pending, or asked as often this minute, as the host allows. */
    CONSENT_DEMAND_LIMIT(
            ErrorGroup.CONSENT,
            "The agent already has as many approvals pending, or asked as often this minute, as the host allows."),
    /** The gate already keeps 256 live runs that all have approvals outstanding; none is cancelled for a new one. */
    RUN_LIMIT(
            ErrorGroup.CONSENT,
            "The gate already keeps 256 live runs that all have approvals outstanding; none is cancelled for a new one."),
    /** The request names an agent or an agent context the host did not vouch for. */
    AGENT_NOT_VOUCHED(ErrorGroup.CONSENT, "The request names an agent or an agent context the host did not vouch for."),
    /** A run, agent or proposal identifier is malformed. */
    INVALID_IDENTIFIER(ErrorGroup.CONSENT, "A run, agent or proposal identifier is malformed."),
    // --- POLICY ---
    /** The execution policy is BLOCKED. */
    POLICY_BLOCKED(ErrorGroup.POLICY, "The execution policy is `BLOCKED`."),
    /** APPROVE_WORKFLOW_RUN without a host-verified plan covering this launch. */
    POLICY_NO_PLAN(ErrorGroup.POLICY, "`APPROVE_WORKFLOW_RUN` without a host-verified plan covering this launch."),
    /** The stored policy is malformed; policy is BLOCKED until it is fixed. */
    POLICY_CORRUPT(ErrorGroup.POLICY, "The stored policy is malformed; policy is `BLOCKED` until it is fixed."),
    /** A policy change was rejected (malformed, over a bound); nothing changed. */
    POLICY_INVALID(ErrorGroup.POLICY, "A policy change was rejected (malformed, over a bound); nothing changed."),
    /** More than 64 trusted-revision scopes. */
    POLICY_SCOPE_LIMIT(ErrorGroup.POLICY, "More than 64 trusted-revision scopes."),
    /** The policy store could not be read or written durably; an unreadable policy is BLOCKED. */
    POLICY_IO(
            ErrorGroup.POLICY,
            "The policy store could not be read or written durably; an unreadable policy is `BLOCKED`."),
    /** The policy changed between the first check and launch; the authorisation no longer qualifies. */
    POLICY_CHANGED(
            ErrorGroup.POLICY,
            "The policy changed between the first check and launch; the authorisation no longer qualifies."),
    /** The caller does not hold the execute capability. */
    GATE_CAPABILITY_MISSING(ErrorGroup.POLICY, "The caller does not hold the execute capability."),
    /** Safe mode is on. */
    GATE_SAFE_MODE(ErrorGroup.POLICY, "Safe mode is on."),
    // --- RUNTIME ---
    /** The pinned Node binary is missing, not absolute, not a regular file, or does not run. */
    RUNTIME_UNAVAILABLE(
            ErrorGroup.RUNTIME,
            "The pinned Node binary is missing, not absolute, not a regular file, or does not run."),
    /** The Node binary's version or digest differs from the pinned one. */
    RUNTIME_MISMATCH(ErrorGroup.RUNTIME, "The Node binary's version or digest differs from the pinned one."),
    // --- STAGING ---
    /** The artifact could not be staged privately. */
    STAGING_FAILED(ErrorGroup.STAGING, "The artifact could not be staged privately."),
    /** A staged file differs from the captured revision before spawn. */
    STAGING_TAMPERED(ErrorGroup.STAGING, "A staged file differs from the captured revision before spawn."),
    /** The staging directory was retained because cleanup was not proven. */
    STAGING_RETAINED(ErrorGroup.STAGING, "The staging directory was retained because cleanup was not proven."),
    /**
     * A data or staging directory, or a directory on its path, can be changed by another user or group;
     * nothing is kept or run there.
     */
    DATA_DIRECTORY_UNSAFE(
            ErrorGroup.STAGING,
            "A data or staging directory, or a directory on its path, can be changed by another user or group"
                    + " (OpenSSH StrictModes rule; only a root-owned sticky directory such as `/tmp` is allowed to"
                    + " be shared); nothing is kept or run there."),
    /** The data directory cannot be created or opened (an I/O fault, a file in its place); nothing ran. */
    DATA_DIRECTORY_UNUSABLE(
            ErrorGroup.STAGING,
            "The data directory cannot be created or opened (an I/O fault, a file in its place); nothing ran."),
    /** The data directory is on a file system mounted noexec: the supervisor helper cannot run from it. */
    DATA_DIRECTORY_NOEXEC(
            ErrorGroup.STAGING,
            "The data directory is on a file system mounted `noexec`, so the supervisor helper installed there"
                    + " cannot be executed; nothing ran (choose a data directory on a file system that allows"
                    + " execution)."),
    /** A staged module's bytes differed from the approved ones when Node loaded it; the run was ended. */
    STAGED_MODULE_CHANGED(
            ErrorGroup.STAGING,
            "A staged module's bytes differed from the approved ones when Node loaded it; the run was ended."),
    // --- EXECUTION ---
    /** The skill has no usable execution manifest. */
    EXECUTION_UNAVAILABLE(ErrorGroup.EXECUTION, "The skill has no usable execution manifest."),
    /** The run was aborted before the process started. */
    EXEC_ABORTED(ErrorGroup.EXECUTION, "The run was aborted before the process started."),
    /** The process could not be started. */
    EXEC_SPAWN_FAILED(ErrorGroup.EXECUTION, "The process could not be started."),
    /** The script exited with a non-zero code. */
    EXEC_NONZERO_EXIT(ErrorGroup.EXECUTION, "The script exited with a non-zero code."),
    /** The script was ended by a signal. */
    EXEC_SIGNALLED(ErrorGroup.EXECUTION, "The script was ended by a signal."),
    /** The script ran past its deadline. */
    EXEC_TIMEOUT(ErrorGroup.EXECUTION, "The script ran past its deadline."),
    /** The run was cancelled while the script ran. */
    EXEC_CANCELLED(ErrorGroup.EXECUTION, "The run was cancelled while the script ran."),
    /** stdout or stderr exceeded its bound; the tree was terminated. */
    OUTPUT_LIMIT(ErrorGroup.EXECUTION, "stdout or stderr exceeded its bound; the tree was terminated."),
    /** The script wrote invalid UTF-8. */
    OUTPUT_INVALID_UTF8(ErrorGroup.EXECUTION, "The script wrote invalid UTF-8."),
    /** The script wrote no result. */
    OUTPUT_EMPTY(ErrorGroup.EXECUTION, "The script wrote no result."),
    /** The result is not one valid JSON value. */
    OUTPUT_NOT_JSON(ErrorGroup.EXECUTION, "The result is not one valid JSON value."),
    /** The result does not satisfy outputSchema. */
    OUTPUT_SCHEMA(ErrorGroup.EXECUTION, "The result does not satisfy `outputSchema`."),
    /** The workspace is missing or not a directory. */
    WORKSPACE_UNAVAILABLE(ErrorGroup.EXECUTION, "The workspace is missing or not a directory."),
    /** The directory at the workspace's path is no longer the one consent bound; nothing was started. */
    WORKSPACE_CHANGED(
            ErrorGroup.EXECUTION,
            "The directory at the workspace's path is no longer the one consent bound; nothing was started."),
    /** A descendant detached from the script's process group; the run is rejected. */
    DETACHED_DESCENDANTS(
            ErrorGroup.EXECUTION, "A descendant detached from the script's process group; the run is rejected."),
    /** The caller's deadline passed; the outcome was delivered before the process tree settled. */
    EXEC_CALLER_DEADLINE(
            ErrorGroup.EXECUTION,
            "The caller's deadline passed; the outcome was delivered before the process tree settled."),
    /** The SkillGate instance is closed; nothing new starts. */
    ENGINE_CLOSED(ErrorGroup.EXECUTION, "The `SkillGate` instance is closed; nothing new starts."),
    /** An adapter could not complete a tool call because of an unexpected error; it failed closed. */
    TOOL_CALL_FAILED(
            ErrorGroup.EXECUTION,
            "An adapter could not complete a tool call because of an unexpected error; it failed closed."),
    // --- SUPERVISION ---
    /** No supervisor that can prove cleanup exists here, and the portable one was not chosen. */
    PROCESS_OWNERSHIP_UNSUPPORTED(
            ErrorGroup.SUPERVISION,
            "No supervisor that can prove cleanup exists here, and the portable one was not chosen."),
    /** Cleanup of the process tree could not be proven. */
    CLEANUP_UNKNOWN(ErrorGroup.SUPERVISION, "Cleanup of the process tree could not be proven."),
    /** The supervisor helper is missing or cannot run. */
    SUPERVISOR_UNAVAILABLE(ErrorGroup.SUPERVISION, "The supervisor helper is missing or cannot run."),
    /** The supervisor helper differs from the shipped one, or the process started is not the file verified. */
    SUPERVISOR_TAMPERED(
            ErrorGroup.SUPERVISION,
            "The supervisor helper differs from the shipped one, or the process started is not the file verified."),
    /** The supervisor sent a malformed or out-of-order frame. */
    SUPERVISOR_PROTOCOL(ErrorGroup.SUPERVISION, "The supervisor sent a malformed or out-of-order frame."),
    /** The supervisor helper ended abnormally. */
    SUPERVISOR_DIED(ErrorGroup.SUPERVISION, "The supervisor helper ended abnormally."),
    /** A required hardening layer is not available on this kernel. */
    HARDENING_UNAVAILABLE(ErrorGroup.SUPERVISION, "A required hardening layer is not available on this kernel."),
    /** A required part of kernel confinement (L2) is not available, or could not be set up; nothing ran. */
    CONFINEMENT_UNAVAILABLE(
            ErrorGroup.SUPERVISION,
            "A required part of kernel confinement (L2) is not available, or could not be set up; nothing ran."),
    /** The supervisor helper refused the launch request (denied environment key, relative path, bound out of range). */
    SUPERVISOR_REQUEST_REJECTED(
            ErrorGroup.SUPERVISION,
            "The supervisor helper refused the launch request (denied environment key, relative path, bound out of range)."),
    /** Several process supervisors are available and the host named none; nothing runs. */
    SUPERVISOR_AMBIGUOUS(
            ErrorGroup.SUPERVISION, "Several process supervisors are available and the host named none; nothing runs."),
    // --- AUDIT ---
    /** The audit log is disabled after corruption; trust is off until an operator repair. */
    AUDIT_DISABLED(
            ErrorGroup.AUDIT, "The audit log is disabled after corruption; trust is off until an operator repair."),
    /** A record before the commit point is damaged, missing or out of order. */
    AUDIT_CORRUPT(ErrorGroup.AUDIT, "A record before the commit point is damaged, missing or out of order."),
    /** An unconfirmed tail after the commit point was quarantined. */
    AUDIT_TAIL_QUARANTINED(ErrorGroup.AUDIT, "An unconfirmed tail after the commit point was quarantined."),
    /** Another writer holds the audit log. */
    AUDIT_LOCKED(ErrorGroup.AUDIT, "Another writer holds the audit log."),
    /** The audit log could not be written durably. */
    AUDIT_IO(ErrorGroup.AUDIT, "The audit log could not be written durably."),
    /** The log does not extend the given checkpoint (truncation or rollback). */
    AUDIT_CHECKPOINT_MISMATCH(
            ErrorGroup.AUDIT, "The log does not extend the given checkpoint (truncation or rollback)."),
    /** The checkpoint signature does not verify. */
    AUDIT_CHECKPOINT_SIGNATURE(ErrorGroup.AUDIT, "The checkpoint signature does not verify."),
    /** The audit log is still being verified after start-up; nothing is trusted until it finishes. */
    AUDIT_VERIFYING(
            ErrorGroup.AUDIT,
            "The audit log is still being verified after start-up; nothing is trusted until it finishes."),
    /** The audit directory or a file in it is writable by group or others, or owned by another user. */
    AUDIT_PERMISSIONS(
            ErrorGroup.AUDIT,
            "The audit directory or a file in it is writable by group or others, or owned by another user."),
    /** A value for an audit record is outside the canonical subset (control character, too long). */
    AUDIT_RECORD_INVALID(
            ErrorGroup.AUDIT,
            "A value for an audit record is outside the canonical subset (control character, too long)."),
    /** The checkpoint file is malformed. */
    AUDIT_CHECKPOINT_FORMAT(ErrorGroup.AUDIT, "The checkpoint file is malformed."),
    /** A repair was requested for an audit log that is not disabled. */
    AUDIT_REPAIR_NOT_NEEDED(ErrorGroup.AUDIT, "A repair was requested for an audit log that is not disabled."),
    /** An operator repair moved the disabled log aside and started a new one; earlier approvals are gone. */
    AUDIT_REPAIRED(
            ErrorGroup.AUDIT,
            "An operator repair moved the disabled log aside and started a new one; earlier approvals are gone."),
    /**
     * An audit sink failed or timed out exporting a committed record; trust is off and appends are
     * refused until the export resumes.
     */
    AUDIT_SINK_FAILED(
            ErrorGroup.AUDIT,
            "An audit sink failed or timed out exporting a committed record; trust is off and appends are refused until the export resumes."),
    /**
     * The Merkle tree root in the audit log's commit point differs from the root recomputed from the
     * committed records; the log is disabled like a broken chain.
     */
    AUDIT_TREE_MISMATCH(
            ErrorGroup.AUDIT,
            "The Merkle tree root in the audit log's commit point differs from the root recomputed from the committed records; the log is disabled like a broken chain."),
    /** An inclusion or consistency proof does not verify against the given tree heads, or is malformed. */
    AUDIT_PROOF_INVALID(
            ErrorGroup.AUDIT,
            "An inclusion or consistency proof does not verify against the given tree heads, or is malformed."),
    /** A command's output file (a key, a checkpoint, a proof) exists and replacing it was not asked for. */
    AUDIT_OUTPUT_EXISTS(
            ErrorGroup.AUDIT,
            "A command's output file (a key, a checkpoint, a proof) exists and replacing it was not asked for (`--force`)."),
    /** No trust decision exists for this scope. */
    TRUST_NOT_FOUND(ErrorGroup.AUDIT, "No trust decision exists for this scope."),
    /** The scope's trust was revoked. */
    TRUST_REVOKED(ErrorGroup.AUDIT, "The scope's trust was revoked."),
    /** A trusted-revision receipt was recorded: the local user's explicit, audited act. */
    TRUST_RECORDED(
            ErrorGroup.AUDIT, "A trusted-revision receipt was recorded: the local user's explicit, audited act."),
    // --- WORKFLOW ---
    /** The workflow store holds no workflow with this id. */
    WORKFLOW_NOT_FOUND(ErrorGroup.WORKFLOW, "The workflow store holds no workflow with this id."),
    /** The workflow store could not be read or written durably; nothing was changed. */
    WORKFLOW_STORE_IO(
            ErrorGroup.WORKFLOW, "The workflow store could not be read or written durably; nothing was changed."),
    /** A stored workflow record is damaged or out of order before the end of its file or table; it is refused, never repaired silently. */
    WORKFLOW_STORE_CORRUPT(
            ErrorGroup.WORKFLOW,
            "A stored workflow record is damaged or out of order before the end of its file or table; it is refused, never repaired silently."),
    /** A stored workflow record or database schema has a version this build does not know; it is refused, never guessed. */
    WORKFLOW_SCHEMA_UNKNOWN(
            ErrorGroup.WORKFLOW,
            "A stored workflow record or database schema has a version this build does not know; it is refused, never guessed."),
    /** A workflow record failed authentication (its ciphertext, header, id, version or owner changed); no part of it is used. */
    WORKFLOW_RECORD_TAMPERED(
            ErrorGroup.WORKFLOW,
            "A workflow record failed authentication (its ciphertext, header, id, version or owner changed); no part of it is used."),
    /** A workflow record was sealed under a key the key provider does not hold (a wrong key); no part of it is used. */
    WORKFLOW_KEY_MISMATCH(
            ErrorGroup.WORKFLOW,
            "A workflow record was sealed under a key the key provider does not hold (a wrong key); no part of it is used."),
    /** The key provider cannot supply a key (missing or unsafe key file, provider failure); nothing is sealed or opened. */
    WORKFLOW_KEY_UNAVAILABLE(
            ErrorGroup.WORKFLOW,
            "The key provider cannot supply a key (missing or unsafe key file, provider failure); nothing is sealed or opened."),
    /** A write carried a stale fencing token: another owner took the workflow over; the write was rejected. */
    WORKFLOW_FENCED(
            ErrorGroup.WORKFLOW,
            "A write carried a stale fencing token: another owner took the workflow over; the write was rejected."),
    /** A takeover was refused: the owner's lease is live or its process is not proven dead. */
    WORKFLOW_OWNER_ALIVE(
            ErrorGroup.WORKFLOW,
            "A takeover was refused: the owner's lease is live or its process is not proven dead."),
    /** The workflow already holds the most records it may retain; nothing was appended. */
    WORKFLOW_RECORD_LIMIT(
            ErrorGroup.WORKFLOW, "The workflow already holds the most records it may retain; nothing was appended."),
    /** A step's effect is unknown (an interrupted write or unproven cleanup); an explicit operator decision is needed, it is never replayed. */
    WORKFLOW_STEP_UNKNOWN(
            ErrorGroup.WORKFLOW,
            "A step's effect is unknown (an interrupted write or unproven cleanup); an explicit operator decision is needed, it is never replayed."),
    /** The workflow has ended; nothing more is appended to it. */
    WORKFLOW_TERMINAL(ErrorGroup.WORKFLOW, "The workflow has ended; nothing more is appended to it."),
    /** The request does not fit the workflow (no such step, a step already settled, a decision for a known step). */
    WORKFLOW_INVALID(
            ErrorGroup.WORKFLOW,
            "The request does not fit the workflow (no such step, a step already settled, a decision for a known step)."),
    // --- PROJECT ---
    /** The project has no package.json (or it is a link, a directory or a special file). */
    PROJECT_MANIFEST_MISSING(
            ErrorGroup.PROJECT, "The project has no `package.json` (or it is a link, a directory or a special file)."),
    /** package.json is not one strict JSON object (duplicate keys, bad UTF-8, over its bound), or its scripts is not an object of strings. */
    PROJECT_MANIFEST_INVALID(
            ErrorGroup.PROJECT,
            "`package.json` is not one strict JSON object (duplicate keys, bad UTF-8, over its bound), or its `scripts` is not an object of strings."),
    /** The selected script is not in package.json's scripts. */
    PROJECT_SCRIPT_NOT_FOUND(ErrorGroup.PROJECT, "The selected script is not in `package.json`'s `scripts`."),
    /** The script is not one of the supported test or build forms (an arbitrary command, an unknown option, a wrong token count). */
    PROJECT_SCRIPT_UNSUPPORTED(
            ErrorGroup.PROJECT,
            "The script is not one of the supported test or build forms (an arbitrary command, an unknown option, a wrong token count)."),
    /** The script runs npm, yarn, pnpm or corepack (npm run recursion included); package managers never run. */
    PROJECT_SCRIPT_NPM(
            ErrorGroup.PROJECT,
            "The script runs `npm`, `yarn`, `pnpm` or `corepack` (`npm run` recursion included); package managers never run."),
    /** The script runs npx; nothing is downloaded or resolved through a package runner. */
    PROJECT_SCRIPT_NPX(
            ErrorGroup.PROJECT, "The script runs `npx`; nothing is downloaded or resolved through a package runner."),
    /** The script chains commands (&amp;&amp;, ||, ;, |, &amp;, a newline); only one command is supported. */
    PROJECT_SCRIPT_CHAINING(
            ErrorGroup.PROJECT,
            "The script chains commands (`&&`, `||`, `;`, `|`, `&`, a newline); only one command is supported."),
    /** The script starts with an environment assignment (NAME=value); the environment is fixed. */
    PROJECT_SCRIPT_ASSIGNMENT(
            ErrorGroup.PROJECT,
            "The script starts with an environment assignment (`NAME=value`); the environment is fixed."),
    /** The script holds a glob (&amp;#42;, ?, [, ], {, }); only exact paths are supported. */
    PROJECT_SCRIPT_GLOB(
            ErrorGroup.PROJECT,
            "The script holds a glob (`*`, `?`, `[`, `]`, `{`, `}`); only exact paths are supported."),
    /** The script holds quotes, expansions, redirections, escapes, non-ASCII or irregular spacing; no shell ever interprets it. */
    PROJECT_SCRIPT_SHELL(
            ErrorGroup.PROJECT,
            "The script holds quotes, expansions, redirections, escapes, non-ASCII or irregular spacing; no shell ever interprets it."),
    /** The script asks for a watch, serve or inspector mode; only finite runs are supported. */
    PROJECT_SCRIPT_WATCH(
            ErrorGroup.PROJECT,
            "The script asks for a watch, serve or inspector mode; only finite runs are supported."),
    /** The script installs, executes, publishes or rebuilds packages; no install ever runs. */
    PROJECT_SCRIPT_INSTALL(
            ErrorGroup.PROJECT, "The script installs, executes, publishes or rebuilds packages; no install ever runs."),
    /** A path in the script is absolute, traverses, starts with a dash, has the wrong suffix or is not an inspected regular file of the project. */
    PROJECT_SCRIPT_PATH(
            ErrorGroup.PROJECT,
            "A path in the script is absolute, traverses, starts with a dash, has the wrong suffix or is not an inspected regular file of the project."),
    /** The selected script has a pre/post hook; hooks never run, so the script is refused rather than run differently from npm. */
    PROJECT_LIFECYCLE_HOOK(
            ErrorGroup.PROJECT,
            "The selected script has a `pre`/`post` hook; hooks never run, so the script is refused rather than run differently from npm."),
    /** The selected steps are not one test or build script, or a build followed by a test. */
    PROJECT_SEQUENCE_UNSUPPORTED(
            ErrorGroup.PROJECT, "The selected steps are not one test or build script, or a build followed by a test."),
    /** package-lock.json is not a strict JSON lockfile of version 2 or 3. */
    PROJECT_LOCKFILE_INVALID(
            ErrorGroup.PROJECT, "`package-lock.json` is not a strict JSON lockfile of version 2 or 3."),
    /** The installed dependency tree does not match the lockfile (a package missing from it, another version, or a tree without a lockfile). */
    PROJECT_LOCKFILE_MISMATCH(
            ErrorGroup.PROJECT,
            "The installed dependency tree does not match the lockfile (a package missing from it, another version, or a tree without a lockfile)."),
    /** A symbolic link in the project's sources; links are never followed or staged. */
    PROJECT_LINK(ErrorGroup.PROJECT, "A symbolic link in the project's sources; links are never followed or staged."),
    /** A node_modules/.bin entry is not a link that resolves to a regular file inside the snapshot. */
    PROJECT_BIN_LINK_ESCAPES(
            ErrorGroup.PROJECT,
            "A `node_modules/.bin` entry is not a link that resolves to a regular file inside the snapshot."),
    /** A package root under node_modules is a link (to a folder outside the project, a workspace or a global install). */
    PROJECT_FOREIGN_PACKAGE_ROOT(
            ErrorGroup.PROJECT,
            "A package root under `node_modules` is a link (to a folder outside the project, a workspace or a global install)."),
    /** A FIFO, socket or device in the project; only regular files and directories are captured. */
    PROJECT_SPECIAL_FILE(
            ErrorGroup.PROJECT,
            "A FIFO, socket or device in the project; only regular files and directories are captured."),
    /** More than 2,000 source files, or a source file over 2 MiB. */
    PROJECT_SOURCE_LIMIT(ErrorGroup.PROJECT, "More than 2,000 source files, or a source file over 2 MiB."),
    /** More than 512 dependency files, or a dependency file over 16 MiB. */
    PROJECT_DEPENDENCY_LIMIT(ErrorGroup.PROJECT, "More than 512 dependency files, or a dependency file over 16 MiB."),
    /** The sources and dependencies together exceed 64 MiB. */
    PROJECT_SNAPSHOT_LIMIT(ErrorGroup.PROJECT, "The sources and dependencies together exceed 64 MiB."),
    /** A tsconfig the build names is not a strict JSON object, extends another file, or its outDir is not the declared output directory. */
    PROJECT_TSCONFIG_INVALID(
            ErrorGroup.PROJECT,
            "A `tsconfig` the build names is not a strict JSON object, extends another file, or its `outDir` is not the declared output directory."),
    /** A tsc build names no installed typescript package with its bin/tsc entrypoint in the dependency tree. */
    PROJECT_TYPESCRIPT_MISSING(
            ErrorGroup.PROJECT,
            "A `tsc` build names no installed `typescript` package with its `bin/tsc` entrypoint in the dependency tree."),
    /** The declared output directory is invalid, or after the build it holds a link, a special file, too much, or lacks a test the next step names; the test did not run. */
    PROJECT_OUTPUT_INVALID(
            ErrorGroup.PROJECT,
            "The declared output directory is invalid, or after the build it holds a link, a special file, too much, or lacks a test the next step names; the test did not run."),
    /** A source, the lockfile, a config, the dependency tree or the toolchain changed since approval; nothing ran. */
    PROJECT_INPUT_CHANGED(
            ErrorGroup.PROJECT,
            "A source, the lockfile, a config, the dependency tree or the toolchain changed since approval; nothing ran."),
    // --- CLI ---
    /** The command line is malformed. */
    USAGE(ErrorGroup.CLI, "The command line is malformed.");

    private final ErrorGroup group;
    private final String summary;

    ErrorCode(ErrorGroup group, String summary) {
        this.group = group;
        this.summary = summary;
    }

    /** The family this code belongs to. */
    public ErrorGroup group() {
        return group;
    }

    /** A one-line, input-free explanation (Markdown); never contains caller data. */
    public String summary() {
        return summary;
    }

    /** The hyphenated rule id used by the Agent Skills conformance cases, e.g. {@code NAME-LOWERCASE}. */
    public String ruleId() {
        return name().replace('_', '-');
    }

    /**
     * Looks a code up by its name or its hyphenated rule id.
     *
     * @return the code, or empty when no code has that name
     */
    public static Optional<ErrorCode> find(String nameOrRuleId) {
        String key = nameOrRuleId.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (ErrorCode code : values()) {
            if (code.name().equals(key)) {
                return Optional.of(code);
            }
        }
        return Optional.empty();
    }
}
