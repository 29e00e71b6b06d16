package dev.skillgate.inspect;

import java.nio.file.Path;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A loadable skill that was not used because a skill of the same name was found first (an earlier
 * root, or earlier in the same root's walk order).
 *
 * @param name the shared name
 * @param location the shadowed skill's file
 * @param rootIndex the shadowed skill's root
 * @param winner the file of the skill that is used instead
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ShadowedSkill(String name, Path location, int rootIndex, Path winner) {
    public ShadowedSkill {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(winner, "winner");
    }
}
