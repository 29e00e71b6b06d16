package dev.skillgate.consent.internal;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySnapshot;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.model.ErrorCode;
import java.util.Arrays;

/**
 * Fuzzes the policy file decoder: any bytes decode to complete valid settings or to an unusable
 * load with {@link ErrorCode#POLICY_CORRUPT} and an effective policy of {@code BLOCKED} — never an
 * exception. Accepted settings re-encode to bytes that decode equal and encode identically; the
 * update parser likewise never throws.
 */
class PolicyFileFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void anyBytesDecodeToValidSettingsOrBlocked(byte[] input) {
        PolicyLoad load = PolicyCodec.decode(input);
        if (load.status() == PolicyLoad.Status.UNUSABLE) {
            if (load.problem().get().code() != ErrorCode.POLICY_CORRUPT) {
                throw new AssertionError(
                        "unexpected code " + load.problem().get().code());
            }
            if (PolicySnapshot.of(load).mode() != ExecutionPolicy.BLOCKED) {
                throw new AssertionError("a corrupt policy must be BLOCKED");
            }
        } else {
            if (load.status() != PolicyLoad.Status.FOUND) {
                throw new AssertionError("decode never reports ABSENT");
            }
            byte[] encoded = PolicyCodec.encode(load.settings());
            PolicyLoad again = PolicyCodec.decode(encoded);
            if (again.status() != PolicyLoad.Status.FOUND || !again.settings().equals(load.settings())) {
                throw new AssertionError("re-encoded settings did not decode equal");
            }
            if (!Arrays.equals(PolicyCodec.encode(again.settings()), encoded)) {
                throw new AssertionError("encoding is not deterministic");
            }
        }
        ConsentResult<PolicyUpdate> update = PolicyCodec.decodeUpdate(input);
        if (!update.isSuccess()
                && update.code().get() != ErrorCode.POLICY_INVALID
                && update.code().get() != ErrorCode.POLICY_SCOPE_LIMIT) {
            throw new AssertionError("unexpected update code " + update.code());
        }
        if (load.status() == PolicyLoad.Status.FOUND && !update.isSuccess()) {
            throw new AssertionError("a valid policy file is a valid update");
        }
    }
}
