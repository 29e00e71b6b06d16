package dev.skillgate.model.shared;

import dev.skillgate.model.Diagnostic;
import java.nio.file.Path;
import java.util.Optional;

/** Prints {@link DirectoryPlacement}'s verdict for each argument, one line each; for child processes. */
public final class PlacementProbe {
    private PlacementProbe() {}

    public static void main(String[] args) {
        System.out.println(
                "uid " + DirectoryPlacement.currentUid().map(String::valueOf).orElse("?"));
        for (String a : args) {
            Optional<Diagnostic> d = DirectoryPlacement.check(Path.of(a), "data directory");
            System.out.println(d.map(x -> "REFUSED " + a + " at " + x.location() + " | " + x.message())
                    .orElse("OK " + a));
        }
    }
}
