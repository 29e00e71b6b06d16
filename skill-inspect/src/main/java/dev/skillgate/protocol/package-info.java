/**
 * The bounded JSON protocol (SPEC §4, §6): the execution manifest parser, the schema gate that
 * admits only an exactly-enforced subset of JSON Schema 2020-12, and strict validation of
 * invocations and results.
 *
 * <p>Entry points: {@link dev.skillgate.protocol.ManifestParser} (bytes of {@code execution.json}
 * to a {@link dev.skillgate.protocol.ManifestVerdict}), {@link dev.skillgate.protocol.SchemaGate}
 * (schema text to a {@link dev.skillgate.protocol.CompiledSchema} or named rejections), and the
 * compiled schema's {@code checkInvocation}/{@code checkResult}, which take raw bytes and return a
 * {@link dev.skillgate.protocol.Validation}. Expected outcomes are values with stable
 * {@link dev.skillgate.model.ErrorCode}s and JSON pointers; nothing here throws for bad input.
 *
 * <p>What this does not do: it reads no files (the bounded reader supplies the bytes), runs
 * nothing, and grants nothing. A valid invocation still needs consent; a valid result says only
 * that the script's output matched its declared schema. Nothing here is a sandbox.
 */
package dev.skillgate.protocol;
