package dev.skillgate.benchmarks.memory;

/** Placeholder. */
public final class MemoryHarness {
    private MemoryHarness() {}

    public static void main(String[] args) throws Exception {
        throw new UnsupportedOperationException("not yet");
    }
}
