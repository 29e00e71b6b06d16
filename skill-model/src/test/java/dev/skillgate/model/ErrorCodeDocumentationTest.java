package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ErrorCodeDocumentationTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([A-Z0-9_]+)` \\|");

    private static List<String> documentedCodes() throws IOException {
        Path doc = Path.of("..", "docs", "error-codes.md");
        List<String> codes = new ArrayList<>();
        for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                codes.add(m.group(1));
            }
        }
        return codes;
    }

    @Test
    void everyCodeIsDocumentedExactlyOnceAndEveryDocumentedCodeExists() throws IOException {
        List<String> documented = documentedCodes();
        List<String> enumerated =
                Arrays.stream(ErrorCode.values()).map(Enum::name).toList();
        assertThat(documented).doesNotHaveDuplicates();
        assertThat(documented).containsExactlyInAnyOrderElementsOf(enumerated);
    }

    @Test
    void documentationGroupsFollowTheEnumGroups() throws IOException {
        String text = Files.readString(Path.of("..", "docs", "error-codes.md"), StandardCharsets.UTF_8);
        for (ErrorCode code : ErrorCode.values()) {
            int heading =
                    text.lastIndexOf("(`" + code.group().name() + "`)", text.indexOf("| `" + code.name() + "` |"));
            assertThat(heading)
                    .as("%s is documented under its group %s", code, code.group())
                    .isPositive();
            int nextHeading = text.indexOf("\n## ", heading);
            int row = text.indexOf("| `" + code.name() + "` |");
            assertThat(nextHeading < 0 || row < nextHeading)
                    .as("%s row sits in its group's table", code)
                    .isTrue();
        }
    }

    @Test
    void ruleIdsRoundTrip() {
        for (ErrorCode code : ErrorCode.values()) {
            assertThat(ErrorCode.find(code.ruleId())).contains(code);
            assertThat(ErrorCode.find(code.name())).contains(code);
            assertThat(code.summary()).isNotBlank();
        }
        assertThat(ErrorCode.find("NAME-LOWERCASE")).contains(ErrorCode.NAME_LOWERCASE);
        assertThat(ErrorCode.find("NO-SUCH-RULE")).isEmpty();
    }
}
