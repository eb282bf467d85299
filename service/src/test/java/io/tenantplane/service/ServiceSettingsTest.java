package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

class ServiceSettingsTest {

    /** The shipped defaults, as the running service reads them. */
    private static Map<String, String> defaults() throws IOException {
        var props = new Properties();
        try (InputStream in = ServiceSettingsTest.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            props.load(in);
        }
        var map = new HashMap<String, String>();
        props.forEach((k, v) -> map.put((String) k, (String) v));
        // The expressions resolve from the pod's environment; outside a pod their fallbacks apply.
        map.put(ServiceSettings.LEASE_NAMESPACE, "tenantplane-system");
        map.put(ServiceSettings.LEASE_IDENTITY, "");
        return map;
    }

    private static ServiceSettings parse(Map<String, String> values) {
        return ServiceSettings.from(key -> Optional.ofNullable(values.get(key)), () -> "random-id");
    }

    @Test
    void shippedDefaultsAreValidAndMeanAllNamespacesFourWorkersAndAFifteenSecondLease() throws IOException {
        ServiceSettings s = parse(defaults());

        assertTrue(s.watchesAllNamespaces());
        assertEquals(Duration.ofMinutes(5), s.resyncInterval());
        assertEquals(4, s.concurrency());
        assertEquals(new ServiceSettings.Lease("tenantplane-service", "tenantplane-system", "random-id", 32,
                Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2)), s.lease());
        assertEquals(500, s.decisionRingSize());
        assertEquals(4, s.writeConcurrency());
        assertEquals(100, s.hostQps());
        assertEquals(200, s.hostBurst());
        assertEquals(ServiceSettings.Auth.KUBERNETES, s.auth(), "REST checks callers with the host by default");
        assertEquals(Optional.empty(), s.bearerTokenFile());
        assertEquals(Optional.empty(), s.hostUrl());
    }

    @Test
    void everyTenantplaneKeyIsInTheOperationsConfigurationTableAndTheTableNamesNoOther() throws IOException {
        java.util.Set<String> shipped = new java.util.TreeSet<>();
        for (String k : defaults().keySet()) {
            if (k.startsWith("tenantplane.")) {
                shipped.add(k);
            }
        }
        String doc = Files.readString(Kube.REPO.resolve("docs/operations.md"));
        java.util.Set<String> documented = new java.util.TreeSet<>();
        var m = java.util.regex.Pattern.compile("(?m)^\\| `(tenantplane\\.[a-z.-]+)` \\|").matcher(doc);
        while (m.find()) {
            documented.add(m.group(1));
        }
        assertEquals(shipped, documented, "docs/operations.md's configuration table vs microprofile-config.properties");
    }

    @Test
    void allowedKindsAreKindDotGroupOrARefusalNamingTheKeyAndTheFix() throws IOException {
        var values = defaults();
        assertEquals(List.of(), parse(values).allowedKinds(), "built-in kinds only by default");
        values.put(ServiceSettings.SYNC_ALLOWED_KINDS, " ServiceMonitor.monitoring.coreos.com, Certificate.cert-manager.io,");
        assertEquals(List.of("Certificate.cert-manager.io", "ServiceMonitor.monitoring.coreos.com"),
                parse(values).allowedKinds());
        values.put(ServiceSettings.SYNC_ALLOWED_KINDS, "certificates.cert-manager.io");
        var e = assertThrows(InvalidSettingsException.class, () -> parse(values));
        assertTrue(e.getMessage().contains(ServiceSettings.SYNC_ALLOWED_KINDS), e.getMessage());
        assertTrue(e.getMessage().contains("'certificates.cert-manager.io' is not Kind.group"), e.getMessage());
    }

    @Test
    void namespaceListIsTrimmedAndDeduplicatedInOrder() throws IOException {
        var values = defaults();
        values.put(ServiceSettings.WATCH_NAMESPACES, " team-b, team-a ,team-b,, ");

        assertEquals(List.of("team-b", "team-a"), parse(values).watchNamespaces());
    }

    @Test
    void everyValidOverrideIsTakenAsWritten(@TempDir Path dir) throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "s3cret\n");
        var values = defaults();
        values.put(ServiceSettings.RESYNC_INTERVAL, "pt30s");
        values.put(ServiceSettings.CONCURRENCY, "64");
        values.put(ServiceSettings.LEASE_IDENTITY, "tenantplane-service-7d9f-abcde");
        values.put(ServiceSettings.LEASE_DURATION, "PT4S");
        values.put(ServiceSettings.LEASE_RENEW_DEADLINE, "PT3S");
        values.put(ServiceSettings.LEASE_RETRY_PERIOD, "PT0.5S");
        values.put(ServiceSettings.DECISIONS_RING_SIZE, "1");
        values.put(ServiceSettings.AUTH_BEARER_TOKEN_FILE, token.toString());
        values.put(ServiceSettings.HOST_URL, "http://127.0.0.1:34567");

        ServiceSettings s = parse(values);

        assertEquals(Duration.ofSeconds(30), s.resyncInterval());
        assertEquals(64, s.concurrency());
        assertEquals("tenantplane-service-7d9f-abcde", s.lease().identity());
        assertEquals(Duration.ofMillis(500), s.lease().retryPeriod());
        assertEquals(1, s.decisionRingSize());
        assertEquals(Optional.of(token), s.bearerTokenFile());
        assertEquals(ServiceSettings.Auth.TOKEN_FILE, s.auth(), "a token file alone means token-file mode");
        assertEquals(Optional.of(URI.create("http://127.0.0.1:34567")), s.hostUrl());
    }

    @Test
    void aTokenFileWithAnotherAuthModeIsRefusedNamingBoth(@TempDir Path dir) throws IOException {
        var values = defaults();
        values.put(ServiceSettings.AUTH_BEARER_TOKEN_FILE, Files.writeString(dir.resolve("t"), "x").toString());
        values.put(ServiceSettings.AUTH_MODE, "kubernetes");

        var e = assertThrows(InvalidSettingsException.class, () -> parse(values));
        assertTrue(e.getMessage().contains(ServiceSettings.AUTH_MODE + " = 'kubernetes'")
                && e.getMessage().contains("unset " + ServiceSettings.AUTH_BEARER_TOKEN_FILE), e.getMessage());

        values.put(ServiceSettings.AUTH_MODE, "none");
        assertThrows(InvalidSettingsException.class, () -> parse(values));
        values.remove(ServiceSettings.AUTH_BEARER_TOKEN_FILE);
        assertEquals(ServiceSettings.Auth.NONE, parse(values).auth());
    }

    static Stream<Arguments> badConfigs() {
        List<Map<String, Object>> cases;
        try (InputStream in = ServiceSettingsTest.class.getResourceAsStream("/settings/bad-configs.yaml")) {
            cases = new Yaml().load(in);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return cases.stream().map(c -> Arguments.of(c.get("name"), c.get("set"), c.get("bad")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigs")
    void badConfigFailsWithOneMessageNamingEveryBadKeyItsValueAndAFix(String name, Map<String, String> set,
                                                                       List<String> bad) throws IOException {
        var values = defaults();
        values.putAll(set);

        var e = assertThrows(InvalidSettingsException.class, () -> parse(values));

        assertEquals(bad, e.problems().stream().map(p -> p.substring(0, p.indexOf(" = "))).toList(),
                () -> "problems: " + e.problems());
        for (int i = 0; i < bad.size(); i++) {
            String problem = e.problems().get(i);
            assertTrue(problem.startsWith(bad.get(i) + " = '" + set.getOrDefault(bad.get(i), "")),
                    () -> "value missing in: " + problem);
            assertTrue(problem.contains("; fix: "), () -> "no fix in: " + problem);
            assertTrue(e.getMessage().contains(problem), "the single message lists every problem");
        }
    }

    @Test
    void emptyBearerTokenFileIsRejectedRatherThanAcceptingAnEmptyToken(@TempDir Path dir) throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "  \n");
        var values = defaults();
        values.put(ServiceSettings.AUTH_BEARER_TOKEN_FILE, token.toString());

        var e = assertThrows(InvalidSettingsException.class, () -> parse(values));

        assertEquals(1, e.problems().size());
        assertTrue(e.problems().getFirst().contains("empty"), e.getMessage());
    }

    @Test
    void microProfileConfigExpressionsAndOverridesReachTheSettings() throws IOException {
        var props = defaults();
        props.put(ServiceSettings.LEASE_NAMESPACE, "${POD_NAMESPACE_FOR_TEST:tenantplane-system}");
        var overrides = Map.of(
                "POD_NAMESPACE_FOR_TEST", "ops",
                ServiceSettings.CONCURRENCY, "16");
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        Config config = resolver.getBuilder()
                .withSources(new MapSource("defaults", props, 100), new MapSource("overrides", overrides, 400))
                .build();

        ServiceSettings s = ServiceSettings.from(config);

        assertEquals("ops", s.lease().namespace());
        assertEquals(16, s.concurrency());
        assertFalse(s.lease().identity().isBlank(), "an unset identity becomes a random one");
    }

    private record MapSource(String name, Map<String, String> values, int ordinal) implements ConfigSource {
        @Override
        public Map<String, String> getProperties() {
            return values;
        }

        @Override
        public java.util.Set<String> getPropertyNames() {
            return values.keySet();
        }

        @Override
        public String getValue(String key) {
            return values.get(key);
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public int getOrdinal() {
            return ordinal;
        }
    }
}
