package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 18: the operator actions the messages ask for had no command. {@code skillgate audit repair}
 * ends a disabled log with the audited repair; {@code skillgate trust add} is the local user's
 * explicit, audited act of trusting one exact revision, after which {@code run} is authorised by the
 * receipt and nobody is asked (decision 0640). Both failed before (unknown subcommand).
 */
@EnabledOnOs(OS.LINUX)
class OperatorActionsCommandTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private String out = "";
    private String err = "";

    private int run(String stdin, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code = Main.run(
                args,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8));
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return code;
    }

    private Path hello() throws IOException {
        Path source = Path.of("..", "examples", "skills", "hello-world");
        Path target = Files.createDirectories(tmp.resolve("skills/hello-world"));
        try (Stream<Path> files = Files.walk(source)) {
            for (Path f : files.toList()) {
                Path to = target.resolve(source.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        return target;
    }

    @Test
    void trustAddShowsTheRequestRecordsAReceiptAndRunIsNotAsked() throws IOException {
        Path skill = hello();
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path workspace = Files.createDirectories(tmp.resolve("ws"));
        assertThat(run(
                        "no\n",
                        "trust",
                        "add",
                        skill.toString(),
                        "--data-dir",
                        data.toString(),
                        "--workspace",
                        workspace.toString()))
                .isEqualTo(3);
        assertThat(out)
                .contains("revision: sha256:")
                .contains("scripts/hello.mjs")
                .contains("not a sandbox");
        assertThat(err).contains("CONSENT_DENIED");

        assertThat(run(
                        "yes\n",
                        "trust",
                        "add",
                        skill.toString(),
                        "--data-dir",
                        data.toString(),
                        "--workspace",
                        workspace.toString(),
                        "--json"))
                .as(err)
                .isZero();
        JsonNode doc = JSON.readTree(out);
        assertThat(doc.get("schema").asString()).isEqualTo("skillgate.trust-add/1");
        assertThat(doc.get("trusted").asBoolean()).isTrue();
        assertThat(err).contains("Trust this exact revision");

        assertThat(run("", "trust", "list", "--data-dir", data.toString())).isZero();
        assertThat(out).contains("TRUSTED");

        // Standard input is empty: only the receipt can authorise this run.
        assertThat(run(
                        "",
                        "run",
                        skill.toString(),
                        "--node",
                        TestNodeBinary.require().toString(),
                        "--input",
                        "{\"name\":\"Ada\"}",
                        "--data-dir",
                        data.toString(),
                        "--workspace",
                        workspace.toString()))
                .as(err)
                .isZero();
        assertThat(out)
                .contains("authorised by a trusted-revision receipt, not asked")
                .contains("status: SUCCEEDED");
        assertThat(ConsoleApprovalChannel.class).isNotNull();
    }

    @Test
    void auditRepairEndsADisabledLog() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path audit = data.resolve("audit");
        assertThat(run("", "audit", "repair", "--data-dir", data.toString(), "--reason", "test"))
                .isEqualTo(1);
        PromptSkillScope scope = new PromptSkillScope(
                AgentId.of("claude-code"),
                SkillName.of("pdf-fill"),
                Optional.empty(),
                Revision.parse(Sha256Digest.hash("rev".getBytes(StandardCharsets.UTF_8))
                        .toString()));
        try (AuditLog log = AuditLog.open(audit)) {
            assertThat(log.approve(scope).isCommitted()).isTrue();
            assertThat(log.revoke(scope).isCommitted()).isTrue();
        }
        assertThat(run("", "audit", "repair", "--data-dir", data.toString(), "--reason", "test", "--json"))
                .isEqualTo(1);
        assertThat(JSON.readTree(out).get("diagnostics").get(0).get("code").asString())
                .isEqualTo("AUDIT_REPAIR_NOT_NEEDED");
        Path file = audit.resolve("audit.log");
        byte[] bytes = Files.readAllBytes(file);
        int second = 32 + 49 + java.nio.ByteBuffer.wrap(bytes, 32, 4).getInt();
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(second + 30);
            f.write(bytes[second + 30] ^ 4);
        }
        assertThat(run("", "audit", "verify", "--data-dir", data.toString())).isEqualTo(1);
        assertThat(run("", "audit", "repair", "--data-dir", data.toString())).isEqualTo(2);
        assertThat(run("", "audit", "repair", "--data-dir", data.toString(), "--reason", "disk fault after a crash"))
                .as(err)
                .isZero();
        assertThat(out).contains("repaired").contains("every earlier approval is gone");
        assertThat(run("", "audit", "verify", "--data-dir", data.toString()))
                .as(out + err)
                .isZero();
        assertThat(run("", "audit", "list", "--data-dir", data.toString())).isZero();
        assertThat(out).contains("repair").contains("disk fault after a crash");
    }
}
