package dev.skillgate.testkit.builtin;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.testkit.contract.AbstractApprovalChannelContractTest;

/** The approval-channel TCK against the scripted channel the testkit uses (in its holding mode). */
// snippet:begin approval-channel-contract (docs/testkit.md)
class ScriptedApprovalChannelContractTest extends AbstractApprovalChannelContractTest {
    @Override
    protected HumanAtTheChannel openChannel() {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        return new HumanAtTheChannel() {
            @Override
            public ApprovalChannel channel() {
                return channel;
            }

            @Override
            public void approveNext() {
                channel.approveNext();
            }

            @Override
            public void denyNext() {
                channel.denyNext("declined by the contract test");
            }

            @Override
            public void closeChannel() {
                channel.close();
            }
        };
    }
}
// snippet:end approval-channel-contract
