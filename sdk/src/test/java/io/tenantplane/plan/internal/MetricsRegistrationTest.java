package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MetricsRegistrationTest {

    private static final KubeletCa CA = KubeletCa.generate("kubelet-ca", Clock.systemUTC());
    private static final KubeletEndpoint ENDPOINT = new KubeletEndpoint("tenantplane-kubelet.tenantplane-system.svc",
            10250, CA);

    private static JsonObject service() {
        return MetricsRegistration.desired(ENDPOINT.host(), ENDPOINT.port(), CA.certificatePem()).get(0);
    }

    private static JsonObject apiService() {
        return MetricsRegistration.desired(ENDPOINT.host(), ENDPOINT.port(), CA.certificatePem()).get(1);
    }

    /** As the API server returns it: with what it adds (uid, resourceVersion, defaults, status). */
    private static JsonObject stored(JsonObject desired, Consumer<JsonObject> change) {
        JsonObject o = desired.deepCopy();
        Json.child(o, "metadata").addProperty("uid", "u1");
        Json.child(o, "metadata").addProperty("resourceVersion", "7");
        if ("Service".equals(Json.string(o, "kind"))) {
            Json.child(o, "spec").addProperty("sessionAffinity", "None");
        } else {
            Json.child(o, "status").add("conditions", new com.google.gson.JsonArray());
        }
        change.accept(o);
        return o;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("absent: created", (java.util.function.Supplier<JsonObject>) () -> null,
                        true, "Create", Reasons.METRICS_API_REGISTERED),
                Arguments.of("ours as desired, with the server's defaults: nothing",
                        (java.util.function.Supplier<JsonObject>) () -> stored(apiService(), o -> { }),
                        true, null, null),
                Arguments.of("ours, pointed elsewhere: put back",
                        (java.util.function.Supplier<JsonObject>) () -> stored(apiService(),
                                o -> Json.child(Json.child(o, "spec"), "service").addProperty("port", 443)),
                        true, "Update", Reasons.METRICS_API_REGISTERED),
                Arguments.of("ours, with another CA bundle (the installation's CA changed): put back",
                        (java.util.function.Supplier<JsonObject>) () -> stored(apiService(),
                                o -> Json.child(o, "spec").addProperty("caBundle", "b3RoZXI=")),
                        true, "Update", Reasons.METRICS_API_REGISTERED),
                Arguments.of("the component label removed: no longer marked as ours, left alone",
                        (java.util.function.Supplier<JsonObject>) () -> stored(apiService(),
                                o -> Json.child(Json.child(o, "metadata"), "labels").remove("tenantplane.io/component")),
                        true, "Skip", Reasons.METRICS_API_OWNED_BY_TENANT),
                Arguments.of("the tenant's own metrics-server: left alone",
                        (java.util.function.Supplier<JsonObject>) () -> {
                            JsonObject own = stored(apiService(), o -> { });
                            Json.child(own, "metadata").add("labels", com.google.gson.JsonParser.parseString(
                                    "{\"k8s-app\":\"metrics-server\"}").getAsJsonObject());
                            return own;
                        }, true, "Skip", Reasons.METRICS_API_OWNED_BY_TENANT),
                Arguments.of("the Service, absent: created", (java.util.function.Supplier<JsonObject>) () -> null,
                        false, "Create", Reasons.METRICS_API_REGISTERED),
                Arguments.of("our Service as desired: nothing",
                        (java.util.function.Supplier<JsonObject>) () -> stored(service(), o -> { }),
                        false, null, null),
                Arguments.of("our Service, another external name: put back",
                        (java.util.function.Supplier<JsonObject>) () -> stored(service(),
                                o -> Json.child(o, "spec").addProperty("externalName", "elsewhere.example.com")),
                        false, "Update", Reasons.METRICS_API_REGISTERED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(String name, java.util.function.Supplier<JsonObject> current, boolean isApiService, String action,
                 String reason) {
        JsonObject desired = isApiService ? apiService() : service();
        Optional<Decision> d = MetricsRegistration.decide("dev", desired, current.get());
        if (action == null) {
            assertEquals(Optional.empty(), d, name);
            return;
        }
        assertTrue(d.isPresent(), name);
        assertEquals(action, d.get().getClass().getSimpleName(), name);
        assertEquals(reason, d.get().reason(), name);
        if (action.equals("Update")) {
            assertEquals(Optional.empty(), MetricsRegistration.decide("dev", desired,
                    stored(d.get().desired(), o -> { })), "what the update writes is what is desired: " + name);
        }
    }

    @Test
    void inPrivateModeOnlyWhatStillPointsAtTheEndpointIsRetired() {
        Optional<Decision> api = MetricsRegistration.retire("dev", stored(apiService(), o -> { }));
        assertEquals("Delete", api.orElseThrow().getClass().getSimpleName());
        assertEquals(Reasons.METRICS_API_RETIRED, api.get().reason());
        assertEquals("Delete", MetricsRegistration.retire("dev", stored(service(), o -> { })).orElseThrow()
                .getClass().getSimpleName());
        JsonObject takenOver = stored(apiService(), o -> Json.child(Json.child(o, "spec"), "service")
                .addProperty("name", "metrics-server"));
        assertEquals(Optional.empty(), MetricsRegistration.retire("dev", takenOver),
                "k3s's deploy controller pointed it at its own metrics-server: that registration is left alone");
        JsonObject own = stored(apiService(), o -> Json.child(o, "metadata").add("labels", new JsonObject()));
        assertEquals(Optional.empty(), MetricsRegistration.retire("dev", own), "never the tenant's own");
        assertEquals(Optional.empty(), MetricsRegistration.retire("dev", null));
    }

    @Test
    void theApiServicePointsTheAggregatorAtTheEndpointThroughAnExternalNameService() {
        List<JsonObject> objects = MetricsRegistration.desired(ENDPOINT.host(), ENDPOINT.port(), CA.certificatePem());
        JsonObject service = objects.get(0);
        assertEquals("ExternalName", Json.string(service, "spec", "type"));
        assertEquals(ENDPOINT.host(), Json.string(service, "spec", "externalName"));
        JsonObject spec = Json.object(objects.get(1), "spec");
        assertEquals("metrics.k8s.io", Json.string(spec, "group"));
        assertEquals("v1beta1", Json.string(spec, "version"));
        assertEquals(10250, spec.getAsJsonObject("service").get("port").getAsInt(),
                "the aggregator dials <externalName>:<spec.service.port>");
        assertEquals(CA.certificatePem(), new String(Base64.getDecoder().decode(Json.string(spec, "caBundle")),
                StandardCharsets.US_ASCII), "the aggregator verifies the endpoint with the installation's CA");
        assertEquals(KubeletEndpoint.METRICS_SERVER_NAME, MetricsRegistration.SERVICE + "."
                        + MetricsRegistration.NAMESPACE + ".svc",
                "the aggregator verifies the name <service>.<namespace>.svc, which serving certificates carry");
    }
}
