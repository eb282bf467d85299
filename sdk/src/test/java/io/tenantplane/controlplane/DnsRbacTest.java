package io.tenantplane.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.testkit.KubeApiServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * What the tenant's DNS may do in its tenant, decided by the RBAC authorizer over the ServiceAccount, ClusterRole and
 * binding the control plane's publisher applies: CoreDNS's reads, nothing else.
 */
class DnsRbacTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static int post(String url, String path, String json) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }

    private static boolean allowed(String url, String verb, String group, String resource, String namespace)
            throws IOException, InterruptedException {
        String body = """
                {"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{
                 "user":"system:serviceaccount:kube-system:%s","groups":["system:serviceaccounts",
                 "system:serviceaccounts:kube-system","system:authenticated"],
                 "resourceAttributes":{"verb":"%s","group":"%s","resource":"%s","namespace":"%s"}}}"""
                .formatted(ControlPlaneRenderer.DNS_SERVICE_ACCOUNT, verb, group, resource, namespace);
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url
                        + "/apis/authorization.k8s.io/v1/subjectaccessreviews")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        JsonObject review = Json.gson().fromJson(r.body(), JsonObject.class);
        return review.getAsJsonObject("status").get("allowed").getAsBoolean();
    }

    @Test
    void theDnsAccountMayListAndWatchWhatCoreDnsReadsAndNothingElse() throws Exception {
        try (KubeApiServer tenant = KubeApiServer.builder().namespaces("kube-system", "default").build().start()) {
            for (Object doc : new Yaml().loadAll(ControlPlaneRenderer.dnsRbacManifest())) {
                JsonObject o = Json.gson().toJsonTree(doc).getAsJsonObject();
                String kind = Json.string(o, "kind");
                String path = switch (kind) {
                    case "ServiceAccount" -> "/api/v1/namespaces/kube-system/serviceaccounts";
                    case "ClusterRole" -> "/apis/rbac.authorization.k8s.io/v1/clusterroles";
                    case "ClusterRoleBinding" -> "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
                    default -> throw new AssertionError(kind);
                };
                assertEquals(201, post(tenant.url(), path, o.toString()), kind);
            }
            String url = tenant.url();
            Map<List<String>, Boolean> expected = Map.ofEntries(
                    Map.entry(List.of("list", "", "services"), true),
                    Map.entry(List.of("watch", "", "services"), true),
                    Map.entry(List.of("list", "", "endpoints"), true),
                    Map.entry(List.of("watch", "", "pods"), true),
                    Map.entry(List.of("list", "", "namespaces"), true),
                    Map.entry(List.of("watch", "discovery.k8s.io", "endpointslices"), true),
                    Map.entry(List.of("get", "", "secrets"), false),
                    Map.entry(List.of("list", "", "secrets"), false),
                    Map.entry(List.of("list", "", "configmaps"), false),
                    Map.entry(List.of("create", "", "pods"), false),
                    Map.entry(List.of("delete", "", "services"), false),
                    Map.entry(List.of("create", "", "serviceaccounts/token"), false));
            for (var e : expected.entrySet()) {
                List<String> a = e.getKey();
                assertEquals(e.getValue(), allowed(url, a.get(0), a.get(1), a.get(2), "default"), a.toString());
            }
        }
    }
}
