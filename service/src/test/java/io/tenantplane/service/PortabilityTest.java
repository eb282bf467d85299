package io.tenantplane.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/** The service's code speaks Jakarta EE and MicroProfile only, so another MicroProfile runtime can host it. */
class PortabilityTest {

    private static final JavaClasses SERVICE = new ClassFileImporter()
            // Tests may use Helidon's test support; the predefined option misses build folders named other than target/.
            .withImportOption(location -> !location.contains("/test-classes/"))
            .importPackages("io.tenantplane.service");

    @Test
    void noServiceClassDependsOnHelidon() {
        noClasses().that().resideInAPackage("io.tenantplane.service..")
                .should().dependOnClassesThat().resideInAPackage("io.helidon..")
                .because("Helidon is chosen in the pom and the start-up class only")
                .check(SERVICE);
    }

    @Test
    void noServiceClassDependsOnARuntimeImplementation() {
        noClasses().that().resideInAPackage("io.tenantplane.service..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "org.glassfish..", "org.jboss.weld..", "org.eclipse.yasson..", "io.smallrye..",
                        "io.micrometer..", "io.opentelemetry.sdk..")
                .because("only Jakarta EE, MicroProfile and the OpenTelemetry API are portable across runtimes")
                .check(SERVICE);
    }

    @Test
    void theServiceImportsSomeClassesSoTheRulesAboveAreNotVacuous() {
        if (SERVICE.size() < 5) {
            throw new AssertionError("expected the service classes on the class path, found " + SERVICE.size());
        }
    }
}
