package dev.skillgate.runner.linux.internal;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Talks to the helper directly with hand-made requests, bypassing the driver and LaunchSpec checks. */
final class RawHelper {
    private RawHelper() {}

    /** What came back. */
    record Exchange(List<FrameReader.Frame> frames, boolean endVerified, int exit) {
        Frames.Hello hello() throws Frames.MalformedFrameException {
            return Frames.Hello.parse(frames.get(0).payload());
        }

        Frames.Result result() throws Frames.MalformedFrameException {
            for (FrameReader.Frame f : frames) {
                if (f.type() == Wire.FRAME_RESULT) {
                    return Frames.Result.parse(f.payload());
                }
            }
            throw new AssertionError("no result frame");
        }

        boolean spawned() {
            return frames.stream().anyMatch(f -> f.type() == Wire.FRAME_SPAWNED);
        }
    }

    static boolean declaresMoreThanItHas(byte[] request) {
        if (request.length < 9) {
            return true;
        }
        long declared = Frames.u32(request, 5);
        return declared <= Wire.REQ_MAX_BODY && declared > request.length - 9L;
    }

    static Exchange exchange(Path helper, byte[] request) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(helper.toString());
        pb.environment().clear();
        pb.directory(new File("/"));
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        try {
            OutputStream in = p.getOutputStream();
            try {
                in.write(Wire.SEAL_VERIFIED); // what the driver sends once it has checked the process
                in.write(request);
                in.flush();
                if (declaresMoreThanItHas(request)) {
                    // The helper would wait for the missing bytes (in production the driver's setup
                    // watchdog ends that wait); EOF makes it answer at once.
                    in.close();
                }
            } catch (IOException e) {
                // the helper stopped reading: its frames say why
            }
            FrameReader reader = new FrameReader(new BufferedInputStream(p.getInputStream()));
            List<FrameReader.Frame> frames = new ArrayList<>();
            boolean verified = false;
            try {
                while (true) {
                    FrameReader.Frame f = reader.next();
                    if (f.type() == Wire.FRAME_HELLO) {
                        int layer = Frames.Hello.parse(f.payload()).layer();
                        try {
                            in.write(layer == Wire.LAYER_NONE ? Wire.LIFELINE_CANCEL : Wire.LIFELINE_GO);
                            in.flush();
                        } catch (IOException e) {
                            // already gone
                        }
                    }
                    if (f.type() == Wire.FRAME_END) {
                        verified = reader.checkEnd(f.payload()) && reader.atEof();
                        break;
                    }
                    frames.add(f);
                }
            } catch (EOFException e) {
                // no end frame: reported as unverified
            }
            try {
                in.close();
            } catch (IOException e) {
                // the buffered lifeline byte could not be flushed: the helper is gone
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("helper did not exit");
            }
            return new Exchange(frames, verified, p.exitValue());
        } finally {
            p.destroyForcibly();
        }
    }
}
