package dev.skillgate.model;

import dev.skillgate.model.shared.Text;
import java.util.function.Function;

/** Exact, case-sensitive lookup of an enum constant by its wire name. */
final class WireNames {
    private WireNames() {}

    static <E extends Enum<E>> E lookup(E[] values, Function<E, String> wireName, String name, String field) {
        for (E value : values) {
            if (wireName.apply(value).equals(name)) {
                return value;
            }
        }
        throw new InvalidValueException(
                ErrorCode.CONTRACT_TYPE, field + " has an unknown value '" + Text.excerpt(name) + "'");
    }
}
