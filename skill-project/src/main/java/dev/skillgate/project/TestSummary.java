package dev.skillgate.project;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * The counts Node's test runner printed at the end of a test step, read from its TAP ({@code # pass 3})
 * or spec ({@code ℹ pass 3}) reporter. Counts only: they are what the project's own code printed and
 * are never proof that the tests are adequate, nor that they ran at all.
 *
 * @param tests tests counted
 * @param passed passed
 * @param failed failed
 * @param cancelled cancelled
 * @param skipped skipped
 * @param todo todo
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record TestSummary(int tests, int passed, int failed, int cancelled, int skipped, int todo) {
    private static final Pattern LINE =
            Pattern.compile("(?m)^(?:#|\\u2139) (tests|pass|fail|cancelled|skipped|todo) ([0-9]{1,9})\\s*$");

    /** The summary in {@code output}, when it holds the runner's {@code tests} and {@code pass} lines. */
    public static Optional<TestSummary> parse(String output) {
        int[] v = {-1, -1, 0, 0, 0, 0};
        Matcher m = LINE.matcher(output);
        while (m.find()) {
            int n = Integer.parseInt(m.group(2));
            switch (m.group(1)) {
                case "tests" -> v[0] = n;
                case "pass" -> v[1] = n;
                case "fail" -> v[2] = n;
                case "cancelled" -> v[3] = n;
                case "skipped" -> v[4] = n;
                default -> v[5] = n;
            }
        }
        if (v[0] < 0 || v[1] < 0) {
            return Optional.empty();
        }
        return Optional.of(new TestSummary(v[0], v[1], v[2], v[3], v[4], v[5]));
    }
}
