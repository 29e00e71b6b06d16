package dev.skillgate.inspect;

import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * A top-level frontmatter key outside the six standard fields, kept verbatim and reported as
 * "preserved, not enforced".
 *
 * <p>Skillgate never gives such a field meaning: a Claude Code {@code hooks} or {@code
 * allowed-tools}-like field is data, it grants nothing and runs nothing. The field's raw text stays
 * available in {@link SkillDocument#frontmatterText()}.
 *
 * @param key the key, exactly as written
 * @param value the value, as text
 * @param host the host that documents this key (e.g. {@code Claude Code}), or empty for a key no
 *     known host defines (a typo or a private extension)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PreservedField(String key, FrontmatterValue value, Optional<String> host) {
    public PreservedField {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(host, "host");
    }

    /** Whether a known host documents this key. */
    public boolean isHostExtension() {
        return host.isPresent();
    }
}
