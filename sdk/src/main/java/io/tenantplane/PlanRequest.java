package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import java.util.List;
import java.util.Objects;

/**
 * The input of an offline {@link TenantPlane#plan(PlanRequest)}: a tenant, its policy and profile, its objects, and
 * what the host holds now.
 *
 * @param tenantCluster  the tenant; its name is the tenant name and its host namespace is where objects land
 * @param profile        the IsolationProfile the tenant uses; null for the secure defaults
 * @param policy         the SyncPolicy; null for {@link SyncPolicy#defaultPolicy()}
 * @param tenantObjects  the tenant's objects (every synced kind complete: a host copy without source is an orphan)
 * @param hostObjects    the host objects in the host namespace now; empty for a first sync
 */
public record PlanRequest(TenantCluster tenantCluster, IsolationProfile profile, SyncPolicy policy,
                          List<JsonObject> tenantObjects, List<JsonObject> hostObjects) {

    public PlanRequest {
        Objects.requireNonNull(tenantCluster, "tenantCluster");
        policy = policy == null ? SyncPolicy.defaultPolicy() : policy;
        tenantObjects = tenantObjects == null ? List.of() : tenantObjects.stream().map(JsonObject::deepCopy).toList();
        hostObjects = hostObjects == null ? List.of() : hostObjects.stream().map(JsonObject::deepCopy).toList();
    }
}
