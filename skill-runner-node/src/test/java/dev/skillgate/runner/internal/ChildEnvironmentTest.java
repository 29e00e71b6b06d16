package dev.skillgate.runner.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChildEnvironmentTest {

    @Test
    void theAllowListIsExactlyTheSpecsFourVariables() {
        Map<String, String> env = ChildEnvironment.forRun(Path.of("/d/run/home"), Path.of("/d/run/tmp"));
        assertThat(env)
                .containsExactly(
                        Map.entry("PATH", "/usr/bin:/bin"),
                        Map.entry("HOME", "/d/run/home"),
                        Map.entry("TMPDIR", "/d/run/tmp"),
                        Map.entry("LANG", "C.UTF-8"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "NODE_OPTIONS",
                "NODE_PATH",
                "node_options",
                "Node_Extra_CA_Certs",
                "NODE_TLS_REJECT_UNAUTHORIZED",
                "LD_PRELOAD",
                "LD_LIBRARY_PATH",
                "LD_AUDIT",
                "DYLD_INSERT_LIBRARIES",
                "OPENSSL_CONF",
                "OPENSSL_MODULES",
                "SSL_CERT_FILE",
                "SSL_CERT_DIR",
                "UV_THREADPOOL_SIZE",
                "NPM_CONFIG_PREFIX",
                "npm_config_registry",
                "GLIBC_TUNABLES",
                "GCONV_PATH",
                "LOCPATH",
                "MALLOC_CHECK_",
                "HOSTALIASES",
                "RES_OPTIONS",
                "LOCALDOMAIN",
                "HTTPS_PROXY",
                "http_proxy",
                "NO_PROXY",
                "AWS_SECRET_ACCESS_KEY",
                "GITHUB_TOKEN",
                "SSH_AUTH_SOCK",
                "DBUS_SESSION_BUS_ADDRESS",
                "XDG_RUNTIME_DIR",
                "JAVA_TOOL_OPTIONS",
                "BASH_ENV",
                "MY_API_KEY",
                "DB_PASSWORD",
                "COREPACK_HOME",
                "SKILL_SECRET"
            })
    void theDenyPassDropsInjectionAndCredentialVariables(String name) {
        assertThat(ChildEnvironment.isDenied(name)).isTrue();
        Map<String, String> hostile = new LinkedHashMap<>();
        hostile.put("LANG", "C.UTF-8");
        hostile.put(name, "planted");
        assertThat(ChildEnvironment.denyPass(hostile)).containsOnlyKeys("LANG");
    }

    @Test
    void theAllowedNamesSurviveTheDenyPass() {
        for (String name : new String[] {"PATH", "HOME", "TMPDIR", "LANG"}) {
            assertThat(ChildEnvironment.isDenied(name)).as(name).isFalse();
        }
    }

    @Test
    void seededRandomCaseAndSuffixVariantsOfDeniedPrefixesAreDenied() {
        Random random = new Random(20261130L);
        for (int n = 0; n < 5_000; n++) {
            String prefix =
                    ChildEnvironment.DENIED_PREFIXES.get(random.nextInt(ChildEnvironment.DENIED_PREFIXES.size()));
            StringBuilder name = new StringBuilder();
            for (char c : prefix.toCharArray()) {
                name.append(random.nextBoolean() ? Character.toLowerCase(c) : c);
            }
            int extra = random.nextInt(12);
            for (int i = 0; i < extra; i++) {
                name.append((char) ('A' + random.nextInt(26)));
            }
            assertThat(ChildEnvironment.isDenied(name.toString()))
                    .as(name.toString())
                    .isTrue();
            assertThat(ChildEnvironment.isDenied(name.toString().toLowerCase(Locale.ROOT)))
                    .isTrue();
        }
    }
}
