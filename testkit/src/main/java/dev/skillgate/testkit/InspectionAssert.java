package dev.skillgate.testkit;

import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SignatureVerdict;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import java.util.ArrayList;
import java.util.List;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/** AssertJ assertions for an {@link Inspection} (what {@code SkillGate.inspect} reports). */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class InspectionAssert extends AbstractAssert<InspectionAssert, Inspection> {

    InspectionAssert(Inspection actual) {
        super(actual, InspectionAssert.class);
    }

    /** Every diagnostic of every verdict, for failure messages and code searches. */
    private List<Diagnostic> all() {
        List<Diagnostic> out = new ArrayList<>(actual.format().diagnostics());
        actual.captureProblem().ifPresent(out::add);
        actual.manifest().ifPresent(m -> out.addAll(m.reasons()));
        out.addAll(actual.inputSchema().problems());
        out.addAll(actual.outputSchema().problems());
        out.addAll(actual.executionReasons());
        actual.contract().ifPresent(c -> out.addAll(c.problems()));
        out.addAll(actual.contractCheck());
        if (actual.signature() instanceof SignatureVerdict.Rejected r) {
            out.add(r.diagnostic());
        }
        return out;
    }

    /** Nothing was refused ({@link Inspection#passes()}). */
    public InspectionAssert passes() {
        isNotNull();
        if (!actual.passes()) {
            failWithMessage("Expected the inspection to pass but found %s", all());
        }
        return this;
    }

    /** Something was refused. */
    public InspectionAssert doesNotPass() {
        isNotNull();
        if (actual.passes()) {
            failWithMessage("Expected the inspection to refuse something but it passed");
        }
        return this;
    }

    /** The skill's script could be offered for execution. */
    public InspectionAssert isExecutable() {
        isNotNull();
        if (!actual.executionAvailable()) {
            failWithMessage("Expected execution to be available but: %s", actual.executionReasons());
        }
        return this;
    }

    /** The skill is prompt material only (no usable manifest), for the reasons given. */
    public InspectionAssert isNotExecutable() {
        isNotNull();
        if (actual.executionAvailable()) {
            failWithMessage("Expected execution to be unavailable but it is available");
        }
        return this;
    }

    /** It is portable (the Agent Skills standard read literally). */
    public InspectionAssert isPortable() {
        isNotNull();
        if (!actual.format().portable()) {
            failWithMessage("Expected a portable skill but: %s", actual.format().portableErrors());
        }
        return this;
    }

    /** It has an accepted trust contract. */
    public InspectionAssert hasAcceptedContract() {
        isNotNull();
        if (actual.contract().isEmpty() || !(actual.contract().get() instanceof ContractVerdict.Accepted)) {
            failWithMessage("Expected an accepted contract but got %s", actual.contract());
        }
        return this;
    }

    /** Some verdict reports {@code code}. */
    public InspectionAssert hasDiagnostic(ErrorCode code) {
        isNotNull();
        if (all().stream().noneMatch(d -> d.code() == code)) {
            failWithMessage("Expected a diagnostic %s but found %s", code, all());
        }
        return this;
    }

    /** The captured revision is {@code revision}. */
    public InspectionAssert hasRevision(Revision revision) {
        isNotNull();
        if (!actual.revision().map(revision::equals).orElse(false)) {
            failWithMessage("Expected revision %s but got %s", revision, actual.revision());
        }
        return this;
    }
}
