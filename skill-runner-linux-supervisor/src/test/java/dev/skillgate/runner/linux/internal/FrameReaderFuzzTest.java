package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * Fuzzes the frame reader and the frame parsers with arbitrary helper output: every input ends in a
 * parsed frame, a clean {@link EOFException} or a {@link Frames.MalformedFrameException}; nothing
 * else escapes, no frame exceeds its cap, and a CRC only verifies over the exact bytes before it.
 */
class FrameReaderFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void arbitraryHelperOutputIsParsedOrRefused(byte[] input) throws IOException {
        FrameReader reader = new FrameReader(new ByteArrayInputStream(input));
        for (int i = 0; i < 256; i++) {
            FrameReader.Frame f;
            try {
                f = reader.next();
            } catch (EOFException | Frames.MalformedFrameException e) {
                return;
            }
            try {
                assertThat((long) f.payload().length).isLessThanOrEqualTo(FrameReader.cap(f.type()));
                switch (f.type()) {
                    case Wire.FRAME_HELLO:
                        Frames.Hello h = Frames.Hello.parse(f.payload());
                        assertThat(h.bootId()).hasSize(36);
                        break;
                    case Wire.FRAME_SPAWNED:
                        Frames.Spawned s = Frames.Spawned.parse(f.payload());
                        assertThat(s.verification()).isBetween(0, 2);
                        break;
                    case Wire.FRAME_RESULT:
                        Frames.Result r = Frames.Result.parse(f.payload());
                        assertThat(HelperRun.outcomeOf(r.outcome()))
                                .isNotEqualTo(dev.skillgate.runner.SupervisionResult.Outcome.SUPERVISOR_FAILED);
                        assertThat(r.detail().length()).isLessThanOrEqualTo(Wire.MAX_DETAIL);
                        break;
                    case Wire.FRAME_END:
                        reader.checkEnd(f.payload());
                        return;
                    default:
                        break;
                }
            } catch (Frames.MalformedFrameException e) {
                return;
            }
        }
    }
}
