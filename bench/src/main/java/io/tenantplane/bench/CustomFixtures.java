package io.tenantplane.bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.model.ObjectMeta;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.transform.HostFacts;
import io.tenantplane.transform.TransformOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The custom-kind mix: {@link Fixtures}' objects with two in ten replaced by custom resources a SyncPolicy declares
 * (a cert-manager {@code Certificate} with a reference and patches, a {@code Backup} with list references and a
 * label selector), so that planning runs the declared-field transform as often as a busy tenant would.
 */
public final class CustomFixtures {

    private CustomFixtures() {
    }

    /** {@link Fixtures#policy()} plus the two custom kinds, with their references, selector and patches. */
    public static SyncPolicy policy() {
        List<SyncPolicy.KindRule> rules = new ArrayList<>(Fixtures.policy().spec().kinds());
        rules.add(rule("""
                {"kind":"Certificate","apiVersion":"cert-manager.io/v1","toHost":true,
                 "references":[{"path":"spec.secretName","kind":"Secret"}],
                 "patches":[{"op":"set","path":"spec.issuerRef.name","value":"platform-ca"},
                            {"op":"set","path":"metadata.labels[example.com/tenant]","valueFrom":"tenant"}]}"""));
        rules.add(rule("""
                {"kind":"Backup","apiVersion":"example.com/v1","toHost":true,
                 "references":[{"path":"spec.targets[*].configRef.name","kind":"ConfigMap"},
                               {"path":"spec.secretName","kind":"Secret"}],
                 "labelSelectors":[{"path":"spec.selector"}]}"""));
        return new SyncPolicy("tenantplane.io/v1alpha1", SyncPolicy.KIND, ObjectMeta.of(Fixtures.HOST_NAMESPACE,
                "bench"), new SyncPolicy.Spec(rules));
    }

    private static SyncPolicy.KindRule rule(String json) {
        return io.tenantplane.json.Json.gson().fromJson(json, SyncPolicy.KindRule.class);
    }

    /** The options of a host that serves both custom kinds, in an installation that allows them. */
    public static TransformOptions options() {
        return TransformOptions.defaults().withHostFacts(new HostFacts(
                Set.of("Certificate.cert-manager.io", "Backup.example.com"),
                Map.of("Certificate", new HostFacts.Served(), "Backup", new HostFacts.Served()), Map.of()));
    }

    /** {@code count} tenant objects of the custom-kind mix, the same ones on every call. */
    public static List<JsonObject> tenantObjects(int count) {
        List<JsonObject> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(switch (i % 10) {
                case 3 -> certificate(i);
                case 9 -> backup(i);
                default -> Fixtures.tenantObject(i);
            });
        }
        return out;
    }

    private static JsonObject certificate(int i) {
        int app = i / 10;
        return JsonParser.parseString("""
                {"apiVersion":"cert-manager.io/v1","kind":"Certificate","metadata":{"name":"app-%d-tls",
                   "namespace":"%s","uid":"%s","resourceVersion":"%d","labels":{"app":"app-%d"}},
                 "spec":{"secretName":"app-%d-secret","dnsNames":["app-%d.example.com","www.app-%d.example.com"],
                   "duration":"2160h","renewBefore":"360h","issuerRef":{"name":"tenant-ca","kind":"Issuer"},
                   "privateKey":{"algorithm":"ECDSA","size":256}},
                 "status":{"conditions":[{"type":"Ready","status":"True"}]}}"""
                .formatted(app, Fixtures.namespace(app), Fixtures.uid("cert", i), 100 + i, app, app, app, app))
                .getAsJsonObject();
    }

    private static JsonObject backup(int i) {
        int app = i / 10;
        return JsonParser.parseString("""
                {"apiVersion":"example.com/v1","kind":"Backup","metadata":{"name":"app-%d-backup",
                   "namespace":"%s","uid":"%s","resourceVersion":"%d","labels":{"app":"app-%d"}},
                 "spec":{"schedule":"0 3 * * *","secretName":"app-%d-secret","retention":"7d",
                   "targets":[{"configRef":{"name":"app-%d-config"}},{"configRef":{"name":"app-%d-config"}}],
                   "selector":{"matchLabels":{"app":"app-%d"}}}}"""
                .formatted(app, Fixtures.namespace(app), Fixtures.uid("backup", i), 100 + i, app, app, app, app, app))
                .getAsJsonObject();
    }

    /** An empty host: every object a {@code Create}. */
    public static Snapshot emptyHost(List<JsonObject> tenantObjects) {
        return new Snapshot(Fixtures.TENANT, Fixtures.HOST_NAMESPACE, policy(), options(), tenantObjects, List.of());
    }

    /** A converged host: planning again finds every object {@code Unchanged}. */
    public static Snapshot convergedHost(List<JsonObject> tenantObjects) {
        return new Snapshot(Fixtures.TENANT, Fixtures.HOST_NAMESPACE, policy(), options(), tenantObjects,
                Fixtures.hostCopies(new Planner().plan(emptyHost(tenantObjects))));
    }
}
