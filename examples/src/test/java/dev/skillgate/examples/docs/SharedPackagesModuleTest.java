package dev.skillgate.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.ProposalState;
import dev.skillgate.inspect.SkillInspector;
import dev.skillgate.model.SkillName;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The sibling-only {@code ….shared} packages (decision 0634) are exported to the named sibling
 * modules only: a host module, or a host on the class path of a module layer, cannot read them,
 * while the siblings that use them can. The tests run on the class path, so this builds a real
 * {@link ModuleLayer} from the compiled modules and asks the module system itself.
 */
class SharedPackagesModuleTest {

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** model and consent resolve with the JDK alone ({@code requires static} apiguardian is optional). */
    private static ModuleLayer modelAndConsent() throws URISyntaxException {
        ModuleFinder finder = ModuleFinder.of(location(SkillName.class), location(ProposalState.class));
        Configuration cf = ModuleLayer.boot()
                .configuration()
                .resolve(finder, ModuleFinder.of(), Set.of("dev.skillgate.model", "dev.skillgate.consent"));
        return ModuleLayer.boot().defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());
    }

    @Test
    void aSharedPackageIsExportedToItsSiblingAndToNoOneElse() throws Exception {
        ModuleLayer layer = modelAndConsent();
        Module model = layer.findModule("dev.skillgate.model").orElseThrow();
        Module consent = layer.findModule("dev.skillgate.consent").orElseThrow();
        Module unnamed = model.getClassLoader().getUnnamedModule();

        assertThat(model.isExported("dev.skillgate.model")).isTrue();
        assertThat(model.isExported("dev.skillgate.model.shared")).isFalse();
        assertThat(model.isExported("dev.skillgate.model.shared", unnamed)).isFalse();
        assertThat(model.isExported("dev.skillgate.model.shared", consent)).isTrue();
        assertThat(consent.canRead(model)).isTrue();

        assertThat(consent.isExported("dev.skillgate.consent")).isTrue();
        assertThat(consent.isExported("dev.skillgate.consent.shared")).isFalse();
        assertThat(consent.isExported("dev.skillgate.consent.shared", unnamed)).isFalse();
    }

    @Test
    void codeOutsideTheSiblingsCannotCallASharedType() throws Throwable {
        ModuleLayer layer = modelAndConsent();
        Module model = layer.findModule("dev.skillgate.model").orElseThrow();
        Class<?> text = Class.forName("dev.skillgate.model.shared.Text", false, model.getClassLoader());
        Class<?> name = Class.forName("dev.skillgate.model.SkillName", false, model.getClassLoader());
        assertThat(text.getModule()).isSameAs(model);

        // The host-facing package is callable from this (unnamed) test module...
        assertThat(MethodHandles.publicLookup()
                        .findStatic(name, "of", MethodType.methodType(name, String.class))
                        .invoke("hello"))
                .hasToString("hello");
        // ...the shared one is not: the public method of a public class is out of reach.
        assertThatThrownBy(() -> MethodHandles.publicLookup()
                        .findStatic(text, "excerpt", MethodType.methodType(String.class, String.class)))
                .isInstanceOf(IllegalAccessException.class);
        assertThatThrownBy(() -> text.getMethod("excerpt", String.class).invoke(null, "x"))
                .isInstanceOf(IllegalAccessException.class);
    }

    @Test
    void eachSharedPackageNamesExactlyTheSiblingsThatUseIt() throws Exception {
        Map<String, Set<String>> qualified = new TreeMap<>();
        for (Class<?> anchor : new Class<?>[] {SkillName.class, SkillInspector.class, ProposalState.class}) {
            ModuleDescriptor d = ModuleFinder.of(location(anchor))
                    .findAll()
                    .iterator()
                    .next()
                    .descriptor();
            for (ModuleDescriptor.Exports e : d.exports()) {
                if (e.source().endsWith(".shared")) {
                    assertThat(e.isQualified()).as(e.source()).isTrue();
                    qualified.put(e.source(), new TreeSet<>(e.targets()));
                }
            }
        }
        assertThat(qualified)
                .containsExactlyEntriesOf(new TreeMap<>(Map.of(
                        "dev.skillgate.consent.shared", Set.of("dev.skillgate.engine"),
                        "dev.skillgate.inspect.shared", Set.of("dev.skillgate.engine"),
                        "dev.skillgate.model.shared",
                                new TreeSet<>(Set.of(
                                        "dev.skillgate.audit",
                                        "dev.skillgate.cli",
                                        "dev.skillgate.consent",
                                        "dev.skillgate.engine",
                                        "dev.skillgate.inspect",
                                        "dev.skillgate.project",
                                        "dev.skillgate.runner",
                                        "dev.skillgate.runner.linux",
                                        "dev.skillgate.signature")))));
    }
}
