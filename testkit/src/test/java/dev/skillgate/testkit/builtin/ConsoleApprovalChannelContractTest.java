package dev.skillgate.testkit.builtin;

import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.testkit.contract.AbstractApprovalChannelContractTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedReader;
import java.io.PipedWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The approval-channel TCK against the console channel: the human types into a pipe, and what the
 * console printed is the text the human saw.
 */
class ConsoleApprovalChannelContractTest extends AbstractApprovalChannelContractTest {
    @Override
    protected HumanAtTheChannel openChannel() throws IOException {
        PipedWriter keyboard = new PipedWriter();
        PipedReader input = new PipedReader(keyboard, 4096);
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(screen, true, StandardCharsets.UTF_8);
        ConsoleApprovalChannel channel = new ConsoleApprovalChannel(out, input);
        return new HumanAtTheChannel() {
            @Override
            public ApprovalChannel channel() {
                return channel;
            }

            @Override
            public void approveNext() throws IOException {
                keyboard.write("y\n");
                keyboard.flush();
            }

            @Override
            public void denyNext() throws IOException {
                keyboard.write("n\n");
                keyboard.flush();
            }

            @Override
            public void closeChannel() {
                channel.close();
            }

            @Override
            public Optional<String> shownText() {
                synchronized (screen) {
                    return Optional.of(screen.toString(StandardCharsets.UTF_8));
                }
            }
        };
    }
}
