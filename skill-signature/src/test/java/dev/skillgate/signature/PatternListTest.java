package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** OpenSSH pattern-list semantics for principals and namespaces. */
class PatternListTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "alice@example.com | alice@example.com | true",
                "alice@example.com | Alice@example.com | false",
                "alice@example.com | *@example.com | true",
                "alice@example.com | *@example.org | false",
                "alice@example.com | ?lice@example.com | true",
                "alice@example.com | ??lice@example.com | false",
                "alice@example.com | * | true",
                "alice@example.com | *,!alice@example.com | false",
                "bob@example.com | *,!alice@example.com | true",
                "alice@example.com | !alice@example.com | false",
                "alice@example.com | bob,alice@example.com | true",
                "a*b | a*b | true",
                "aXXb | a*b | true",
                "ab | a*b | true",
                "a | a*b | false",
                "skillgate | skill* | true",
                "skillgate | *gate | true",
                "skillgate | s*l*g*e | true",
                "skillgate | s*x*e | false",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab | *a*a*a*a*a*a*a*a*a*a*c | false",
            })
    void matchesLikeOpenSsh(String subject, String patterns, boolean expected) {
        PublisherKey key = new PublisherKey(
                List.of(patterns.split(",")), PublisherKeysTest.KEY, Optional.of(List.of(patterns.split(","))), 0);
        assertThat(key.allowsPrincipal(subject)).isEqualTo(expected);
        assertThat(key.allowsNamespace(subject)).isEqualTo(expected);
    }
}
