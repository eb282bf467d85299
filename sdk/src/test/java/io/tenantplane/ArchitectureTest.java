package io.tenantplane;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The SDK's shape, checked rather than promised: docs/sdk.md's package table is exactly the public types, its layer
 * order is what the imports do, no two packages import each other (directly or round a circle), and the planning
 * packages call no API client.
 */
class ArchitectureTest {

    private static final String ROOT = "io.tenantplane";
    private static final JavaClasses SDK = new ClassFileImporter()
            // The predefined DoNotIncludeTests option misses build folders named other than target/.
            .withImportOption(location -> !location.contains("/test-classes/"))
            .withImportOption(new ImportOption.DoNotIncludeJars())
            .importPackages(ROOT);
    private static final Path DOC = Path.of("..", "docs", "sdk.md");
    private static final Pattern TICKED = Pattern.compile("`([\\w.]+)`");

    private static final String INTERNAL = ".internal";
    /**
     * Public for {@code TenantPlane} but not supported, and outside an {@code internal} package because the model they
     * build keeps its constructors package-private; docs/sdk.md names them.
     */
    private static final Set<String> ENGINES = Set.of("io.tenantplane.migration.MigrationPlanner",
            "io.tenantplane.migration.MigrationRunner");

    /**
     * A package's name below {@code io.tenantplane}, its {@code internal} subpackage counted as part of it: the
     * implementation a package keeps public only for the SDK's other packages, in one unit with it.
     */
    private static String shortName(String pkg) {
        String unit = pkg.endsWith(INTERNAL) ? pkg.substring(0, pkg.length() - INTERNAL.length()) : pkg;
        return unit.equals(ROOT) ? ROOT : unit.substring(ROOT.length() + 1);
    }

    private static boolean ours(JavaClass c) {
        return c.getPackageName().equals(ROOT) || c.getPackageName().startsWith(ROOT + ".");
    }

    @Test
    void theSdkIsImportedSoTheRulesAreNotVacuous() {
        assertTrue(SDK.size() > 200, "expected the SDK's classes on the class path, found " + SDK.size());
    }

    @Test
    void noPackageImportsAnotherThatImportsItBack() {
        slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                return ours(c) ? SliceIdentifier.of(shortName(c.getPackageName())) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the SDK's packages, the root package included";
            }
        }).should().beFreeOfCycles().check(SDK);
    }

    @Test
    void planningPackagesCallNoApiClientAndDoNotKnowTheWriters() {
        noClasses().that().resideInAnyPackage(ROOT + ".model", ROOT + ".naming", ROOT + ".json", ROOT + ".transform",
                        ROOT + ".plan", ROOT + ".explain", ROOT + ".isolation", ROOT + ".controlplane")
                .should().dependOnClassesThat().resideInAnyPackage("io.kubernetes.client.openapi..",
                        "io.kubernetes.client.util..", "io.kubernetes.client.informer..", "okhttp3..", "java.net.http..",
                        ROOT + ".apply", ROOT + ".sync", ROOT + ".events", ROOT + ".kubelet", ROOT + ".observe")
                .because("a planner is a function of what was read; reading and writing happen around it")
                .check(SDK);
    }

    @Test
    void planningPackagesMakeDecisionsWithTheirObjectsNeverAsSummaries() {
        noClasses().that().resideInAnyPackage(ROOT + ".plan", ROOT + ".naming", ROOT + ".transform",
                        ROOT + ".explain", ROOT + ".isolation", ROOT + ".controlplane", ROOT + ".migration")
                .and().doNotBelongToAnyOf(io.tenantplane.plan.Decision.class)
                .should().callMethod(io.tenantplane.plan.Decision.class, "summary", io.tenantplane.plan.Action.class,
                        String.class, io.tenantplane.plan.Decision.SourceRef.class,
                        io.tenantplane.plan.Decision.HostRef.class, String.class, String.class)
                .orShould().callConstructor(io.tenantplane.plan.Decision.Summary.class,
                        io.tenantplane.plan.Action.class, String.class, io.tenantplane.plan.Decision.SourceRef.class,
                        io.tenantplane.plan.Decision.HostRef.class, String.class, String.class)
                .because("a planned decision carries the objects its action needs (each kind of Decision checks "
                        + "them when it is made); a Summary is what executors and observers report without them")
                .check(SDK);
    }

    @Test
    void everyOutcomeIsReportedThroughTheOneExecution() {
        noClasses().that().resideOutsideOfPackage(ROOT + ".observe")
                .and().doNotHaveFullyQualifiedName(io.tenantplane.apply.internal.Execution.class.getName())
                .should().callMethod(io.tenantplane.observe.Observer.class, "decision",
                        io.tenantplane.observe.TenantKey.class, io.tenantplane.observe.Outcome.class)
                .orShould().callMethod(io.tenantplane.observe.Observer.PassScope.class, "decision",
                        io.tenantplane.observe.Outcome.class)
                .because("Execution reports each outcome once, to the observers and into the span it was made in, "
                        + "and lists it for the report: a second reporter would report differently")
                .check(SDK);
    }

    /** docs/sdk.md's layer sentence: packages separated by arrows, each arrow pointing to the layer above. */
    private static Map<String, Integer> layers() throws IOException {
        String docs = Files.readString(DOC);
        int start = docs.indexOf("The packages form layers");
        assertTrue(start >= 0, "docs/sdk.md lost its layer sentence");
        String sentence = docs.substring(docs.indexOf(':', start) + 1, docs.indexOf("\n\n", start));
        Map<String, Integer> layer = new HashMap<>();
        String[] parts = sentence.split("→");
        for (int i = 0; i < parts.length; i++) {
            Matcher m = TICKED.matcher(parts[i]);
            while (m.find()) {
                layer.put(m.group(1), i);
            }
        }
        return layer;
    }

    /** True when {@code from} imports from its own layer or one above it (packages the doc does not place pass). */
    private static boolean upwards(Map<String, Integer> layer, String from, String to) {
        Integer a = layer.get(from);
        Integer b = layer.get(to);
        return a != null && b != null && b >= a;
    }

    @Test
    void everyImportPointsToALowerLayerAsDocsSdkMdDraws() throws IOException {
        Map<String, Integer> layer = layers();
        Set<String> packages = new TreeSet<>();
        List<String> upwards = new ArrayList<>();
        for (JavaClass c : SDK) {
            String from = shortName(c.getPackageName());
            packages.add(from);
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass();
                if (!ours(target) || target.getPackageName().equals(c.getPackageName())) {
                    continue;
                }
                String to = shortName(target.getPackageName());
                if (!to.equals(from) && upwards(layer, from, to)) {
                    upwards.add(from + " -> " + to + " (" + d.getDescription() + ")");
                }
            }
        }
        // Imports only Javadoc uses leave no trace in the classes; the source's import lines obey the layers too.
        Pattern importLine = Pattern.compile("(?m)^import (?:static )?io\\.tenantplane\\.((?:[a-z]+\\.)*)[A-Z]");
        try (var files = Files.walk(Path.of("src", "main", "java", "io", "tenantplane"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String src = Files.readString(f);
                Matcher pkg = Pattern.compile("(?m)^package ([\\w.]+);").matcher(src);
                assertTrue(pkg.find(), f.toString());
                String from = shortName(pkg.group(1));
                Matcher m = importLine.matcher(src);
                while (m.find()) {
                    String to = m.group(1).isEmpty() ? ROOT
                            : shortName(ROOT + "." + m.group(1).substring(0, m.group(1).length() - 1));
                    if (!to.equals(from) && upwards(layer, from, to)) {
                        upwards.add(from + " -> " + to + " (import in " + f.getFileName() + ")");
                    }
                }
            }
        }
        assertEquals(packages, new TreeSet<>(layer.keySet()), "docs/sdk.md's layers name exactly the packages");
        assertTrue(upwards.isEmpty(), "imports that do not point to a lower layer:\n" + String.join("\n",
                upwards.stream().distinct().limit(20).toList()));
    }

    @Test
    void thePublicTypesAreExactlyDocsSdkMdsTable() throws IOException {
        Map<String, Set<String>> documented = new TreeMap<>();
        for (String line : Files.readAllLines(DOC)) {
            if (!line.startsWith("| `io.tenantplane")) {
                continue;
            }
            String[] cells = line.split("\\|");
            Matcher pkg = TICKED.matcher(cells[1]);
            assertTrue(pkg.find(), line);
            Set<String> types = documented.computeIfAbsent(pkg.group(1), k -> new TreeSet<>());
            for (int i = 2; i < cells.length; i++) {
                Matcher m = TICKED.matcher(cells[i]);
                while (m.find()) {
                    types.add(m.group(1));
                }
            }
        }
        Map<String, Set<String>> actual = new TreeMap<>();
        for (JavaClass c : SDK) {
            if (c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)
                    && !c.getSimpleName().equals("package-info") && !c.getPackageName().endsWith(INTERNAL)
                    && !ENGINES.contains(c.getName())) {
                actual.computeIfAbsent(c.getPackageName(), k -> new TreeSet<>()).add(c.getSimpleName());
            }
        }
        assertEquals(actual, documented, "docs/sdk.md's package table names every public type and no other");
        String docs = Files.readString(DOC);
        for (String engine : ENGINES) {
            JavaClass c = SDK.get(engine);
            assertTrue(c.getModifiers().contains(JavaModifier.PUBLIC), engine);
            assertTrue(docs.contains("`" + c.getSimpleName() + "`"), "docs/sdk.md says why " + engine + " is public");
        }
    }

    /**
     * What is public only for the SDK's own packages lives in packages named {@code internal}: no other module of
     * this repository (the service, the CLI, the benchmarks, the examples) imports one, as no user should.
     */
    @Test
    void noOtherModuleUsesAnInternalPackage() throws IOException {
        List<String> uses = new ArrayList<>();
        Pattern internal = Pattern.compile("io\\.tenantplane\\.[\\w.]*\\.internal\\b");
        for (String module : List.of("service", "cli", "bench", "examples")) {
            try (var files = Files.walk(Path.of("..", module))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/target/"))
                        .toList()) {
                    if (internal.matcher(Files.readString(f)).find()) {
                        uses.add(f.toString());
                    }
                }
            }
        }
        assertTrue(uses.isEmpty(), "internal packages used outside the SDK: " + uses);
        assertTrue(SDK.stream().anyMatch(c -> c.getPackageName().endsWith(INTERNAL)
                && c.getModifiers().contains(JavaModifier.PUBLIC)), "the rule is not vacuous: internal types exist");
    }

    /** docs/sdk.md names, package by package, the public types of the {@code internal} packages: exactly those. */
    @Test
    void docsSdkMdNamesEveryInternalPublicType() throws IOException {
        String docs = Files.readString(DOC).replace('\n', ' ');
        int start = docs.indexOf("live in subpackages named `internal`");
        assertTrue(start >= 0, "docs/sdk.md lost its sentence on internal packages");
        String list = docs.substring(docs.indexOf('(', start) + 1, docs.indexOf(')', start));
        Map<String, Set<String>> documented = new TreeMap<>();
        for (String part : list.split(";")) {
            String[] pkgAndTypes = part.split(":", 2);
            Matcher pkg = TICKED.matcher(pkgAndTypes[0]);
            assertTrue(pkg.find() && pkgAndTypes.length == 2, "expected `package`: `Type`, ... in " + part);
            Set<String> types = documented.computeIfAbsent(ROOT + "." + pkg.group(1), k -> new TreeSet<>());
            Matcher m = TICKED.matcher(pkgAndTypes[1]);
            while (m.find()) {
                types.add(m.group(1));
            }
        }
        Map<String, Set<String>> actual = new TreeMap<>();
        for (JavaClass c : SDK) {
            if (c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)
                    && c.getPackageName().endsWith(INTERNAL)) {
                actual.computeIfAbsent(c.getPackageName(), k -> new TreeSet<>()).add(c.getSimpleName());
            }
        }
        assertEquals(actual, documented, "docs/sdk.md's list of internal types names every one and no other");
    }

    /** docs/sdk.md documents every public method of the front door and its builder (as {@code `name(} or {@code .name(}). */
    @Test
    void docsSdkMdNamesEveryPublicMethodOfTheFrontDoorAndItsBuilder() throws IOException {
        String docs = Files.readString(DOC);
        List<String> missing = new ArrayList<>();
        for (Class<?> type : List.of(io.tenantplane.TenantPlane.class, io.tenantplane.TenantPlane.Builder.class)) {
            for (java.lang.reflect.Method m : type.getDeclaredMethods()) {
                if (java.lang.reflect.Modifier.isPublic(m.getModifiers()) && !m.isSynthetic()
                        && !Pattern.compile("[`.]" + m.getName() + "\\(").matcher(docs).find()) {
                    missing.add(type.getSimpleName() + "." + m.getName());
                }
            }
        }
        assertTrue(missing.isEmpty(), "docs/sdk.md does not document " + missing.stream().distinct().sorted().toList());
    }
}
