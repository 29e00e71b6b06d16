package dev.skillgate.project;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes small real projects into temporary directories for the tests. */
final class Projects {
    private Projects() {}

    /** Writes {@code files} (relative path to text) under {@code dir} and returns {@code dir}. */
    static Path write(Path dir, Map<String, String> files) {
        try {
            for (Map.Entry<String, String> e : files.entrySet()) {
                Path p = dir.resolve(e.getKey());
                Files.createDirectories(p.getParent());
                Files.writeString(p, e.getValue(), StandardCharsets.UTF_8);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A package.json with these scripts (name, text pairs). */
    static String packageJson(String... scripts) {
        StringBuilder b = new StringBuilder("{\n  \"name\": \"fixture\",\n  \"version\": \"1.0.0\",\n  \"scripts\": {");
        for (int i = 0; i < scripts.length; i += 2) {
            b.append(i == 0 ? "\n" : ",\n")
                    .append("    \"")
                    .append(scripts[i])
                    .append("\": \"")
                    .append(scripts[i + 1].replace("\\", "\\\\").replace("\"", "\\\""))
                    .append('"');
        }
        return b.append("\n  }\n}\n").toString();
    }

    /** A lockfile v3 listing {@code packages} (path to version). */
    static String lockfile(Map<String, String> packages) {
        StringBuilder b = new StringBuilder(
                "{\n  \"name\": \"fixture\",\n  \"version\": \"1.0.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n    \"\": {\"name\": \"fixture\", \"version\": \"1.0.0\"}");
        for (Map.Entry<String, String> e : packages.entrySet()) {
            b.append(",\n    \"")
                    .append(e.getKey())
                    .append("\": {\"version\": \"")
                    .append(e.getValue())
                    .append("\"}");
        }
        return b.append("\n  }\n}\n").toString();
    }

    /** The JavaScript fixture: a passing and a failing test file, a build entry and a helper module. */
    static Map<String, String> javascript(String testScript) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("package.json", packageJson("test", testScript, "build", "node build.js", "lint", "eslint ."));
        files.put("package-lock.json", lockfile(Map.of()));
        files.put("src/math.js", "exports.add = (a, b) => a + b;\n");
        files.put(
                "test/math.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/math.js');\n"
                        + "test('adds', () => { assert.strictEqual(add(2, 3), 5); });\n"
                        + "test('adds negatives', () => { assert.strictEqual(add(-2, -3), -5); });\n");
        files.put(
                "test/fail.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\n"
                        + "test('is wrong on purpose', () => { assert.strictEqual(1 + 1, 3); });\n");
        files.put("build.js", "console.log('built');\n");
        return files;
    }
}
