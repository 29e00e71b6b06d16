package dev.skillgate.engine;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * A test class whose tests share one hello-world skill root ({@link Support#helloWorldRoot}) made
 * before the first test, and which shows after the last that none of the processes it started
 * survived ({@link Support#assertNoSurvivors}). A subclass's own {@code @BeforeAll} runs after the
 * root is made.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HelloWorldRootTest {
    protected final String marker = Support.newMarker();
    protected Path base;
    protected Path skills;
    protected Path workspace;
    private final String prefix;

    /** @param prefix the temporary directory's name prefix */
    HelloWorldRootTest(String prefix) {
        this.prefix = prefix;
    }

    @BeforeAll
    final void makeHelloWorldRoot() throws IOException {
        Support.HelloWorldRoot tree = Support.helloWorldRoot(prefix, marker);
        base = tree.base();
        skills = tree.skills();
        workspace = tree.workspace();
    }

    @AfterAll
    final void noSurvivors() throws IOException {
        Support.assertNoSurvivors(marker, base);
    }
}
