package dev.skillgate.runner.linux.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The survivor check: every tag used by a test is scanned for in {@code /proc} after the test; any
 * live process carrying it fails the test (and is killed so it cannot disturb the next one). Markers
 * that an escaped process would write after a delay are checked once after the class, past their
 * deadline.
 */
final class Tags implements AfterEachCallback, AfterAllCallback {
    private static final List<String> CURRENT = new ArrayList<>();
    private static final List<String> CLASS_TAGS = new ArrayList<>();
    private static final List<Path> MARKERS = new ArrayList<>();
    private static long markerDeadline;

    static synchronized void register(String tag) {
        CURRENT.add(tag);
        CLASS_TAGS.add(tag);
    }

    /** A file that must never appear, written by an escaped process no later than {@code delayMillis} from now. */
    static synchronized void neverWritten(Path marker, long delayMillis) {
        MARKERS.add(marker);
        markerDeadline = Math.max(markerDeadline, System.nanoTime() + delayMillis * 1_000_000);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<String> tags;
        synchronized (Tags.class) {
            tags = new ArrayList<>(CURRENT);
            CURRENT.clear();
        }
        List<String> leaks = new ArrayList<>();
        for (String tag : tags) {
            List<Long> left = ProcScan.awaitNone(tag, 200);
            if (!left.isEmpty()) {
                leaks.add(tag + " -> " + left);
                ProcScan.killAll(tag);
            }
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError("survivors after the test: " + leaks);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<Path> markers;
        List<String> tags;
        long deadline;
        synchronized (Tags.class) {
            markers = new ArrayList<>(MARKERS);
            tags = new ArrayList<>(CLASS_TAGS);
            deadline = markerDeadline;
            MARKERS.clear();
            CLASS_TAGS.clear();
            markerDeadline = 0;
        }
        long wait = deadline + 500_000_000L - System.nanoTime();
        if (!markers.isEmpty() && wait > 0) {
            ProcScan.sleep(wait / 1_000_000);
        }
        List<String> problems = new ArrayList<>();
        for (Path m : markers) {
            if (Files.exists(m)) {
                problems.add("marker written: " + m.getFileName());
            }
        }
        for (String tag : tags) {
            if (!ProcScan.survivors(tag).isEmpty()) {
                problems.add("survivor of " + tag);
                ProcScan.killAll(tag);
            }
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("after the class: " + problems);
        }
    }
}
