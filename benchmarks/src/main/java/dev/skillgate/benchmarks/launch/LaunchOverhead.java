package dev.skillgate.benchmarks.launch;

/** Placeholder. */
public final class LaunchOverhead {
    private LaunchOverhead() {}

    public static void main(String[] args) throws Exception {
        throw new UnsupportedOperationException("not yet");
    }
}
