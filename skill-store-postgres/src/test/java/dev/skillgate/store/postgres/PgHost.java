package dev.skillgate.store.postgres;

import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.workflow.InstanceId;
import dev.skillgate.workflow.KeyProvider;
import dev.skillgate.workflow.Recovery;
import dev.skillgate.workflow.StepView;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowJournal;
import dev.skillgate.workflow.WorkflowResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A real host JVM for the multi-instance tests: its own data directory (audit log, staging), the
 * shared PostgreSQL policy store, workflow store and audit sink, a shared workflow key file, a real
 * {@code SkillGate} with the Linux supervisor and {@code node}. Driven by one command per line on
 * stdin; answers one line per command on stdout.
 *
 * <p>Arguments: jdbc-url data-dir key-file instance host-id(or "-") skills-dir workspace lease-ms.
 */
public final class PgHost {
    private PgHost() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(args[0]);
        Path dataDir = Path.of(args[1]);
        KeyProvider sharedKeyProvider = KeyProvider.keyFile(Path.of(args[2]));
        String instance = args[3];
        Duration lease = Duration.ofMillis(Long.parseLong(args[7]));
        // snippet:begin workflow-journal
        WorkflowJournal.Builder journal = WorkflowJournal.builder(
                        new PostgresWorkflowStore(dataSource), // or WorkflowStore.embedded(dir)
                        sharedKeyProvider) // or KeyProvider.keyFile(path)
                .instance(InstanceId.of(instance)) // who owns what it starts
                .lease(lease); // renewed by a daemon thread while the owner runs
        // snippet:end workflow-journal
        if (!args[4].equals("-")) {
            journal.hostId(args[4]); // another machine's name, for the proof-of-death tests
        }
        // snippet:begin postgres-admin
        PostgresSchema.migrate(dataSource); // once at start-up: the documented call
        SkillGateAdmin admin = SkillGateAdmin.open(
                dataDir,
                new PostgresPolicyStore(dataSource), // shared policy
                AuditLogOptions.builder(SkillGateAdmin.auditDirectory(dataDir))
                        .sink(new PostgresAuditSink(dataSource, instance)) // every instance's log, one table
                        .build(),
                journal.build()); // shared workflows
        // snippet:end postgres-admin
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        Path node = dev.skillgate.fixtures.TestNodeBinary.require();
        Process v = new ProcessBuilder(node.toString(), "--version")
                .redirectErrorStream(true)
                .start();
        String version = new String(v.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        v.waitFor();
        SkillGate gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(Path.of(args[5]))
                .nodeRuntime(NodeRuntime.pinned(node, version))
                .approvalChannel(channel)
                .build();
        Path workspace = Path.of(args[6]);
        AgentId agent = AgentId.of("agent-1");
        out.println("ready " + ProcessHandle.current().pid());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] c = line.split(" ");
            try {
                switch (c[0]) {
                    case "policy" -> {
                        var r = admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.valueOf(c[1])));
                        out.println(r.isSuccess() ? "ok" : "err " + r.code().orElseThrow());
                    }
                    case "approve" -> {
                        Revision rev = gate.inspect("hello-world").revision().orElseThrow();
                        List<PlannedStep> steps = new ArrayList<>();
                        for (int i = 0; i < Integer.parseInt(c[2]); i++) {
                            steps.add(new PlannedStep(SkillName.of("hello-world"), rev, Optional.empty()));
                        }
                        channel.approveNext();
                        ConsentResult<PlanSnapshot> r =
                                admin.approveWorkflow(RunId.of(c[1]), agent, workspace, steps, channel);
                        if (r.isSuccess()) {
                            WorkflowId id = admin.listWorkflows().orElseThrow().stream()
                                    .filter(w -> !w.ended() && admin.workflows().owns(w.id()))
                                    .reduce((a, b) -> b.createdAt().isAfter(a.createdAt()) ? b : a)
                                    .orElseThrow()
                                    .id();
                            out.println("ok " + id);
                        } else {
                            out.println("err " + r.code().orElseThrow());
                        }
                    }
                    case "exec" -> {
                        ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                                RunId.of(c[1]), agent, "hello-world", "{\"name\":\"" + c[2] + "\"}", workspace));
                        out.println("env " + env.status() + " "
                                + env.errorCodes().stream().map(Enum::name).collect(Collectors.joining(",")));
                    }
                    case "takeover" -> {
                        WorkflowResult<Recovery> r = admin.takeOverWorkflow(WorkflowId.parse(c[1]));
                        out.println(
                                r.isSuccess()
                                        ? "ok " + r.value().get().head().fencingToken() + " "
                                                + states(r.value().get())
                                        : "err " + r.code().orElseThrow());
                    }
                    case "recover" -> {
                        WorkflowResult<Recovery> r = admin.recoverWorkflow(WorkflowId.parse(c[1]));
                        out.println(
                                r.isSuccess()
                                        ? "ok " + states(r.value().get())
                                        : "err " + r.code().orElseThrow());
                    }
                    case "resume" -> {
                        int before = channel.workflowRequests().size();
                        channel.approveNext();
                        ConsentResult<PlanSnapshot> r = admin.resumeWorkflow(WorkflowId.parse(c[1]), channel);
                        int asked = channel.workflowRequests().size() - before;
                        out.println(
                                r.isSuccess()
                                        ? "asked " + asked + " steps "
                                                + channel.workflowRequests()
                                                        .get(before)
                                                        .plan()
                                                        .steps()
                                                        .size()
                                        : "err " + r.code().orElseThrow() + " asked " + asked);
                    }
                    case "quit" -> {
                        gate.close();
                        admin.close();
                        out.println("bye");
                        return;
                    }
                    default -> out.println("err UNKNOWN_COMMAND");
                }
            } catch (RuntimeException e) {
                out.println("err EXCEPTION " + e);
            }
        }
    }

    private static String states(Recovery r) {
        return r.steps().stream().map(StepView::state).map(Enum::name).collect(Collectors.joining(","))
                + (r.ended().isPresent() ? " ended " + r.ended().get() : "");
    }
}
