package dev.skillgate.engine.internal;

import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.shared.Text;
import dev.skillgate.runner.PortableSupervisor;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.SupervisorCapabilities;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The selection rules of {@link SupervisorSelection}, as a pure function of the candidates. */
public final class SupervisorSelector {
    private SupervisorSelector() {}

    /**
     * The chosen supervisor (internal only: it can launch processes) and the report about it.
     *
     * @param supervisor the supervisor, empty when executions are refused
     * @param report what hosts and agents may see
     */
    public record Choice(Optional<ProcessSupervisor> supervisor, SupervisorSelection report) {}

    /**
     * Chooses a supervisor.
     *
     * @param explicit a supervisor the host set on the builder
     * @param named a supervisor name the host asked for
     * @param allowUnproven whether the host opted in to unproven cleanup
     * @param candidates the built-in supervisors and the ServiceLoader providers, in that order
     */
    public static Choice select(
            Optional<ProcessSupervisor> explicit,
            Optional<String> named,
            boolean allowUnproven,
            List<ProcessSupervisor> candidates) {
        if (explicit.isPresent()) {
            return admit(explicit.get(), allowUnproven, "set explicitly by the host");
        }
        if (named.isPresent()) {
            String name = named.get();
            List<ProcessSupervisor> matching = new ArrayList<>();
            for (ProcessSupervisor c : candidates) {
                if (c.name().equals(name)) {
                    matching.add(c);
                }
            }
            if (matching.isEmpty() && name.equals("portable")) {
                matching.add(PortableSupervisor.create());
            }
            if (matching.size() > 1) {
                return refused(
                        ErrorCode.SUPERVISOR_AMBIGUOUS,
                        "several supervisors are named '" + Text.excerpt(name) + "'; nothing runs");
            }
            if (matching.isEmpty()) {
                return refused(
                        ErrorCode.SUPERVISOR_UNAVAILABLE,
                        "no supervisor named '" + Text.excerpt(name) + "' is installed");
            }
            return admit(matching.get(0), allowUnproven, "named by the host");
        }
        List<ProcessSupervisor> proving = new ArrayList<>();
        for (ProcessSupervisor c : candidates) {
            SupervisorCapabilities caps = safeCapabilities(c);
            if (tampered(caps)) {
                // Someone changed a supervisor's files: an attack in progress, never a reason to fall
                // back to another supervisor (decision 0503).
                return refused(ErrorCode.SUPERVISOR_TAMPERED, tamperedMessage(c, caps));
            }
            if (caps.available() && caps.provesCleanup()) {
                proving.add(c);
            }
        }
        if (proving.size() > 1) {
            return refused(
                    ErrorCode.SUPERVISOR_AMBIGUOUS,
                    "several supervisors that prove cleanup are installed ("
                            + Text.excerpt(proving.stream()
                                    .map(ProcessSupervisor::name)
                                    .collect(Collectors.joining(", ")))
                            + ") and the host named none; nothing runs");
        }
        if (proving.size() == 1) {
            return chosen(proving.get(0), allowUnproven, "the only available supervisor that proves cleanup");
        }
        if (allowUnproven) {
            return chosen(
                    PortableSupervisor.create(),
                    true,
                    "no supervisor here proves cleanup; the host opted in to the portable one (runs end"
                            + " CLEANUP_UNKNOWN, never SUCCEEDED)");
        }
        return refused(
                ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED,
                "no supervisor that proves cleanup is available here and the host did not opt in to unproven"
                        + " cleanup");
    }

    private static Choice admit(ProcessSupervisor s, boolean allowUnproven, String why) {
        SupervisorCapabilities caps = safeCapabilities(s);
        if (!caps.available()) {
            if (tampered(caps)) {
                return refused(ErrorCode.SUPERVISOR_TAMPERED, tamperedMessage(s, caps));
            }
            return refused(
                    ErrorCode.SUPERVISOR_UNAVAILABLE,
                    "supervisor '" + Text.excerpt(s.name()) + "' cannot run here: " + Text.excerpt(caps.detail()));
        }
        if (!caps.provesCleanup() && !allowUnproven) {
            return refused(
                    ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED,
                    "supervisor '" + Text.excerpt(s.name())
                            + "' cannot prove cleanup and the host did not opt in to unproven cleanup");
        }
        return chosen(s, allowUnproven, why);
    }

    private static Choice chosen(ProcessSupervisor s, boolean allowUnproven, String why) {
        SupervisorCapabilities caps = safeCapabilities(s);
        return new Choice(
                Optional.of(s),
                new SupervisorSelection(
                        s.name(),
                        true,
                        caps.provesCleanup(),
                        caps.hardening(),
                        allowUnproven,
                        List.of(),
                        why,
                        caps.confinement()));
    }

    private static String tamperedMessage(ProcessSupervisor s, SupervisorCapabilities caps) {
        String why = caps.detail()
                .substring(ErrorCode.SUPERVISOR_TAMPERED.name().length() + 1)
                .strip();
        return "supervisor '" + Text.excerpt(s.name()) + "' was tampered with (" + Text.sanitize(why, 160)
                + "); nothing runs";
    }

    /** An unavailable supervisor whose detail names {@code SUPERVISOR_TAMPERED} (the SPI's detail convention). */
    static boolean tampered(SupervisorCapabilities caps) {
        return !caps.available() && caps.detail().startsWith(ErrorCode.SUPERVISOR_TAMPERED.name() + ":");
    }

    private static SupervisorCapabilities safeCapabilities(ProcessSupervisor s) {
        try {
            SupervisorCapabilities caps = s.capabilities();
            return caps == null ? SupervisorCapabilities.unavailable("no capabilities reported") : caps;
        } catch (RuntimeException e) {
            return SupervisorCapabilities.unavailable(
                    "capabilities failed: " + e.getClass().getSimpleName());
        }
    }

    private static Choice refused(ErrorCode code, String message) {
        return new Choice(
                Optional.empty(),
                new SupervisorSelection(
                        "none",
                        false,
                        false,
                        HardeningLayer.NONE,
                        false,
                        List.of(Diagnostic.error(code, "", message)),
                        message));
    }
}
