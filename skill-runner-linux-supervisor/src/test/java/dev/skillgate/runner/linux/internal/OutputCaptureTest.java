package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The driver's fixed-capacity capture (decision 0330): output frames read straight into one buffer
 * of exactly the limit give the same bytes and the same end-frame CRC as frames read into arrays of
 * their own; a frame that does not fit is refused before its payload is read; the buffer is handed
 * over as itself only when it is exactly full.
 */
class OutputCaptureTest {

    /** A helper stream: {@code out} as stdout frames of random sizes, interleaved stderr, a result and the end. */
    static byte[] stream(byte[] out, byte[] err, Random random, boolean goodCrc) {
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        int o = 0;
        int e = 0;
        while (o < out.length || e < err.length) {
            if (o < out.length && (e >= err.length || random.nextBoolean())) {
                int n = Math.min(out.length - o, 1 + random.nextInt(Wire.FRAME_MAX_CHUNK));
                frame(s, Wire.FRAME_STDOUT, Arrays.copyOfRange(out, o, o + n));
                o += n;
            } else {
                int n = Math.min(err.length - e, 1 + random.nextInt(4096));
                frame(s, Wire.FRAME_STDERR, Arrays.copyOfRange(err, e, e + n));
                e += n;
            }
        }
        frame(s, Wire.FRAME_TERMINATING, new byte[] {1});
        CRC32C crc = new CRC32C();
        byte[] before = s.toByteArray();
        crc.update(before);
        long value = crc.getValue() ^ (goodCrc ? 0 : 1);
        frame(s, Wire.FRAME_END, new byte[] {
            (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value
        });
        return s.toByteArray();
    }

    static void frame(ByteArrayOutputStream s, int type, byte[] payload) {
        s.write(type);
        int n = payload.length;
        s.write(n >>> 24);
        s.write(n >>> 16);
        s.write(n >>> 8);
        s.write(n);
        s.writeBytes(payload);
    }

    @Test
    void framesReadIntoTheFixedBuffersMatchFramesReadIntoArrays() throws Exception {
        Random random = new Random(330);
        for (int round = 0; round < 200; round++) {
            int limit = 1 + random.nextInt(256 * 1024);
            byte[] out = new byte[random.nextInt(limit + 1)];
            byte[] err = new byte[random.nextInt(16 * 1024 + 1)];
            random.nextBytes(out);
            random.nextBytes(err);
            boolean goodCrc = random.nextInt(4) > 0;
            byte[] wire = stream(out, err, random, goodCrc);

            OutputBuffer stdout = new OutputBuffer(limit);
            OutputBuffer stderr = new OutputBuffer(16 * 1024);
            FrameReader direct = new FrameReader(new ByteArrayInputStream(wire));
            FrameReader.OutputSink sink = (type, length) -> type == Wire.FRAME_STDOUT ? stdout : stderr;
            FrameReader plain = new FrameReader(new ByteArrayInputStream(wire));
            ByteArrayOutputStream plainOut = new ByteArrayOutputStream();
            ByteArrayOutputStream plainErr = new ByteArrayOutputStream();
            while (true) {
                FrameReader.Frame a = direct.next(sink);
                FrameReader.Frame b = plain.next();
                assertThat(a.type()).isEqualTo(b.type());
                assertThat(a.length()).isEqualTo(b.payload().length);
                if (b.type() == Wire.FRAME_STDOUT) {
                    plainOut.writeBytes(b.payload());
                    assertThat(a.payload()).isEmpty();
                } else if (b.type() == Wire.FRAME_STDERR) {
                    plainErr.writeBytes(b.payload());
                } else if (b.type() == Wire.FRAME_END) {
                    assertThat(direct.checkEnd(a.payload())).isEqualTo(goodCrc);
                    assertThat(plain.checkEnd(b.payload())).isEqualTo(goodCrc);
                    break;
                }
            }
            assertThat(stdout.forResult()).isEqualTo(out).isEqualTo(plainOut.toByteArray());
            assertThat(stderr.forResult()).isEqualTo(err).isEqualTo(plainErr.toByteArray());
        }
    }

    @Test
    void aFrameThatDoesNotFitIsRefusedBeforeItsPayloadIsRead() throws Exception {
        byte[] out = new byte[100];
        Arrays.fill(out, (byte) 'x');
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        frame(s, Wire.FRAME_STDOUT, Arrays.copyOf(out, 60));
        frame(s, Wire.FRAME_STDOUT, Arrays.copyOfRange(out, 60, 100));
        ByteArrayInputStream in = new ByteArrayInputStream(s.toByteArray());
        OutputBuffer buffer = new OutputBuffer(99); // one byte short of the 100 that arrive
        FrameReader reader = new FrameReader(in);
        reader.next((type, length) -> buffer);
        int left = in.available();
        assertThatThrownBy(() -> reader.next((type, length) -> buffer))
                .isInstanceOf(Frames.MalformedFrameException.class)
                .hasMessageContaining("beyond the limit");
        assertThat(in.available()).isEqualTo(left - 5); // only the header was read
        assertThat(buffer.size()).isEqualTo(60);
    }

    @Test
    void theBufferIsHandedOverAsItselfOnlyWhenExactlyFull() throws Exception {
        OutputBuffer b = new OutputBuffer(8);
        assertThat(b.forResult()).isEmpty();
        b.readFully(new ByteArrayInputStream(new byte[] {1, 2, 3}), 3);
        byte[] partial = b.forResult();
        assertThat(partial).containsExactly(1, 2, 3);
        assertThat(partial).isNotSameAs(b.array());
        b.readFully(new ByteArrayInputStream(new byte[] {4, 5, 6, 7, 8}), 5);
        assertThat(b.forResult()).isSameAs(b.array()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(b.fits(1)).isFalse();
        assertThatThrownBy(() -> b.readFully(new ByteArrayInputStream(new byte[] {9}), 1))
                .isInstanceOf(IllegalStateException.class);
        OutputBuffer truncated = new OutputBuffer(8);
        assertThatThrownBy(() -> truncated.readFully(new ByteArrayInputStream(new byte[] {1, 2}), 4))
                .isInstanceOf(EOFException.class);
        assertThat(truncated.size()).isEqualTo(2);
    }
}
