package dev.skillgate.runner.internal;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The child's complete environment: a fixed allow-list built from nothing, then a deny pass that
 * removes every loader, runtime or TLS injection variable even if a future change to the allow-list
 * lets one in. Nothing is ever inherited from the JVM and no caller can add a variable.
 */
public final class ChildEnvironment {

    /** The fixed {@code PATH}; it matters only to subprocesses the script itself starts. */
    public static final String FIXED_PATH = "/usr/bin:/bin";

    /** Name prefixes dropped by the deny pass (compared case-insensitively). */
    public static final List<String> DENIED_PREFIXES = List.of(
            "NODE_",
            "NPM_",
            "YARN_",
            "PNPM_",
            "COREPACK_",
            "UV_",
            "LD_",
            "DYLD_",
            "OPENSSL_",
            "SSL_CERT_",
            "MALLOC_",
            "GLIBC_",
            "JAVA_",
            "JDK_",
            "_JAVA_",
            "PYTHON",
            "PERL",
            "RUBY",
            "BASH_FUNC_",
            "DBUS_",
            "XDG_",
            "SSH_",
            "GPG_",
            "AWS_",
            "GITHUB_",
            "GH_",
            "GOOGLE_",
            "AZURE_");

    /** Exact names dropped by the deny pass (compared case-insensitively). */
    public static final List<String> DENIED_NAMES = List.of(
            "GCONV_PATH",
            "LOCPATH",
            "HOSTALIASES",
            "RES_OPTIONS",
            "LOCALDOMAIN",
            "NO_PROXY",
            "BASH_ENV",
            "ENV",
            "CDPATH",
            "IFS",
            "SHELLOPTS",
            "PS4",
            "NO_COLOR",
            "FORCE_COLOR",
            "CI");

    /** Name suffixes dropped by the deny pass: proxies and anything that looks like a credential. */
    public static final List<String> DENIED_SUFFIXES =
            List.of("_PROXY", "_TOKEN", "_SECRET", "_PASSWORD", "_KEY", "_CREDENTIALS", "_AUTH_SOCK");

    private ChildEnvironment() {}

    /**
     * The environment for one run: exactly SPEC §10's allow-list — {@code PATH}, {@code HOME},
     * {@code TMPDIR}, {@code LANG} — and nothing else, after the deny pass. No {@code TZ} either
     * (decision 0360): the SPEC names four variables, and a script that needs a time zone says so in
     * its own code.
     */
    public static Map<String, String> forRun(Path home, Path tmp) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", FIXED_PATH);
        env.put("HOME", home.toString());
        env.put("TMPDIR", tmp.toString());
        env.put("LANG", "C.UTF-8");
        return denyPass(env);
    }

    /** A copy of {@code env} without any denied variable. */
    public static Map<String, String> denyPass(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (!isDenied(e.getKey())) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /** Whether a variable name is refused whatever the allow-list says. */
    public static boolean isDenied(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        if (upper.isEmpty() || upper.indexOf('=') >= 0) {
            return true;
        }
        for (String prefix : DENIED_PREFIXES) {
            if (upper.startsWith(prefix)) {
                return true;
            }
        }
        for (String suffix : DENIED_SUFFIXES) {
            if (upper.endsWith(suffix)) {
                return true;
            }
        }
        return DENIED_NAMES.contains(upper);
    }
}
