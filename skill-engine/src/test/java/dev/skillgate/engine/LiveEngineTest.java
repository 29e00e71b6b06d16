package dev.skillgate.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * Base of the engine tests that run real {@code node}: a per-class root whose path has spaces and
 * shell metacharacters and carries the class's marker, fresh directories per test (see {@link
 * Support#freshDirs}), and after the class a {@code /proc} scan that fails on any survivor carrying
 * the marker. A subclass's own {@code @BeforeEach} runs after the directories exist.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LiveEngineTest {
    final String marker = Support.newMarker();
    Path base;
    Path skills;
    Path data;
    Path workspace;

    @BeforeAll
    final void createLiveRoot() throws IOException {
        base = Files.createTempDirectory("skillgate-" + getClass().getSimpleName());
    }

    @AfterAll
    final void noSurvivors() throws IOException {
        Support.assertNoSurvivors(marker, base);
    }

    @BeforeEach
    final void freshLiveDirectories() throws IOException {
        Support.TestDirs dirs = Support.freshDirs(base, marker);
        skills = dirs.skills();
        data = dirs.data();
        workspace = dirs.workspace();
    }
}
